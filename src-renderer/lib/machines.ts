import { isTerminal, type JobEvent, type JobRecord, type MarketplaceInstanceEntry } from '../../shared';
import { formatGpus } from './format';

/**
 * The rented machine of a job, as the job page shows it: from the job's record (what it rented,
 * when, at what rate, whether it released it), corrected by the marketplace's live list (a kept
 * machine still billing, or gone since). Pure, so the page and the tests read it the same way.
 */
/** A machine the job rented: billing now, or released. */
export type RentedMachine = {
  state: 'billing' | 'released';
  instanceId: number;
  gpu: string | null;
  dph: number | null;
  rentedAt: string | null;
  /** When billing stopped (released), null while billing. */
  releasedAt: string | null;
  /** The live list's entry, when the marketplace lists it. */
  live: MarketplaceInstanceEntry | null;
  /** Kept on purpose after the job (an llm-instance, or a benchmark told to keep it). */
  kept: boolean;
};

export type JobMachine =
  /** The job runs on a backend the user gave it: nothing to rent. */
  | { state: 'none'; why: 'own-backend' }
  /** A marketplace job that ended before any machine was rented. */
  | { state: 'none'; why: 'ended-before-renting' }
  /** Queued or still searching for an offer. */
  | { state: 'none'; why: 'not-yet' }
  | RentedMachine;

/** Whether the job's request rents a machine: any kind whose request has `marketplace: true`. */
export function rentsMachine(job: Pick<JobRecord, 'request'>): boolean {
  return (job.request as { marketplace?: unknown }).marketplace === true;
}

type Facts = { instanceId: number | null; gpu: string | null; dph: number | null; rentedAt: string | null; releasedByRecord: boolean };

function factsOf(job: JobRecord): Facts {
  const r = job.resources;
  const facts: Facts = {
    instanceId: r?.marketplace_instance_id ?? null,
    gpu: null,
    dph: r?.dph_total ?? null,
    rentedAt: r?.rented_at ?? null,
    releasedByRecord: r?.marketplace_instance_released === true,
  };
  if (job.kind === 'llm-instance' && job.result?.mode === 'marketplace') {
    const res = job.result;
    facts.instanceId ??= res.contract_id;
    facts.gpu = formatGpus(res.offer.num_gpus, res.offer.gpu_name);
    facts.dph ??= res.dph_total;
    facts.rentedAt ??= res.rented_at;
  }
  // Any kind whose result reports its machine the way a benchmark does (instance + cost).
  const withMachine = machineResultOf(job);
  if (withMachine) {
    const i = withMachine.instance;
    facts.instanceId ??= i.id;
    facts.gpu = i.gpu_name ? formatGpus(i.num_gpus ?? 1, i.gpu_name) : null;
    facts.dph ??= withMachine.cost.dph_total || null;
    facts.releasedByRecord ||= i.released;
  }
  return facts;
}

type MachineResult = { instance: { id: number; gpu_name: string | null; num_gpus: number | null; released: boolean }; cost: { dph_total: number; cost_usd: number; download_usd?: number | undefined } };

/** The result's machine and cost, for a kind that reports them as a benchmark does (benchmark, and kinds built on it). */
export function machineResultOf(job: JobRecord): MachineResult | null {
  const r = job.result as Partial<MachineResult> | null;
  if (!r || typeof r !== 'object' || !r.instance || typeof r.instance.id !== 'number' || !r.cost || typeof r.cost.cost_usd !== 'number') return null;
  return r as MachineResult;
}

/** The last successful destroy of the machine in the job's events (when billing stopped). */
function releaseEventAt(events: readonly JobEvent[]): string | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (e && e.event === 'marketplace.instance.destroy' && e.status === 'ok') return e.recorded_at;
  }
  return null;
}

/** The marketplace's list of machines as the page has it. */
export type LiveMachines = {
  /** It was read (with a key): a machine missing from it is gone, if the list is newer than the machine. */
  listed: boolean;
  entries: readonly MarketplaceInstanceEntry[];
  /** When it was read (ms since the epoch); a list older than the rent says nothing about the machine. */
  listedAt?: number;
};

export function jobMachine(job: JobRecord, live: LiveMachines, events: readonly JobEvent[] = []): JobMachine {
  if (!rentsMachine(job)) return { state: 'none', why: 'own-backend' };
  const facts = factsOf(job);
  if (facts.instanceId === null) return { state: 'none', why: isTerminal(job.status) ? 'ended-before-renting' : 'not-yet' };
  const entry = live.entries.find((e) => e.instance_id === facts.instanceId) ?? null;
  const kept = entry?.classification === 'kept' || (job.kind === 'llm-instance' && job.status === 'succeeded') || ((job.kind === 'benchmark' || job.kind === 'suite') && job.request.marketplace_stop_instance === false);
  const base = {
    instanceId: facts.instanceId,
    gpu: facts.gpu ?? (entry?.gpu_name ? formatGpus(entry.num_gpus ?? 1, entry.gpu_name) : null),
    dph: facts.dph ?? entry?.dph_total ?? null,
    rentedAt: facts.rentedAt ?? entry?.rented_at ?? null,
    live: entry,
    kept,
  };
  // A release the job recorded is final (the list may be older than it). Otherwise, once the job
  // is over, a machine missing from a list read after it was rented is gone; a list from before
  // the rent (or while the job runs) says nothing about it.
  const rentedMs = base.rentedAt ? Date.parse(base.rentedAt) : Number.NaN;
  const listNewer = live.listed && (live.listedAt === undefined || !Number.isFinite(rentedMs) || live.listedAt > rentedMs);
  const released = facts.releasedByRecord || (!entry && isTerminal(job.status) && (listNewer || (!live.listed && !kept)));
  if (!released) return { state: 'billing', ...base, releasedAt: null };
  return { state: 'released', ...base, releasedAt: releaseEventAt(events) ?? (facts.releasedByRecord && kept ? job.updated_at : (job.finished_at ?? job.updated_at)) };
}
