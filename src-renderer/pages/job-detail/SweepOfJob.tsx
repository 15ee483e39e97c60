import type { JobRecord, SweepCell, SweepMachine, SweepRecord } from '../../../shared';
import { formatDph } from '../../lib/format';
import { useSweeps } from '../../queries/sweeps';
import { hrefOf, sweepPath } from '../../router/routes';

/** The kinds a sweep runs on its machines. */
const SWEEP_KINDS: ReadonlySet<JobRecord['kind']> = new Set(['suite', 'serving-benchmark']);

export type SweepOfJob = { sweep: SweepRecord; cell: SweepCell; machine: SweepMachine | undefined };

/** The sweep cell that ran this job, if a sweep did (a sweep's jobs run on the sweep's machine). */
export function findSweepOfJob(sweeps: readonly SweepRecord[], jobId: string): SweepOfJob | null {
  for (const sweep of sweeps) {
    const cell = sweep.cells.find((c) => c.job_ids.includes(jobId));
    if (cell) return { sweep, cell, machine: [...sweep.machines, ...sweep.earlier_machines].find((m) => m.gpu === cell.gpu) };
  }
  return null;
}

export function useSweepOfJob(job: JobRecord): SweepOfJob | null {
  const sweeps = useSweeps(SWEEP_KINDS.has(job.kind));
  return sweeps.data ? findSweepOfJob(sweeps.data.sweeps, job.job_id) : null;
}

/**
 * The Machine row of a job a sweep ran: the machine is the sweep's, rented once per GPU and
 * billed to the sweep, so the job page says so (and links there) rather than "nothing rented".
 */
export function SweepMachineFact({ of }: { of: SweepOfJob }) {
  const { sweep, cell, machine } = of;
  return (
    <>
      <dt>Machine</dt>
      <dd data-testid="job-sweep-machine">
        the {cell.gpu} machine of sweep <a href={hrefOf(sweepPath(sweep.sweep_id))}>“{sweep.name}”</a>
        {machine?.dph_total !== undefined ? ` at ${formatDph(machine.dph_total)}` : ''}{' '}
        <span className="muted">· billed to the sweep, which rents it once for every model and releases it</span>
      </dd>
    </>
  );
}
