import { isSweepFinished, type SweepCell, type SweepMachine, type SweepRecord } from '../../shared/sweeps';
import { SWEEP_JOB_KINDS } from './ports';
import { jobTag, releaseMachine, type RunDeps } from './sweep-run';

/**
 * Start-up recovery of one sweep that was running when the process stopped: the machines it held
 * are released through their leases (by id, or by their label when the rent's answer was never
 * recorded: the lease keeps looking for minutes), the interrupted cells go back to pending, a job
 * the killed process submitted but never recorded is found by its key and stopped, and a GPU with
 * cells left to run gets a new machine (a new label). Returns how many machines it released.
 */
export async function recoverSweep(d: Pick<RunDeps, 'records' | 'machines' | 'runner' | 'log'>, sweep: SweepRecord): Promise<number> {
  if (isSweepFinished(sweep.status)) return 0;
  let released = 0;
  for (let i = 0; i < sweep.machines.length; i++) {
    const machine = sweep.machines[i] as SweepMachine;
    if (machine.status !== 'renting' && machine.status !== 'running') continue;
    d.records.publish(sweep, {
      event: 'sweep.recover',
      status: 'info',
      message: `the server stopped while this sweep held ${machine.instance_id !== undefined ? `instance ${machine.instance_id}` : `a ${machine.gpu} machine being rented`}: releasing it`,
      labels: { gpu: machine.gpu, instance_id: machine.instance_id ?? null },
    });
    await releaseMachine(d, sweep.sweep_id, i, 'interrupted');
    released++;
  }
  const unrecorded = await unrecordedJobs(d, sweep);
  await d.records.update(sweep.sweep_id, (s) => {
    for (const [index, ids] of unrecorded) (s.cells[index] as SweepCell).job_ids.push(...ids);
    for (const cell of s.cells) {
      if (cell.status !== 'running') continue;
      cell.status = 'pending';
      delete cell.started_at;
      cell.reason = 'interrupted by a server stop; runs again';
    }
    s.machines.forEach((m, i) => {
      // A GPU with cells left to run gets a new machine (a new label).
      if ((m.status === 'released' || m.status === 'failed' || m.status === 'skipped') && s.cells.some((c) => c.gpu === m.gpu && c.status === 'pending')) {
        s.earlier_machines.push(m);
        s.machines[i] = nextMachine(s, i, m);
      }
    });
    s.message = 'resumed after a server stop';
  });
  return released;
}

/** Jobs the killed process submitted but never recorded (it died between the two): found by their key, stopped. */
async function unrecordedJobs(d: Pick<RunDeps, 'runner'>, sweep: SweepRecord): Promise<Map<number, string[]>> {
  const unrecorded = new Map<number, string[]>();
  for (const [index, cell] of sweep.cells.entries()) {
    if (cell.status !== 'running') continue;
    const machine = sweep.machines.find((m) => m.gpu === cell.gpu);
    if (!machine) continue;
    for (const kind of SWEEP_JOB_KINDS) {
      const jobId = await d.runner.findTagged(sweep.tenant_id, kind, jobTag(machine.machine_id, index, kind)).catch(() => undefined);
      if (!jobId) continue;
      if (!cell.job_ids.includes(jobId)) unrecorded.set(index, [...(unrecorded.get(index) ?? []), jobId]);
      await d.runner.cancel(sweep.tenant_id, jobId).catch(() => undefined);
    }
  }
  return unrecorded;
}

/** The next attempt's machine of a GPU: a new id, so a new label and new job keys. */
export function nextMachine(s: Pick<SweepRecord, 'sweep_id'>, index: number, previous: SweepMachine): SweepMachine {
  const attempt = Number(/-a(\d+)$/.exec(previous.machine_id)?.[1] ?? '0') + 1;
  return { gpu: previous.gpu, status: 'pending', machine_id: `${s.sweep_id}-g${index}-a${attempt}`, cost_usd: 0 };
}
