import type { LeaseDownload, LeaseRecord } from './lease-record';

/**
 * The one cost formula of a rented machine, and its one rounding (design §15):
 *
 *   cost = machine time × $/h (GPU + the storage of the disk it was rented with, as Vast bills it)
 *        + Σ download GB × the host's $/GB
 *
 * Machine time runs from the create's answer to the destroy that was confirmed (or to now while it
 * bills). Every dollar figure benchdesk shows (a job's cost, a sweep's spend, the Overview, the
 * machines list, `cost.update`, the CLI's live cost) is computed here, rounded to 1/1,000,000 $.
 */

/** The one rounding of dollars: 1/1,000,000 $ (a test machine runs for seconds). */
export function roundUsd(usd: number): number {
  return Math.round(usd * 1_000_000) / 1_000_000;
}

const MS_PER_HOUR = 3_600_000;

/** $/h × the time between two instants (ms). */
export function machineUsd(dphTotal: number, fromMs: number, toMs: number): number {
  return roundUsd(dphTotal * (Math.max(0, toMs - fromMs) / MS_PER_HOUR));
}

/** What the downloads cost (an unknown price counts as 0). */
export function downloadsUsd(downloads: readonly Pick<LeaseDownload, 'usd'>[]): number {
  return roundUsd(downloads.reduce((sum, d) => sum + (d.usd ?? 0), 0));
}

export type LeaseCost = {
  dph_total: number;
  /** Seconds billed so far (or in all, once released). */
  rented_seconds: number;
  machine_usd: number;
  download_gb: number;
  download_usd: number;
  /** machine_usd + download_usd. */
  cost_usd: number;
  /** Still billing. */
  running: boolean;
};

/** A machine's cost at `nowMs`: machine time up to its release (or now) plus its downloads. */
export function costOf(inputs: { dphTotal: number; rentedAtMs: number; releasedAtMs: number | null; downloads: readonly LeaseDownload[] }, nowMs: number): LeaseCost {
  const end = inputs.releasedAtMs ?? nowMs;
  const machine = machineUsd(inputs.dphTotal, inputs.rentedAtMs, end);
  const download = downloadsUsd(inputs.downloads);
  return {
    dph_total: inputs.dphTotal,
    rented_seconds: Math.round(Math.max(0, end - inputs.rentedAtMs) / 1000),
    machine_usd: machine,
    download_gb: Math.round(inputs.downloads.reduce((sum, d) => sum + d.gb, 0) * 1000) / 1000,
    download_usd: download,
    cost_usd: roundUsd(machine + download),
    running: inputs.releasedAtMs === null,
  };
}

const NOTHING: LeaseCost = { dph_total: 0, rented_seconds: 0, machine_usd: 0, download_gb: 0, download_usd: 0, cost_usd: 0, running: false };

/** A lease's cost at `nowMs`; nothing while no machine was rented. */
export function leaseCost(lease: Pick<LeaseRecord, 'dph_total' | 'rented_at' | 'released_at' | 'downloads' | 'state'>, nowMs: number): LeaseCost {
  const rentedAtMs = lease.rented_at ? Date.parse(lease.rented_at) : NaN;
  if (lease.dph_total === null || !Number.isFinite(rentedAtMs)) return { ...NOTHING, download_usd: downloadsUsd(lease.downloads) };
  const releasedAtMs = lease.released_at ? Date.parse(lease.released_at) : null;
  return costOf({ dphTotal: lease.dph_total, rentedAtMs, releasedAtMs: releasedAtMs !== null && Number.isFinite(releasedAtMs) ? releasedAtMs : null, downloads: lease.downloads }, nowMs);
}
