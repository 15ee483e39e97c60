import { randomBytes } from 'node:crypto';
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
import type { SweepJobRunner, SweepMachines } from './ports';
import { buildReport } from './ranking';
import { reportCsv, reportMarkdown } from './report-format';
import { recoverSweep } from './sweep-recovery';
import { SweepRecords, errorMessage, type SweepFeedEvent } from './sweep-records';
import { DEFAULT_SWEEP_COST_INTERVAL_MS, SweepRun } from './sweep-run';
import type { SweepStore } from './sweep-store';

export type { SweepFeedEvent } from './sweep-records';
export { errorMessage } from './sweep-records';

/**
 * The sweep service (design §14): accepts sweeps (durable before the 202), lists and reports them,
 * cancels them, and at start-up recovers the ones a stop interrupted. The running is SweepRun's
 * (sweep-run.ts): cells scheduled on leases, one machine per GPU, their costs from the ledger; the
 * record is rewritten at every change of a cell or machine, so a crash loses at most the step
 * under way.
 */

export type SweepEngineOptions = {
  store: SweepStore;
  runner: SweepJobRunner;
  machines: SweepMachines;
  log: Logger;
  /** Publishes a sweep event on the tenant feed (GET /v1/events, IPC push). */
  publish(tenantId: string, sweepId: string, event: SweepFeedEvent): void;
  /** The clock of costs and records (ms since the epoch). */
  now?: () => number;
  /** Cadence of `cost.update` (default 30 s); the spend limit is checked at least every 5 s regardless. */
  costIntervalMs?: number;
  /** Checks beyond the schema that need the rest of the app (the suite exists): issues → 422. */
  checkRequest?: (request: SweepRequest) => Promise<{ path: string; message: string }[]>;
  /** The tags of a suite's scenarios, when the job results do not carry them. */
  tagsOf?: (suiteId: string) => Promise<((scenarioId: string) => readonly string[] | undefined) | undefined>;
};

type Run = { controller: AbortController; done: Promise<void>; tenantId: string };

export { DEFAULT_SWEEP_COST_INTERVAL_MS };

function newSweepId(): string {
  // 20 base-32 characters: lower-case, safe in a file name and a machine label.
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  return `sw-${[...randomBytes(20)].map((b) => alphabet[b % 32]).join('')}`;
}

export class SweepEngine {
  private readonly runs = new Map<string, Run>();
  private accepting = true;
  readonly records: SweepRecords;

  constructor(private readonly options: SweepEngineOptions) {
    this.records = new SweepRecords(options.store, options.machines, options.now ?? Date.now, options.publish, options.log);
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
    const at = this.records.iso();
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
    this.records.publish(record, { event: 'sweep.queued', status: 'info', message: `accepted: ${record.cells.length} cells on ${request.gpus.length} GPU(s)` });
    this.start(record.sweep_id, tenantId);
    return record;
  }

  async list(tenantId: string): Promise<SweepRecord[]> {
    return (await this.options.store.list()).filter((s) => s.tenant_id === tenantId).map((s) => this.records.withLiveCosts(s));
  }

  async get(tenantId: string, sweepId: string): Promise<SweepRecord> {
    const sweep = await this.options.store.get(sweepId);
    if (!sweep || sweep.tenant_id !== tenantId) throw new ProblemError(404, 'sweep_not_found', `no sweep ${sweepId}`);
    return this.records.withLiveCosts(sweep);
  }

  async cancel(tenantId: string, sweepId: string): Promise<{ sweep_id: string; status: SweepStatus }> {
    const sweep = await this.get(tenantId, sweepId);
    if (isSweepFinished(sweep.status)) throw new ProblemError(409, 'sweep_not_cancellable', `sweep ${sweepId} has already ended (${sweep.status})`);
    const run = this.runs.get(sweepId);
    if (run) {
      if (!run.controller.signal.aborted) {
        this.records.publish(sweep, { event: 'sweep.cancel_requested', status: 'info', message: 'cancellation requested: releasing every machine' });
        run.controller.abort('cancelled');
      }
      return { sweep_id: sweepId, status: 'running' };
    }
    // Not running in this process (queued, never started here): nothing is held.
    const ended = await this.records.update(sweepId, (s) => {
      for (const cell of s.cells) if (!isCellFinished(cell.status)) Object.assign(cell, { status: 'cancelled', reason: 'the sweep was cancelled' });
      s.status = 'cancelled';
      s.message = 'cancelled';
      s.finished_at = this.records.iso();
    });
    this.records.publish(ended, { event: 'sweep.cancelled', status: 'info', message: 'cancelled before it ran' });
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
    const deps = { records: this.records, machines: this.options.machines, runner: this.options.runner, log: this.options.log };
    for (const sweep of await this.options.store.list()) {
      if (isSweepFinished(sweep.status)) continue;
      released += await recoverSweep(deps, sweep);
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

  private start(sweepId: string, tenantId: string): void {
    if (this.runs.has(sweepId) || !this.accepting) return;
    const controller = new AbortController();
    const run: Run = { controller, tenantId, done: Promise.resolve() };
    this.runs.set(sweepId, run);
    const limit = this.options.store.peek(sweepId)?.max_total_cost_usd ?? Number.POSITIVE_INFINITY;
    const sweepRun = new SweepRun(
      { records: this.records, machines: this.options.machines, runner: this.options.runner, log: this.options.log, costIntervalMs: this.options.costIntervalMs ?? DEFAULT_SWEEP_COST_INTERVAL_MS, tagsOf: this.options.tagsOf },
      sweepId,
      controller,
      limit,
    );
    run.done = sweepRun
      .execute()
      .catch((err: unknown) => this.options.log.error('sweep execution crashed', { sweep_id: sweepId, error: errorMessage(err) }))
      .finally(() => this.runs.delete(sweepId));
  }
}
