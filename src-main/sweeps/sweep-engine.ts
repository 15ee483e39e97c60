import { randomBytes } from 'node:crypto';
import type { EventLabels, EventStatus } from '../../shared/jobs';
import {
  SweepRequestSchema,
  isCellFinished,
  isSweepFinished,
  type SweepCell,
  type SweepMachine,
  type SweepRecord,
  type SweepReportFormat,
  type SweepRequest,
  type SweepStatus,
} from '../../shared/sweeps';
import { ProblemError } from '../app/problem-error';
import type { Logger } from '../engine/types';
import { cellOutcome, type JobEndOf } from './job-results';
import { planMachine } from './planner';
import { SWEEP_JOB_KINDS, type MachineEvent, type RentedMachine, type SweepJobKind, type SweepJobRunner, type SweepMachines } from './ports';
import { buildReport, rankSweep } from './ranking';
import { reportCsv, reportMarkdown } from './report-format';
import type { SweepStore } from './sweep-store';

/**
 * The sweep engine (design §14). One process runs every sweep: per GPU name it rents one machine
 * (SweepMachines), runs every model on it in turn as ordinary jobs pointed at that machine's
 * Ollama (SweepJobRunner: the job kinds never rent), reads their results through narrow schemas,
 * then releases the machine; `machines_at_once` GPUs at a time. The record on disk is rewritten at
 * every change of a cell or machine, so a crash loses at most the step under way: at start-up the
 * interrupted machine is released and the unfinished cells run again.
 *
 * Money: the sweep's spend is the sum of its machines' running costs ($/h × time held), reported
 * as `cost.update` events; reaching `max_total_cost_usd` aborts the sweep, every machine is
 * released and the unfinished cells end `budget_exceeded`. A cancel does the same with `cancelled`.
 */

export type SweepFeedEvent = { event: string; status: EventStatus; message: string; labels?: EventLabels };

export type SweepEngineOptions = {
  store: SweepStore;
  runner: SweepJobRunner;
  machines: SweepMachines;
  log: Logger;
  /** Publishes a sweep event on the tenant feed (GET /v1/events, IPC push). */
  publish(tenantId: string, sweepId: string, event: SweepFeedEvent): void;
  /** The clock of costs and records (ms since the epoch). */
  now?: () => number;
  /** Cadence of `cost.update` and of the spend-limit check (default 30 s). */
  costIntervalMs?: number;
  /** Checks beyond the schema that need the rest of the app (the suite exists): issues → 422. */
  checkRequest?: (request: SweepRequest) => Promise<{ path: string; message: string }[]>;
  /** The tags of a suite's scenarios, when the job results do not carry them. */
  tagsOf?: (suiteId: string) => Promise<((scenarioId: string) => readonly string[] | undefined) | undefined>;
};

type StopReason = 'cancelled' | 'budget_exceeded' | 'shutdown';
type Run = { controller: AbortController; done: Promise<void>; tenantId: string };

export const DEFAULT_SWEEP_COST_INTERVAL_MS = 30_000;

const round6 = (x: number): number => Math.round(x * 1_000_000) / 1_000_000;

function newSweepId(): string {
  // 20 base-32 characters: lower-case, safe in a file name and a machine label.
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  return `sw-${[...randomBytes(20)].map((b) => alphabet[b % 32]).join('')}`;
}

/**
 * A cell's job's idempotency key: its machine (whose id carries the attempt: a resumed cell runs on
 * a new machine, so its new job never collides with the old one's key), the cell, the kind.
 */
export function jobTag(machineId: string, cellIndex: number, kind: SweepJobKind): string {
  return `${machineId}:${cellIndex}:${kind}`;
}

export function stopReasonOf(signal: AbortSignal): StopReason | null {
  if (!signal.aborted) return null;
  const reason: unknown = signal.reason;
  return reason === 'cancelled' || reason === 'budget_exceeded' ? reason : 'shutdown';
}

class StoppedError extends Error {
  constructor(readonly reason: StopReason) {
    super(`sweep stopped: ${reason}`);
  }
}

