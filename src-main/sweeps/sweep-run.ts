import type { SweepCell, SweepMachine, SweepRecord, SweepRequest } from '../../shared/sweeps';
import type { Logger } from '../engine/types';
import { machineUsd, roundUsd } from '../lease/cost';
import { SpendGuard } from '../lease/spend-guard';
import { cellOutcome, type JobEndOf } from './job-results';
import { planMachine, type MachinePlan } from './planner';
import type { MachineEvent, RentedMachine, SweepJobKind, SweepJobRunner, SweepMachines } from './ports';
import { rankSweep } from './ranking';
import { finishSweep, type StopReason } from './sweep-outcome';
import { errorMessage, type SweepRecords } from './sweep-records';
import { releaseMachine } from './sweep-release';

export { releaseMachine } from './sweep-release';

/**
 * One sweep's run in this process (design §14), scheduling its cells on leases: per GPU name one
 * machine (rented through the machines port, whose machines are leases and whose costs are the
 * ledger's), every model on it in turn as ordinary jobs pointed at its Ollama, then its release;
 * `machines_at_once` GPUs at a time. The spend limit is the one spend-limit check: on every cost
 * change and at least every 5 s, against the spend in memory; a record the disk refuses stops the
 * sweep and releases its machines rather than skipping anything.
 */

export const DEFAULT_SWEEP_COST_INTERVAL_MS = 30_000;

export type RunDeps = {
  records: SweepRecords;
  machines: SweepMachines;
  runner: SweepJobRunner;
  log: Logger;
  /** Cadence of `cost.update` (the limit is checked at least every 5 s regardless). */
  costIntervalMs: number;
  tagsOf?: ((suiteId: string) => Promise<((scenarioId: string) => readonly string[] | undefined) | undefined>) | undefined;
};

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
  return reason === 'cancelled' || reason === 'budget_exceeded' || reason === 'store_failed' ? reason : 'shutdown';
}

class StoppedError extends Error {
  constructor(readonly reason: StopReason) {
    super(`sweep stopped: ${reason}`);
  }
}

/** The machines' price ceiling: the request's, else the whole budget per hour. */
function maxDph(request: SweepRequest): number {
  return request.max_dph ?? request.max_total_cost_usd;
}

export class SweepRun {
  readonly #guard: SpendGuard;

