import { isCellFinished, type SweepOutcome, type SweepRecord } from '../../shared/sweeps';

/**
 * How a sweep ends, pure: the status, message and error of its record from its cells, machines
 * and why it stopped, and the outcome that counts what went wrong. A sweep whose cells failed or
 * could not rent, or whose machine's release is not confirmed yet, does not read as a clean
 * success: its outcome says so, and the message names it.
 */

export type StopReason = 'cancelled' | 'budget_exceeded' | 'shutdown' | 'store_failed';

export function outcomeOf(s: Pick<SweepRecord, 'cells' | 'machines' | 'earlier_machines'>): SweepOutcome {
  const count = (status: string) => s.cells.filter((c) => c.status === status).length;
  const unrented = s.cells.filter((c) => c.status === 'failed' && c.unrented).length;
  const failed = count('failed');
  const notRun = count('cancelled') + count('budget_exceeded');
  const unreleased = [...s.machines, ...s.earlier_machines].filter((m) => m.instance_id !== undefined && m.released === false).length;
  const problems: string[] = [];
  if (failed - unrented > 0) problems.push(`${failed - unrented} cell${failed - unrented === 1 ? '' : 's'} failed`);
  if (unrented > 0) problems.push(`${unrented} cell${unrented === 1 ? '' : 's'} could not run: no machine could be rented for ${unrented === 1 ? 'its GPU' : 'their GPUs'}`);
  if (notRun > 0) problems.push(`${notRun} cell${notRun === 1 ? '' : 's'} not run`);
  if (unreleased > 0) problems.push(`${unreleased} machine${unreleased === 1 ? '' : 's'} not confirmed released yet (benchdesk keeps trying; ${unreleased === 1 ? 'it counts' : 'they count'} in the spend)`);
  return {
    cells_succeeded: count('succeeded'),
    cells_failed: failed,
    cells_unrented: unrented,
    cells_skipped: count('skipped'),
    cells_not_run: notRun,
    machines_unreleased: unreleased,
    clean: problems.length === 0,
    problems,
  };
}

/**
 * The record's end: unfinished cells closed with the stop's reason, then the status. Mutates `s`
 * (inside a record update).
 */
export function finishSweep(s: SweepRecord, stop: StopReason | null, fatal: unknown, finishedAt: string): void {
  for (const cell of s.cells) {
    if (isCellFinished(cell.status)) continue;
    cell.status = stop === 'budget_exceeded' || stop === 'cancelled' ? stop : 'failed';
    cell.reason =
      stop === 'budget_exceeded'
        ? `the sweep reached its spend limit ($${s.max_total_cost_usd})`
        : stop === 'cancelled'
          ? 'the sweep was cancelled'
          : stop === 'store_failed'
            ? 'not run: the sweep stopped because its record could not be written (is the data dir full?)'
            : `not run: ${messageOf(fatal)}`;
  }
  s.finished_at = finishedAt;
  s.outcome = outcomeOf(s);
  const done = s.outcome.cells_succeeded;
  const of = `${done} of ${s.cells.length} cells`;
  const problems = s.outcome.problems.length > 0 ? `; ${s.outcome.problems.join('; ')}` : '';
  if (stop === 'cancelled') {
    s.status = 'cancelled';
    s.message = `cancelled; ${of} finished, every machine released${problems}`;
  } else if (stop === 'budget_exceeded' || stop === 'store_failed' || fatal) {
    s.status = 'failed';
    s.error_code = stop ?? 'internal';
    s.error =
      stop === 'budget_exceeded'
        ? `the spend reached max_total_cost_usd ($${s.max_total_cost_usd}): every machine released, ${of} finished`
        : stop === 'store_failed'
          ? `the sweep's record could not be written (is the data dir full?): it stopped and released its machines, ${of} finished`
          : messageOf(fatal);
    s.message = `${s.error}${problems}`;
  } else if (done === 0 && s.cells.some((c) => c.status === 'failed' || c.status === 'skipped')) {
    s.status = 'failed';
    s.error_code = 'no_cell_succeeded';
    s.error = 'no cell succeeded: ' + (s.cells.find((c) => c.reason)?.reason ?? 'see the cells');
    s.message = s.error;
  } else {
    s.status = 'succeeded';
    s.message = `${of} scored for $${s.spend_usd.toFixed(4)}${problems}`;
  }
}

function messageOf(err: unknown): string {
  if (err instanceof Error) return err.message;
  return typeof err === 'string' ? err : 'unknown error';
}