export class SweepEngine {
  private readonly runs = new Map<string, Run>();
  private readonly now: () => number;
  private accepting = true;
  /** One record change at a time per sweep: machines run in parallel and each rewrites the record. */
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private readonly options: SweepEngineOptions) {
    this.now = options.now ?? Date.now;
  }

  private iso(): string {
    return new Date(this.now()).toISOString();
  }

  // ---- operations ---------------------------------------------------------------------------

  /** Validates, stores durably, then starts the sweep in the background. */
  async create(tenantId: string, body: unknown): Promise<SweepRecord> {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ProblemError(400, 'bad_request', 'the request body must be a JSON object');
    const parsed = SweepRequestSchema.safeParse(body);
    if (!parsed.success) throw ProblemError.validation(parsed.error.issues, 'sweep request');
    const request = parsed.data;
    if (!this.accepting) throw new ProblemError(503, 'shutting_down', 'the server is shutting down and accepts no new sweep');
    if (!this.options.machines.ready()) {
      throw ProblemError.validation([{ path: 'gpus', message: 'no marketplace key is configured (set VAST_API_KEY): a sweep rents its machines there' }], 'sweep request');
    }
    const missing = [...(request.suite_id !== undefined ? ['suite' as const] : []), ...(request.serving ? ['serving-benchmark' as const] : [])].filter((k) => !this.options.runner.supports(k));
    if (missing.length > 0) {
      const path = missing[0] === 'suite' ? 'suite_id' : 'serving';
      throw ProblemError.validation([{ path, message: `this server has no ${missing.join(' or ')} job kind to run it` }], 'sweep request');
    }
    const issues = (await this.options.checkRequest?.(request)) ?? [];
    if (issues.length > 0) throw ProblemError.validation(issues, 'sweep request');
    const unknown = request.models.filter((m) => !this.options.machines.catalogEntry(m));
    if (unknown.length > 0) {
      throw ProblemError.validation(
        [{ path: 'models', message: `not in the marketplace catalog (its GPU memory need is unknown): ${unknown.join(', ')}; GET /v1/catalog/marketplace-models lists the models` }],
        'sweep request',
      );
    }
    const at = this.iso();
    const sweepId = newSweepId();
    const record: SweepRecord = {
      sweep_id: sweepId,
      tenant_id: tenantId,
      name: request.name,
      status: 'queued',
      message: 'accepted',
      created_at: at,
      started_at: null,
      finished_at: null,
      updated_at: at,
      request,
      spend_usd: 0,
      max_total_cost_usd: request.max_total_cost_usd,
      // Model-major: the matrix reads model by model, one column per GPU.
      cells: request.models.flatMap((model) => request.gpus.map((gpu): SweepCell => ({ model, gpu, status: 'pending', job_ids: [], cost_usd: 0 }))),
      machines: request.gpus.map((gpu, i): SweepMachine => ({ gpu, status: 'pending', machine_id: `${sweepId}-g${i}-a0`, cost_usd: 0 })),
      earlier_machines: [],
      ranking: [],
      error: null,
      error_code: null,
    };
    await this.options.store.create(record);
    this.publish(record, { event: 'sweep.queued', status: 'info', message: `accepted: ${record.cells.length} cells on ${request.gpus.length} GPU(s)` });
    this.start(record.sweep_id, tenantId);
    return record;
  }

  async list(tenantId: string): Promise<SweepRecord[]> {
    return (await this.options.store.list()).filter((s) => s.tenant_id === tenantId).map((s) => this.withLiveCosts(s));
  }

  async get(tenantId: string, sweepId: string): Promise<SweepRecord> {
    const sweep = await this.options.store.get(sweepId);
    if (!sweep || sweep.tenant_id !== tenantId) throw new ProblemError(404, 'sweep_not_found', `no sweep ${sweepId}`);
    return this.withLiveCosts(sweep);
  }

  async cancel(tenantId: string, sweepId: string): Promise<{ sweep_id: string; status: SweepStatus }> {
    const sweep = await this.get(tenantId, sweepId);
    if (isSweepFinished(sweep.status)) throw new ProblemError(409, 'sweep_not_cancellable', `sweep ${sweepId} has already ended (${sweep.status})`);
    const run = this.runs.get(sweepId);
    if (run) {
      if (!run.controller.signal.aborted) {
        this.publish(sweep, { event: 'sweep.cancel_requested', status: 'info', message: 'cancellation requested: releasing every machine' });
        run.controller.abort('cancelled');
      }
      return { sweep_id: sweepId, status: 'running' };
    }
    // Not running in this process (queued, never started here): nothing is held.
    const ended = await this.update(sweepId, (s) => {
      for (const cell of s.cells) if (!isCellFinished(cell.status)) Object.assign(cell, { status: 'cancelled', reason: 'the sweep was cancelled' });
      s.status = 'cancelled';
      s.message = 'cancelled';
      s.finished_at = this.iso();
    });
    this.publish(ended, { event: 'sweep.cancelled', status: 'info', message: 'cancelled before it ran' });
    return { sweep_id: sweepId, status: 'cancelled' };
  }

  async report(tenantId: string, sweepId: string, format: SweepReportFormat): Promise<string | ReturnType<typeof buildReport>> {
    const report = buildReport(await this.get(tenantId, sweepId));
    if (format === 'md') return reportMarkdown(report);
    if (format === 'csv') return reportCsv(report);
    return report;
  }

  /**
   * The sweep a machine id (the id in a machine's label) belongs to: the machines list shows what
   * runs on it, and a machine is `active` while its sweep holds it (an orphan otherwise).
   */
  async machineOwner(machineId: string): Promise<{ sweep_id: string; tenant_id: string; name: string; gpu: string; model: string | null; status: string; active: boolean } | undefined> {
    const sweepId = /^(sw-[a-z0-9]+)-g\d+-a\d+$/.exec(machineId)?.[1];
    const sweep = sweepId ? await this.options.store.get(sweepId) : undefined;
    if (!sweep) return undefined;
    const machine = [...sweep.machines, ...sweep.earlier_machines].find((m) => m.machine_id === machineId);
    if (!machine) return undefined;
    const held = machine.status === 'renting' || machine.status === 'running';
    const current = machine.current_cell !== undefined ? sweep.cells[machine.current_cell] : undefined;
    return {
      sweep_id: sweep.sweep_id,
      tenant_id: sweep.tenant_id,
      name: sweep.name,
      gpu: machine.gpu,
      model: current?.model ?? null,
      status: sweep.status,
      active: held && !isSweepFinished(sweep.status),
    };
  }

  /** Resolves when the sweep's run in this process has ended (tests, benchmarks). */
  async settled(sweepId: string): Promise<void> {
    await this.runs.get(sweepId)?.done;
  }

  /**
   * Start-up recovery: a sweep that was running when the process stopped has its machines
   * released (by id, or by label when the rent's answer was never recorded), its interrupted cells
   * set back to pending, and runs again with its unfinished cells; queued sweeps start.
   */
  async recover(options: { resume?: boolean } = {}): Promise<{ resumed: number; released: number }> {
    let released = 0;
    let resumed = 0;
    for (const sweep of await this.options.store.list()) {
      if (isSweepFinished(sweep.status)) continue;
      for (let i = 0; i < sweep.machines.length; i++) {
        const machine = sweep.machines[i] as SweepMachine;
        if (machine.status !== 'renting' && machine.status !== 'running') continue;
        this.publish(sweep, {
          event: 'sweep.recover',
          status: 'info',
          message: `the server stopped while this sweep held ${machine.instance_id !== undefined ? `instance ${machine.instance_id}` : `a ${machine.gpu} machine being rented`}: releasing it`,
          labels: { gpu: machine.gpu, instance_id: machine.instance_id ?? null },
        });
        await this.releaseMachine(sweep.sweep_id, i, 'interrupted');
        released++;
      }
      // A job the killed process submitted but never recorded (it died between the two): found by its key, recorded, stopped.
      const unrecorded = new Map<number, string[]>();
      for (const [index, cell] of sweep.cells.entries()) {
        if (cell.status !== 'running') continue;
        const machine = sweep.machines.find((m) => m.gpu === cell.gpu);
        if (!machine) continue;
        for (const kind of SWEEP_JOB_KINDS) {
          const jobId = await this.options.runner.findTagged(sweep.tenant_id, kind, jobTag(machine.machine_id, index, kind)).catch(() => undefined);
          if (!jobId) continue;
          if (!cell.job_ids.includes(jobId)) unrecorded.set(index, [...(unrecorded.get(index) ?? []), jobId]);
          await this.options.runner.cancel(sweep.tenant_id, jobId).catch(() => undefined);
        }
      }
      await this.update(sweep.sweep_id, (s) => {
        for (const [index, ids] of unrecorded) (s.cells[index] as SweepCell).job_ids.push(...ids);
        for (const cell of s.cells) {
          if (cell.status !== 'running') continue;
          cell.status = 'pending';
          delete cell.started_at;
          cell.reason = 'interrupted by a server stop; runs again';
        }
        s.machines.forEach((m, i) => {
          if (m.status === 'released' || m.status === 'failed' || m.status === 'skipped') {
            // A GPU with cells left to run gets a new machine (a new label).
            if (s.cells.some((c) => c.gpu === m.gpu && c.status === 'pending')) {
              s.earlier_machines.push(m);
              s.machines[i] = this.nextMachine(s, i, m);
            }
          }
        });
        s.message = 'resumed after a server stop';
      });
      // `resume: false` (a CLI command in its own process): machines released, the sweep left for the next server start.
      if (options.resume === false) continue;
      this.start(sweep.sweep_id, sweep.tenant_id);
      resumed++;
    }
    if (resumed > 0) this.options.log.info('resumed sweeps', { resumed, released_machines: released });
    return { resumed, released };
  }

  /**
   * Stops every sweep's work for a shutdown: running jobs cancelled, machines released, cells
   * under way back to pending; the sweeps stay unfinished on disk and resume at the next start.
   */
  async shutdown(): Promise<void> {
    this.accepting = false;
    for (const run of this.runs.values()) run.controller.abort('shutdown');
    await Promise.all([...this.runs.values()].map((r) => r.done));
    await this.options.store.flush();
  }

  // ---- running ------------------------------------------------------------------------------

  private start(sweepId: string, tenantId: string): void {
    if (this.runs.has(sweepId) || !this.accepting) return;
    const controller = new AbortController();
    const run: Run = { controller, tenantId, done: Promise.resolve() };
    this.runs.set(sweepId, run);
    run.done = this.execute(sweepId, controller)
      .catch((err: unknown) => this.options.log.error('sweep execution crashed', { sweep_id: sweepId, error: errorMessage(err) }))
      .finally(() => this.runs.delete(sweepId));
  }

  private nextMachine(s: SweepRecord, index: number, previous: SweepMachine): SweepMachine {
    const attempt = Number(/-a(\d+)$/.exec(previous.machine_id)?.[1] ?? '0') + 1;
    return { gpu: previous.gpu, status: 'pending', machine_id: `${s.sweep_id}-g${index}-a${attempt}`, cost_usd: 0 };
  }

  private async execute(sweepId: string, controller: AbortController): Promise<void> {
    const signal = controller.signal;
    let sweep = await this.update(sweepId, (s) => {
      s.status = 'running';
      s.message = 'running';
      s.started_at ??= this.iso();
    });
    this.publish(sweep, { event: 'sweep.running', status: 'info', message: `running on ${sweep.machines.length} GPU(s), ${sweep.request.machines_at_once} at a time` });
    const timer = setInterval(() => void this.costTick(sweepId, controller).catch(() => undefined), Math.max(10, this.options.costIntervalMs ?? DEFAULT_SWEEP_COST_INTERVAL_MS));
    timer.unref();
    let fatal: unknown = null;
    try {
      const queue = sweep.machines.map((_, i) => i);
      const workers = Array.from({ length: Math.min(sweep.request.machines_at_once, queue.length) }, async () => {
        for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
          if (signal.aborted) return;
          await this.runMachine(sweepId, i, controller);
        }
      });
      await Promise.all(workers);
    } catch (err) {
      fatal = err;
    } finally {
      clearInterval(timer);
    }
    const stop = stopReasonOf(signal);
    if (stop === 'shutdown') {
      await this.update(sweepId, (s) => {
        s.message = 'stopped by a server shutdown; it resumes at the next start';
      });
      return;
    }
    sweep = await this.update(sweepId, (s) => {
      for (const cell of s.cells) {
        if (isCellFinished(cell.status)) continue;
        cell.status = stop ?? 'failed';
        cell.reason = stop === 'budget_exceeded' ? `the sweep reached its spend limit ($${s.max_total_cost_usd})` : stop === 'cancelled' ? 'the sweep was cancelled' : `not run: ${errorMessage(fatal)}`;
      }
      rankSweep(s);
      s.finished_at = this.iso();
      const done = s.cells.filter((c) => c.status === 'succeeded').length;
      if (stop === 'cancelled') {
        s.status = 'cancelled';
        s.message = `cancelled; ${done} of ${s.cells.length} cells finished, every machine released`;
      } else if (stop === 'budget_exceeded') {
        s.status = 'failed';
        s.error_code = 'budget_exceeded';
        s.error = `the spend reached max_total_cost_usd ($${s.max_total_cost_usd}): every machine released, ${done} of ${s.cells.length} cells finished`;
        s.message = s.error;
      } else if (fatal) {
        s.status = 'failed';
        s.error_code = 'internal';
        s.error = errorMessage(fatal);
        s.message = s.error;
      } else if (done === 0 && s.cells.some((c) => c.status === 'failed' || c.status === 'skipped')) {
        s.status = 'failed';
        s.error_code = 'no_cell_succeeded';
        s.error = 'no cell succeeded: ' + (s.cells.find((c) => c.reason)?.reason ?? 'see the cells');
        s.message = s.error;
      } else {
        s.status = 'succeeded';
        s.message = `${done} of ${s.cells.length} cells scored for $${s.spend_usd.toFixed(4)}`;
      }
    });
    this.publish(sweep, { event: `sweep.${sweep.status}`, status: sweep.status === 'succeeded' ? 'ok' : sweep.status === 'failed' ? 'error' : 'info', message: sweep.message, labels: { spend_usd: sweep.spend_usd, ...(sweep.error_code ? { error_code: sweep.error_code } : {}) } });
  }

  /** The running costs now: every machine's, the sweep's sum; `cost.update`; the spend limit. */
  private async costTick(sweepId: string, controller: AbortController): Promise<void> {
    if (controller.signal.aborted) return;
    const sweep = await this.update(sweepId, () => undefined);
    this.publish(sweep, {
      event: 'cost.update',
      status: 'info',
      message: `sweep spend $${sweep.spend_usd.toFixed(6)} of $${sweep.max_total_cost_usd}`,
      labels: { cost_usd: sweep.spend_usd, spend_usd: sweep.spend_usd, max_total_cost_usd: sweep.max_total_cost_usd, machines_running: sweep.machines.filter((m) => m.status === 'running').length },
    });
    this.checkBudget(sweep, controller);
  }

  private checkBudget(sweep: SweepRecord, controller: AbortController): boolean {
    if (sweep.spend_usd < sweep.max_total_cost_usd || controller.signal.aborted) return controller.signal.aborted;
    this.publish(sweep, {
      event: 'cost.limit_reached',
      status: 'info',
      message: `spend $${sweep.spend_usd.toFixed(6)} reached max_total_cost_usd $${sweep.max_total_cost_usd}: releasing every machine`,
      labels: { spend_usd: sweep.spend_usd, max_total_cost_usd: sweep.max_total_cost_usd },
    });
    controller.abort('budget_exceeded');
    return true;
  }

  /** One GPU: plan, rent once, every model in turn, release. */
  private async runMachine(sweepId: string, index: number, controller: AbortController): Promise<void> {
    const signal = controller.signal;
    let sweep = await this.read(sweepId);
    const machine = sweep.machines[index] as SweepMachine;
    const gpu = machine.gpu;
    const pending = sweep.cells.map((c, i) => ({ c, i })).filter(({ c }) => c.gpu === gpu && c.status === 'pending');
    if (pending.length === 0) return;
    const { machines } = this.options;
    // Plan: which models fit any offer of this GPU, and the one machine's size.
    let plan;
    try {
      const offers = await machines.offers(gpu, sweep.request, signal);
      plan = planMachine(gpu, pending.map(({ c }) => c.model), (m) => machines.catalogEntry(m), offers, {
        minDph: sweep.request.min_dph,
        maxDph: this.maxDph(sweep.request),
        minReliability: sweep.request.reliability,
      });
    } catch (err) {
      if (signal.aborted) return;
      await this.failGpu(sweepId, index, `could not search the ${gpu} offers: ${errorMessage(err)}`);
      return;
    }
    if (plan.skipped.length > 0) {
      sweep = await this.update(sweepId, (s) => {
        for (const skip of plan.skipped) {
          const cell = s.cells.find((c) => c.gpu === gpu && c.model === skip.model);
          if (cell) Object.assign(cell, { status: 'skipped', reason: skip.reason });
        }
      });
      for (const skip of plan.skipped) this.publish(sweep, { event: 'sweep.cell.skipped', status: 'info', message: `${skip.model} on ${gpu}: ${skip.reason}`, labels: { model: skip.model, gpu } });
    }
    if (!plan.sizing) {
      await this.update(sweepId, (s) => {
        const m = s.machines[index] as SweepMachine;
        m.status = 'skipped';
        m.reason = 'no model of the sweep fits an offer of this GPU: nothing rented';
      });
      return;
    }
    if (this.checkBudget(sweep, controller)) return;

    // Rent the one machine of this GPU.
    await this.update(sweepId, (s) => {
      (s.machines[index] as SweepMachine).status = 'renting';
    });
    const onEvent = (e: MachineEvent) => this.publishMachineEvent(sweepId, gpu, e);
    let rented: RentedMachine;
    try {
      rented = await machines.rent(
        { machineId: machine.machine_id, gpu, sizing: plan.sizing, request: sweep.request },
        {
          onRented: async (r) => {
            const s = await this.update(sweepId, (rec) => {
              Object.assign(rec.machines[index] as SweepMachine, { status: 'running', instance_id: r.instanceId, dph_total: r.dphTotal, rented_at: r.rentedAt, released: false });
            });
            this.publish(s, { event: 'sweep.machine.rented', status: 'info', message: `rented instance ${r.instanceId} (${gpu}) at $${r.dphTotal}/h`, labels: { gpu, instance_id: r.instanceId, dph_total: r.dphTotal } });
          },
          onEvent,
        },
        signal,
      );
    } catch (err) {
      // The rent released whatever it had rented before rejecting.
      await this.update(sweepId, (s) => {
        const m = s.machines[index] as SweepMachine;
        m.status = signal.aborted ? 'released' : 'failed';
        if (m.instance_id !== undefined) {
          m.released = true;
          m.released_at = this.iso();
        }
        m.reason = errorMessage(err);
      });
      if (!signal.aborted) await this.failGpu(sweepId, index, `could not rent a ${gpu} machine: ${errorMessage(err)}`);
      return;
    }
    await this.update(sweepId, (s) => {
      Object.assign(s.machines[index] as SweepMachine, { offer_id: rented.offerId, num_gpus: rented.numGpus, gpu_ram_mb: rented.gpuRamMb });
    });

    try {
      for (const model of plan.models) {
        if (signal.aborted) break;
        const cellIndex = (await this.read(sweepId)).cells.findIndex((c) => c.gpu === gpu && c.model === model && c.status === 'pending');
        if (cellIndex < 0) continue;
        await this.runCell(sweepId, index, cellIndex, rented, controller);
      }
    } finally {
      await this.releaseMachine(sweepId, index, stopReasonOf(signal) ?? 'done');
    }
  }

  /** The machines' price ceiling: the request's, else the whole budget per hour. */
  private maxDph(request: SweepRequest): number {
    return request.max_dph ?? request.max_total_cost_usd;
  }

  private async failGpu(sweepId: string, index: number, reason: string): Promise<void> {
    const s = await this.update(sweepId, (rec) => {
      const m = rec.machines[index] as SweepMachine;
      if (m.status === 'pending' || m.status === 'renting') m.status = 'failed';
      m.reason = reason;
      for (const cell of rec.cells) if (cell.gpu === m.gpu && cell.status === 'pending') Object.assign(cell, { status: 'failed', reason });
    });
    this.publish(s, { event: 'sweep.machine.failed', status: 'error', message: reason, labels: { gpu: (s.machines[index] as SweepMachine).gpu } });
  }

  /** One model on the machine: pull, then the suite and/or the serving benchmark as jobs; scored and costed. */
  private async runCell(sweepId: string, machineIndex: number, cellIndex: number, rented: RentedMachine, controller: AbortController): Promise<void> {
    const signal = controller.signal;
    const startMs = this.now();
    let sweep = await this.update(sweepId, (s) => {
      const cell = s.cells[cellIndex] as SweepCell;
      cell.status = 'running';
      cell.started_at = new Date(startMs).toISOString();
      delete cell.reason;
      (s.machines[machineIndex] as SweepMachine).current_cell = cellIndex;
    });
    const cell0 = sweep.cells[cellIndex] as SweepCell;
    const { model, gpu } = cell0;
    const machineId = (sweep.machines[machineIndex] as SweepMachine).machine_id;
    this.publish(sweep, { event: 'sweep.cell.running', status: 'info', message: `${model} on ${gpu}`, labels: { cell: cellIndex, model, gpu } });
    const request = sweep.request;
    let figures: Partial<SweepCell> = {};
    let failure: string | null = null;
    try {
      await this.options.machines.prepare(rented, model, (e) => this.publishMachineEvent(sweepId, gpu, e), signal);
      const kinds: SweepJobKind[] = [...(request.suite_id !== undefined ? ['suite' as const] : []), ...(request.serving ? ['serving-benchmark' as const] : [])];
      const ends: JobEndOf[] = [];
      for (const kind of kinds) {
        const end = await this.runJob(sweep, cellIndex, kind, model, rented, jobTag(machineId, cellIndex, kind), signal);
        ends.push({ kind, end });
        // A failed suite ends the cell; a failed serving benchmark leaves the suite's figures standing.
        if (end.status !== 'succeeded' && kind === 'suite') break;
      }
      const lookup = request.suite_id !== undefined ? await this.options.tagsOf?.(request.suite_id).catch(() => undefined) : undefined;
      ({ figures, failure } = cellOutcome(ends, { dph: rented.dphTotal, tagsOf: lookup }));
    } catch (err) {
      if (!(err instanceof StoppedError) && !signal.aborted) failure = errorMessage(err);
    }
    const stop = stopReasonOf(signal);
    const endMs = this.now();
    const cost = round6(rented.dphTotal * (Math.max(0, endMs - startMs) / 3_600_000));
    sweep = await this.update(sweepId, (s) => {
      const cell = s.cells[cellIndex] as SweepCell;
      cell.cost_usd = round6(cell.cost_usd + cost);
      cell.finished_at = new Date(endMs).toISOString();
      delete (s.machines[machineIndex] as SweepMachine).current_cell;
      if (stop === 'shutdown') {
        cell.status = 'pending';
        delete cell.started_at;
        delete cell.finished_at;
        cell.reason = 'interrupted by a server stop; runs again';
        return;
      }
      if (stop) {
        cell.status = stop;
        cell.reason = stop === 'cancelled' ? 'the sweep was cancelled' : `the sweep reached its spend limit ($${s.max_total_cost_usd})`;
        return;
      }
      if (failure) {
        cell.status = 'failed';
        cell.reason = failure;
        return;
      }
      Object.assign(cell, figures);
      cell.status = 'succeeded';
      rankSweep(s);
    });
    const cell = sweep.cells[cellIndex] as SweepCell;
    if (stop !== 'shutdown') {
      this.publish(sweep, {
        event: `sweep.cell.${cell.status}`,
        status: cell.status === 'succeeded' ? 'ok' : cell.status === 'failed' ? 'error' : 'info',
        message: `${model} on ${gpu}: ${cell.status}${cell.reason ? ` (${cell.reason})` : ''}`,
        labels: { cell: cellIndex, model, gpu, cost_usd: cell.cost_usd, accuracy: cell.accuracy ?? null, usd_per_million_output_tokens: cell.usd_per_million_output_tokens ?? null },
      });
    }
    this.checkBudget(sweep, controller);
  }

  private async runJob(sweep: SweepRecord, cellIndex: number, kind: SweepJobKind, model: string, rented: RentedMachine, tag: string, signal: AbortSignal) {
    if (signal.aborted) throw new StoppedError(stopReasonOf(signal) ?? 'shutdown');
    const { request } = sweep;
    const common = { model, backend_url: rented.backendUrl, marketplace: false };
    const body: Record<string, unknown> =
      kind === 'suite'
        ? { ...common, suite_id: request.suite_id, agent: request.agent, repeat: request.repeat, ...(request.judge ? { judge: request.judge } : {}) }
        : { ...common, ...request.serving };
    const jobId = await this.options.runner.submit(sweep.tenant_id, kind, body, tag);
    const s = await this.update(sweep.sweep_id, (rec) => {
      const cell = rec.cells[cellIndex] as SweepCell;
      if (!cell.job_ids.includes(jobId)) cell.job_ids.push(jobId);
    });
    this.publish(s, { event: 'sweep.cell.job', status: 'info', message: `${kind} job ${jobId} for ${model} on ${sweep.cells[cellIndex]?.gpu ?? ''}`, labels: { cell: cellIndex, job_id: jobId, kind } });
    try {
      // Stopped while the job was being submitted: it is cancelled like a running one.
      if (signal.aborted) throw new StoppedError(stopReasonOf(signal) ?? 'shutdown');
      return await this.options.runner.wait(jobId, signal);
    } catch (err) {
      if (!signal.aborted) throw err;
      // Stopped: the job runs on the machine about to be released; end it too.
      await this.options.runner.cancel(sweep.tenant_id, jobId).catch((e: unknown) => this.options.log.warn('could not cancel a sweep job', { job_id: jobId, error: errorMessage(e) }));
      throw new StoppedError(stopReasonOf(signal) ?? 'shutdown');
    }
  }

  /** Releases one machine (idempotent per machine), records the outcome and its final cost. */
  private async releaseMachine(sweepId: string, index: number, why: string): Promise<void> {
    const before = await this.read(sweepId);
    const machine = before.machines[index] as SweepMachine;
    if (machine.status !== 'running' && machine.status !== 'renting') return;
    const outcome = await this.options.machines.release(machine.machine_id, machine.instance_id, (e) => this.publishMachineEvent(sweepId, machine.gpu, e));
    const sweep = await this.update(sweepId, (s) => {
      const m = s.machines[index] as SweepMachine;
      const releasedAt = this.now();
      if (m.dph_total !== undefined && m.rented_at) m.cost_usd = round6(m.dph_total * (Math.max(0, releasedAt - Date.parse(m.rented_at)) / 3_600_000));
      m.status = outcome.verified || outcome.released ? 'released' : 'failed';
      m.released = outcome.released;
      m.released_at = new Date(releasedAt).toISOString();
      if (outcome.verified) delete m.release_error;
      else m.release_error = outcome.message;
      delete m.current_cell;
    });
    const m = sweep.machines[index] as SweepMachine;
    this.publish(sweep, {
      event: 'sweep.machine.released',
      status: outcome.verified ? 'ok' : 'error',
      message: `${m.gpu}${m.instance_id !== undefined ? ` instance ${m.instance_id}` : ''}: ${outcome.message} (${why}); it cost $${m.cost_usd.toFixed(6)}`,
      labels: { gpu: m.gpu, instance_id: m.instance_id ?? null, released: outcome.released, verified: outcome.verified, cost_usd: m.cost_usd, reason: why },
    });
  }

  // ---- records and events -------------------------------------------------------------------

  private async read(sweepId: string): Promise<SweepRecord> {
    const sweep = await this.options.store.get(sweepId);
    if (!sweep) throw new Error(`sweep ${sweepId} vanished from the store`);
    return sweep;
  }

  /** Read-modify-write of one sweep under its lock; the spend is recomputed at every write. */
  private async update(sweepId: string, change: (s: SweepRecord) => void): Promise<SweepRecord> {
    const previous = this.locks.get(sweepId) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        const s = structuredClone(await this.read(sweepId));
        change(s);
        this.applyCosts(s);
        s.updated_at = this.iso();
        await this.options.store.put(s);
        return s;
      });
    this.locks.set(sweepId, next);
    try {
      return await next;
    } finally {
      if (this.locks.get(sweepId) === next) this.locks.delete(sweepId);
    }
  }

  /** Machines still held cost $/h × the time so far; the sweep's spend is the sum, plus earlier machines' costs. */
  private applyCosts(s: SweepRecord): void {
    const nowMs = this.now();
    let total = 0;
    for (const m of s.machines) {
      if ((m.status === 'running' || m.status === 'renting') && m.dph_total !== undefined && m.rented_at) {
        m.cost_usd = round6(m.dph_total * (Math.max(0, nowMs - Date.parse(m.rented_at)) / 3_600_000));
      }
      total += m.cost_usd;
    }
    for (const m of s.earlier_machines) total += m.cost_usd;
    s.spend_usd = round6(total);
  }

  /** A record for a reader: the running machines' costs as of now (not written). */
  private withLiveCosts(s: SweepRecord): SweepRecord {
    if (!s.machines.some((m) => m.status === 'running')) return s;
    const copy = structuredClone(s);
    this.applyCosts(copy);
    return copy;
  }

  private publishMachineEvent(sweepId: string, gpu: string, e: MachineEvent): void {
    const sweep = this.options.store.peek(sweepId);
    if (!sweep) return;
    // The machine's own cost meter is not the sweep's: the sweep reports its spend itself.
    if (e.event === 'cost.update') return;
    this.publish(sweep, { event: e.event, status: e.status, message: e.message ?? e.event, labels: { ...e.labels, gpu } });
  }

  private publish(sweep: SweepRecord, event: SweepFeedEvent): void {
    try {
      this.options.publish(sweep.tenant_id, sweep.sweep_id, { ...event, labels: { sweep_id: sweep.sweep_id, ...event.labels } });
    } catch (err) {
      this.options.log.warn('could not publish a sweep event', { sweep_id: sweep.sweep_id, event: event.event, error: errorMessage(err) });
    }
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : 'unknown error';
}