  constructor(
    private readonly d: RunDeps,
    readonly sweepId: string,
    readonly controller: AbortController,
    limit: number,
  ) {
    this.#guard = new SpendGuard({
      limit,
      cost: () => this.d.records.spendNow(sweepId),
      onExceeded: (spend, max) => {
        const sweep = this.d.records.store.peek(sweepId);
        if (sweep) {
          this.d.records.publish(sweep, {
            event: 'cost.limit_reached',
            status: 'info',
            message: `spend $${spend.toFixed(6)} reached max_total_cost_usd $${max}: releasing every machine`,
            labels: { spend_usd: spend, max_total_cost_usd: max },
          });
        }
        if (!this.signal.aborted) controller.abort('budget_exceeded');
      },
      onError: (err) => this.d.log.error('the spend check of a sweep failed', { sweep_id: sweepId, error: errorMessage(err) }),
    });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** A record change during the run; when the disk refuses it, the sweep stops and releases its machines. */
  async #update(change: (s: SweepRecord) => void): Promise<SweepRecord> {
    try {
      return await this.d.records.update(this.sweepId, change);
    } catch (err) {
      this.d.log.error('could not write a sweep record: stopping the sweep and releasing its machines', { sweep_id: this.sweepId, error: errorMessage(err) });
      if (!this.signal.aborted) this.controller.abort('store_failed');
      throw new StoppedError('store_failed');
    }
  }

  async execute(): Promise<void> {
    const sweep = await this.#update((s) => {
      s.status = 'running';
      s.message = 'running';
      s.started_at ??= this.d.records.iso();
    });
    this.d.records.publish(sweep, { event: 'sweep.running', status: 'info', message: `running on ${sweep.machines.length} GPU(s), ${sweep.request.machines_at_once} at a time` });
    this.#guard.start();
    const timer = setInterval(() => void this.#costUpdate(), Math.max(10, this.d.costIntervalMs));
    timer.unref();
    let fatal: unknown = null;
    try {
      const queue = sweep.machines.map((_, i) => i);
      const workers = Array.from({ length: Math.min(sweep.request.machines_at_once, queue.length) }, async () => {
        for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
          if (this.signal.aborted) return;
          await this.#runMachine(i);
        }
      });
      await Promise.all(workers);
    } catch (err) {
      if (!(err instanceof StoppedError)) fatal = err;
    } finally {
      clearInterval(timer);
      this.#guard.stop();
    }
    await this.#finish(fatal);
  }

  async #finish(fatal: unknown): Promise<void> {
    const stop = stopReasonOf(this.signal);
    if (stop === 'shutdown') {
      await this.d.records.update(this.sweepId, (s) => {
        s.message = 'stopped by a server shutdown; it resumes at the next start';
      });
      return;
    }
    const finishedAt = this.d.records.iso();
    const end = (s: SweepRecord) => {
      finishSweep(s, stop, fatal, finishedAt);
      rankSweep(s);
    };
    const sweep = await this.d.records.update(this.sweepId, end).catch((err: unknown) => {
      // The disk refused the last word too: the record in memory has it, the next start resumes the sweep.
      this.d.log.error('could not write the end of a sweep', { sweep_id: this.sweepId, error: errorMessage(err) });
      return this.d.records.store.peek(this.sweepId);
    });
    if (!sweep) return;
    const status = sweep.status === 'succeeded' ? (sweep.outcome?.clean === false ? 'info' : 'ok') : sweep.status === 'failed' ? 'error' : 'info';
    this.d.records.publish(sweep, {
      event: `sweep.${sweep.status}`,
      status,
      message: sweep.message,
      labels: { spend_usd: sweep.spend_usd, clean: sweep.outcome?.clean ?? null, ...(sweep.error_code ? { error_code: sweep.error_code } : {}) },
    });
  }

  /** `cost.update` on the feed (the record's write may fail: the check does not depend on it). */
  async #costUpdate(): Promise<void> {
    if (this.signal.aborted) return;
    this.#guard.check();
    const sweep = await this.d.records.update(this.sweepId, () => undefined).catch(() => this.d.records.store.peek(this.sweepId));
    if (!sweep) return;
    this.d.records.publish(sweep, {
      event: 'cost.update',
      status: 'info',
      message: `sweep spend $${sweep.spend_usd.toFixed(6)} of $${sweep.max_total_cost_usd}`,
      labels: { cost_usd: sweep.spend_usd, spend_usd: sweep.spend_usd, max_total_cost_usd: sweep.max_total_cost_usd, machines_running: sweep.machines.filter((m) => m.status === 'running').length },
    });
  }

  /** One GPU: plan, rent once, every model in turn, release. */
  async #runMachine(index: number): Promise<void> {
    const sweep = await this.d.records.read(this.sweepId);
    const gpu = (sweep.machines[index] as SweepMachine).gpu;
    if (!sweep.cells.some((c) => c.gpu === gpu && c.status === 'pending')) return;
    const plan = await this.#plan(sweep, index);
    if (!plan || this.#guard.check() || this.signal.aborted) return;
    const rented = await this.#rent(index, plan);
    if (!rented) return;
    try {
      for (const model of plan.models) {
        if (this.signal.aborted) break;
        const cellIndex = (await this.d.records.read(this.sweepId)).cells.findIndex((c) => c.gpu === gpu && c.model === model && c.status === 'pending');
        if (cellIndex < 0) continue;
        await this.#runCell(index, cellIndex, rented);
      }
    } finally {
      await releaseMachine(this.d, this.sweepId, index, stopReasonOf(this.signal) ?? 'done');
    }
  }

  /** Which models fit any offer of this GPU, and the one machine's size; skipped cells recorded. null: nothing to rent. */
  async #plan(sweep: SweepRecord, index: number): Promise<MachinePlan | null> {
    const gpu = (sweep.machines[index] as SweepMachine).gpu;
    const pending = sweep.cells.filter((c) => c.gpu === gpu && c.status === 'pending');
    let plan: MachinePlan;
    try {
      const offers = await this.d.machines.offers(gpu, sweep.request, this.signal);
      plan = planMachine(gpu, pending.map((c) => c.model), (m) => this.d.machines.catalogEntry(m), offers, {
        minDph: sweep.request.min_dph,
        maxDph: maxDph(sweep.request),
        minReliability: sweep.request.reliability,
      });
    } catch (err) {
      if (!this.signal.aborted) await this.#failGpu(index, `could not search the ${gpu} offers: ${errorMessage(err)}`, false);
      return null;
    }
    if (plan.skipped.length > 0) {
      const s = await this.#update((rec) => {
        for (const skip of plan.skipped) {
          const cell = rec.cells.find((c) => c.gpu === gpu && c.model === skip.model);
          if (cell) Object.assign(cell, { status: 'skipped', reason: skip.reason });
        }
      });
      for (const skip of plan.skipped) this.d.records.publish(s, { event: 'sweep.cell.skipped', status: 'info', message: `${skip.model} on ${gpu}: ${skip.reason}`, labels: { model: skip.model, gpu } });
    }
    if (!plan.sizing) {
      await this.#update((s) => Object.assign(s.machines[index] as SweepMachine, { status: 'skipped', reason: 'no model of the sweep fits an offer of this GPU: nothing rented' }));
      return null;
    }
    return plan;
  }

  /** Rents the GPU's machine; a failure fails its cells as `unrented`. */
  async #rent(index: number, plan: MachinePlan): Promise<RentedMachine | null> {
    const sweep = await this.#update((s) => {
      (s.machines[index] as SweepMachine).status = 'renting';
    });
    const machine = sweep.machines[index] as SweepMachine;
    const gpu = machine.gpu;
    try {
      const rented = await this.d.machines.rent(
        { sweepId: this.sweepId, tenantId: sweep.tenant_id, machineId: machine.machine_id, gpu, sizing: plan.sizing as NonNullable<MachinePlan['sizing']>, request: sweep.request },
        {
          onRented: async (r) => {
            const s = await this.#update((rec) => Object.assign(rec.machines[index] as SweepMachine, { status: 'running', instance_id: r.instanceId, dph_total: r.dphTotal, rented_at: r.rentedAt, released: false }));
            this.d.records.publish(s, { event: 'sweep.machine.rented', status: 'info', message: `rented instance ${r.instanceId} (${gpu}) at $${r.dphTotal}/h`, labels: { gpu, instance_id: r.instanceId, dph_total: r.dphTotal } });
          },
          onEvent: (e: MachineEvent) => this.d.records.publishMachineEvent(this.sweepId, gpu, e),
        },
        this.signal,
      );
      await this.#update((s) => Object.assign(s.machines[index] as SweepMachine, { offer_id: rented.offerId, num_gpus: rented.numGpus, gpu_ram_mb: rented.gpuRamMb }));
      return rented;
    } catch (err) {
      // The lease released whatever it had rented before rejecting (and keeps looking for a lost
      // create by its label): a machine that was rented is recorded as released, with its cost.
      if ((await this.d.records.read(this.sweepId)).machines[index]?.status === 'running') await releaseMachine(this.d, this.sweepId, index, 'rent failed');
      if (!this.signal.aborted) await this.#failGpu(index, `could not rent a ${gpu} machine: ${errorMessage(err)}`, true);
      else await this.#update((s) => Object.assign(s.machines[index] as SweepMachine, (s.machines[index] as SweepMachine).status === 'renting' ? { status: 'failed', reason: 'stopped while renting' } : {}));
      return null;
    }
  }

  async #failGpu(index: number, reason: string, unrented: boolean): Promise<void> {
    const s = await this.#update((rec) => {
      const m = rec.machines[index] as SweepMachine;
      if (m.status === 'pending' || m.status === 'renting') m.status = 'failed';
      m.reason = reason;
      for (const cell of rec.cells) if (cell.gpu === m.gpu && cell.status === 'pending') Object.assign(cell, { status: 'failed', reason, ...(unrented ? { unrented: true } : {}) });
    });
    this.d.records.publish(s, { event: 'sweep.machine.failed', status: 'error', message: reason, labels: { gpu: (s.machines[index] as SweepMachine).gpu } });
  }

  /** One model on the machine: pull, then the suite and/or the serving benchmark as jobs; scored and costed. */
  async #runCell(machineIndex: number, cellIndex: number, rented: RentedMachine): Promise<void> {
    const startMs = this.d.records.now();
    const sweep = await this.#update((s) => {
      const cell = s.cells[cellIndex] as SweepCell;
      Object.assign(cell, { status: 'running', started_at: new Date(startMs).toISOString() });
      delete cell.reason;
      (s.machines[machineIndex] as SweepMachine).current_cell = cellIndex;
    });
    const { model, gpu } = sweep.cells[cellIndex] as SweepCell;
    this.d.records.publish(sweep, { event: 'sweep.cell.running', status: 'info', message: `${model} on ${gpu}`, labels: { cell: cellIndex, model, gpu } });
    const result = await this.#cellWork(sweep, cellIndex, rented);
    const cost = roundUsd(machineUsd(rented.dphTotal, startMs, this.d.records.now()) + (result.downloadUsd ?? 0));
    const done = await this.#recordCell(machineIndex, cellIndex, rented, cost, result);
    const cell = done.cells[cellIndex] as SweepCell;
    if (stopReasonOf(this.signal) !== 'shutdown') {
      this.d.records.publish(done, {
        event: `sweep.cell.${cell.status}`,
        status: cell.status === 'succeeded' ? 'ok' : cell.status === 'failed' ? 'error' : 'info',
        message: `${model} on ${gpu}: ${cell.status}${cell.reason ? ` (${cell.reason})` : ''}`,
        labels: { cell: cellIndex, model, gpu, cost_usd: cell.cost_usd, accuracy: cell.accuracy ?? null, usd_per_million_output_tokens: cell.usd_per_million_output_tokens ?? null },
      });
    }
    this.#guard.check();
  }

  /** The cell's pull and jobs: its figures, its download's cost, or why it failed. A failed serving job keeps the suite's figures. */
  async #cellWork(sweep: SweepRecord, cellIndex: number, rented: RentedMachine): Promise<{ figures: Partial<SweepCell>; failure: string | null; downloadUsd: number | null }> {
    const { request } = sweep;
    const { model, gpu } = sweep.cells[cellIndex] as SweepCell;
    let downloadUsd: number | null = null;
    try {
      const prepared = await this.d.machines.prepare(rented, model, (e) => this.d.records.publishMachineEvent(this.sweepId, gpu, e), this.signal);
      downloadUsd = prepared.downloadUsd;
      // A download is a cost change: the limit is checked now.
      if (this.#guard.check()) throw new StoppedError('budget_exceeded');
      const kinds: SweepJobKind[] = [...(request.suite_id !== undefined ? ['suite' as const] : []), ...(request.serving ? ['serving-benchmark' as const] : [])];
      const ends: JobEndOf[] = [];
      for (const kind of kinds) {
        const end = await this.#runJob(sweep, cellIndex, kind, model, rented, jobTag(rented.machineId, cellIndex, kind));
        ends.push({ kind, end });
        // A failed suite ends the cell; a failed serving benchmark leaves the suite's figures standing.
        if (end.status !== 'succeeded' && kind === 'suite') break;
      }
      const lookup = request.suite_id !== undefined ? await this.d.tagsOf?.(request.suite_id).catch(() => undefined) : undefined;
      const { figures, failure } = cellOutcome(ends, { dph: rented.dphTotal, downloadUsd: downloadUsd ?? 0, tagsOf: lookup });
      return { figures, failure, downloadUsd };
    } catch (err) {
      return { figures: {}, failure: err instanceof StoppedError || this.signal.aborted ? null : errorMessage(err), downloadUsd };
    }
  }

  async #recordCell(machineIndex: number, cellIndex: number, rented: RentedMachine, cost: number, r: { figures: Partial<SweepCell>; failure: string | null }): Promise<SweepRecord> {
    const stop = stopReasonOf(this.signal);
    const endMs = this.d.records.now();
    const change = (s: SweepRecord) => {
      const cell = s.cells[cellIndex] as SweepCell;
      cell.cost_usd = roundUsd(cell.cost_usd + cost);
      cell.finished_at = new Date(endMs).toISOString();
      delete (s.machines[machineIndex] as SweepMachine).current_cell;
      if (stop === 'shutdown') {
        Object.assign(cell, { status: 'pending', reason: 'interrupted by a server stop; runs again' });
        delete cell.started_at;
        delete cell.finished_at;
      } else if (stop) {
        Object.assign(cell, { status: stop === 'cancelled' || stop === 'budget_exceeded' ? stop : 'failed', reason: stop === 'cancelled' ? 'the sweep was cancelled' : stop === 'budget_exceeded' ? `the sweep reached its spend limit ($${s.max_total_cost_usd})` : 'the sweep stopped: its record could not be written' });
      } else if (r.failure) {
        Object.assign(cell, { status: 'failed', reason: r.failure });
      } else {
        Object.assign(cell, r.figures, { status: 'succeeded' });
        rankSweep(s);
      }
    };
    return this.d.records.update(this.sweepId, change).catch((err: unknown) => {
      if (!this.signal.aborted) this.controller.abort('store_failed');
      this.d.log.error('could not record a sweep cell: stopping the sweep', { sweep_id: this.sweepId, error: errorMessage(err) });
      return this.d.records.store.peek(this.sweepId) as SweepRecord;
    });
  }

  async #runJob(sweep: SweepRecord, cellIndex: number, kind: SweepJobKind, model: string, rented: RentedMachine, tag: string) {
    const signal = this.signal;
    if (signal.aborted) throw new StoppedError(stopReasonOf(signal) ?? 'shutdown');
    const { request } = sweep;
    // The machine's API as its template serves it: a vLLM machine's OpenAI-compatible one, else Ollama's (auto on a rented machine).
    const common = { model, backend_url: rented.backendUrl, marketplace: false, backend_api: request.backend_api === 'openai' ? 'openai' : 'ollama' };
    const body: Record<string, unknown> = kind === 'suite' ? { ...common, suite_id: request.suite_id, agent: request.agent, repeat: request.repeat, ...(request.judge ? { judge: request.judge } : {}) } : { ...common, ...request.serving };
    const jobId = await this.d.runner.submit(sweep.tenant_id, kind, body, tag);
    const s = await this.#update((rec) => {
      const cell = rec.cells[cellIndex] as SweepCell;
      if (!cell.job_ids.includes(jobId)) cell.job_ids.push(jobId);
    });
    this.d.records.publish(s, { event: 'sweep.cell.job', status: 'info', message: `${kind} job ${jobId} for ${model} on ${sweep.cells[cellIndex]?.gpu ?? ''}`, labels: { cell: cellIndex, job_id: jobId, kind } });
    try {
      // Stopped while the job was being submitted: it is cancelled like a running one.
      if (signal.aborted) throw new StoppedError(stopReasonOf(signal) ?? 'shutdown');
      return await this.d.runner.wait(jobId, signal);
    } catch (err) {
      if (!signal.aborted) throw err;
      // Stopped: the job runs on the machine about to be released; end it too.
      await this.d.runner.cancel(sweep.tenant_id, jobId).catch((e: unknown) => this.d.log.warn('could not cancel a sweep job', { job_id: jobId, error: errorMessage(e) }));
      throw new StoppedError(stopReasonOf(signal) ?? 'shutdown');
    }
  }
}
