import type { SweepMachine } from '../../shared/sweeps';
import type { Logger } from '../engine/types';
import type { SweepMachines } from './ports';
import { errorMessage, type SweepRecords } from './sweep-records';

/**
 * Releases one machine of a sweep (idempotent per machine) and records the outcome and its final
 * cost (the ledger's). The release comes first: a record the disk refuses never keeps a machine.
 */
export async function releaseMachine(d: { records: SweepRecords; machines: SweepMachines; log: Logger }, sweepId: string, index: number, why: string): Promise<void> {
  const before = await d.records.read(sweepId);
  const machine = before.machines[index] as SweepMachine;
  if (machine.status !== 'running' && machine.status !== 'renting') return;
  const outcome = await d.machines.release(machine.machine_id, machine.instance_id, (e) => d.records.publishMachineEvent(sweepId, machine.gpu, e));
  const sweep = await d.records
    .update(sweepId, (s) => {
      const m = s.machines[index] as SweepMachine;
      m.cost_usd = outcome.costUsd;
      // Verified or not, it is no longer the sweep's to run cells on; an unconfirmed release is retried by its lease.
      m.status = outcome.verified ? 'released' : 'failed';
      m.released = outcome.verified;
      m.released_at = d.records.iso();
      if (outcome.verified) delete m.release_error;
      else m.release_error = outcome.message;
      delete m.current_cell;
    })
    .catch((err: unknown) => {
      d.log.error('could not record a sweep machine release', { sweep_id: sweepId, error: errorMessage(err) });
      return null;
    });
  const m = sweep?.machines[index] ?? machine;
  d.records.publish(before, {
    event: 'sweep.machine.released',
    status: outcome.verified ? 'ok' : 'error',
    message: `${m.gpu}${m.instance_id !== undefined ? ` instance ${m.instance_id}` : ''}: ${outcome.message} (${why}); it cost $${outcome.costUsd.toFixed(6)}`,
    labels: { gpu: m.gpu, instance_id: m.instance_id ?? null, released: outcome.released, verified: outcome.verified, cost_usd: outcome.costUsd, reason: why },
  });
}
