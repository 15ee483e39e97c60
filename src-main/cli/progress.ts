import ora, { type Ora } from 'ora';
import type { JobEvent, JobRecord } from '../../shared';
import { err, formatClock, formatDuration, formatUsd } from './output';
import { servingLevelLine } from './render-serving';
import { scenarioLine } from './suites/scenario-line';

/**
 * Live progress of one job (design §7): current phase, elapsed time, running cost of a rented
 * machine, latest event. A spinner line on a TTY (stderr), plain timestamped lines otherwise
 * (logs, CI, pipes). Always stderr: stdout belongs to the result (and to --json).
 */

export type ProgressState = {
  jobId: string;
  kind: string;
  /** ms epoch the job was created (the elapsed clock's zero). */
  since: number;
  phase: string;
  /** The workflow names its phases (`phase.*` events, the benchmark): no guessing from step names. */
  namedPhases: boolean;
  latest: JobEvent | null;
  /** $/hour of the rented machine, once known. */
  dph: number | null;
  /** ms epoch the machine was rented; null before, or when nothing is rented. */
  rentedAt: number | null;
  /** ms epoch the machine was released (stops the cost clock). */
  releasedAt: number | null;
  /** The last `cost.update` figure, when the engine reports one. */
  reportedCost: { usd: number; at: number } | null;
};

export function initialState(job: JobRecord): ProgressState {
  const resources = job.resources;
  return {
    jobId: job.job_id,
    kind: job.kind,
    since: Date.parse(job.created_at),
    phase: job.progress?.phase ?? job.status,
    namedPhases: false,
    latest: null,
    dph: resources?.dph_total ?? null,
    rentedAt: resources?.rented_at ? Date.parse(resources.rented_at) : null,
    releasedAt: null,
    reportedCost: null,
  };
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Steps that belong to a phase when a workflow does not name its phases (llm-instance, agentic-agent). */
function phaseOf(event: string): string | null {
  if (event === 'marketplace.instance.destroy') return 'teardown';
  if (event.startsWith('marketplace.')) return 'provision';
  if (event.startsWith('llmserver.') || event.startsWith('llm.')) return 'warmup';
  if (event.startsWith('agent.')) return 'analysis';
  return null;
}

export function applyEvent(state: ProgressState, e: JobEvent): void {
  state.latest = e;
  const at = Date.parse(e.recorded_at);
  if (e.event === 'job.queued') state.phase = 'queued';
  else if (e.event === 'job.running') state.phase = 'running';
  else if (e.event === 'job.succeeded' || e.event === 'job.failed' || e.event === 'job.cancelled') state.phase = e.event.slice(4);
  else if (e.event.startsWith('phase.')) {
    state.namedPhases = true;
    if (e.status === 'started') state.phase = e.event.slice('phase.'.length);
  } else if (!state.namedPhases && e.status === 'started') {
    const phase = phaseOf(e.event);
    if (phase) state.phase = phase;
  }
  const dph = num(e.labels.dph_total);
  if (dph !== null) state.dph = dph;
  if (e.event === 'marketplace.instance.create' && e.status === 'ok') state.rentedAt = at;
  if (e.event === 'marketplace.instance.destroy' && e.status === 'ok') state.releasedAt = at;
  if (e.event === 'cost.update') {
    const usd = num(e.labels.cost_usd);
    if (usd !== null) state.reportedCost = { usd, at };
  }
}

/** Cost so far: the engine's last figure, advanced with $/h since then; else $/h × rented time. */
export function costNow(state: ProgressState, now = Date.now()): number | null {
  const end = state.releasedAt ?? now;
  if (state.reportedCost) {
    const extra = state.dph !== null && state.releasedAt === null ? (state.dph * Math.max(0, end - state.reportedCost.at)) / 3_600_000 : 0;
    return state.reportedCost.usd + extra;
  }
  if (state.dph === null || state.rentedAt === null) return null;
  return (state.dph * Math.max(0, end - state.rentedAt)) / 3_600_000;
}

export function describeEvent(e: JobEvent): string {
  const duration = e.duration_ms !== null ? ` (${formatDuration(e.duration_ms)})` : '';
  const message = e.message ? `: ${e.message}` : '';
  return `${e.event} ${e.status}${duration}${message}`;
}

function summary(state: ProgressState, now: number): string {
  const cost = costNow(state, now);
  const parts = [`[${state.phase}]`, formatClock(now - state.since)];
  if (cost !== null) parts.push(`${formatUsd(cost)}${state.dph !== null ? ` @ $${state.dph.toFixed(3)}/h` : ''}`);
  return parts.join('  ');
}

export type ProgressView = {
  event(e: JobEvent): void;
  /** A line that must not be overwritten by the spinner (an interrupt notice…). */
  note(line: string): void;
  stop(): void;
  readonly state: ProgressState;
};

/** Which view: a spinner when stderr is a terminal, lines otherwise. */
export function createProgress(job: JobRecord, options: { tty?: boolean } = {}): ProgressView {
  const state = initialState(job);
  // A terminal that reports no width (some pseudo-terminals) cannot host a redrawn line.
  const tty = options.tty ?? (process.stderr.isTTY === true && process.env.TERM !== 'dumb' && (process.stderr.columns ?? 0) > 20);
  return tty ? spinnerView(state) : lineView(state);
}

function lineView(state: ProgressState): ProgressView {
  const write = (line: string) => process.stderr.write(`${line}\n`);
  return {
    state,
    event(e) {
      applyEvent(state, e);
      const now = Date.parse(e.recorded_at);
      write(`${e.recorded_at}  ${summary(state, Number.isFinite(now) ? now : Date.now())}  ${describeEvent(e)}`);
    },
    note(line) {
      write(`${new Date().toISOString()}  ${line}`);
    },
    stop() {
      // Nothing to clean up: every line is already written.
    },
  };
}

function spinnerView(state: ProgressState): ProgressView {
  const colors = err;
  const spinner: Ora = ora({
    stream: process.stderr,
    // Ctrl-C must reach our SIGINT handler as a signal, not as a keystroke in raw mode.
    discardStdin: false,
    color: colors.isColorSupported ? 'cyan' : false,
    text: `${state.kind} ${state.jobId}`,
  }).start();
  const render = () => {
    const latest = state.latest ? describeEvent(state.latest) : '';
    // One line, never wrapped: a wrapped spinner line cannot be redrawn in place.
    const width = Math.max(20, (process.stderr.columns ?? 80) - 3);
    const text = `${state.kind} ${state.jobId}  ${summary(state, Date.now())}  ${latest}`.replace(/\s+/g, ' ');
    spinner.text = text.length > width ? `${text.slice(0, width - 1)}…` : text;
  };
  render();
  // The elapsed clock and the running cost move between events too.
  const timer = setInterval(render, 1000);
  timer.unref();
  return {
    state,
    event(e) {
      applyEvent(state, e);
      // A suite's scenarios each keep a line above the spinner as they are scored.
      const scored = scenarioLine(e);
      if (scored !== null) {
        spinner.clear();
        process.stderr.write(`${scored}\n`);
      }
      // A finished serving level stays on screen above the spinner: the run's table, live.
      if (e.event === 'serving.level' && e.status !== 'started') {
        spinner.clear();
        process.stderr.write(`${servingLevelLine(e.labels)}\n`);
      }
      render();
    },
    note(line) {
      spinner.clear();
      process.stderr.write(`${line}\n`);
      render();
    },
    stop() {
      clearInterval(timer);
      spinner.stop();
    },
  };
}
