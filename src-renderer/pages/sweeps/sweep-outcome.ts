import type { SweepCell, SweepRecord } from '../../../shared';
import { formatDph, formatInstance } from '../../lib/format';

/**
 * Why a finished sweep was not clean (SweepRecord.outcome), problem by problem in words, each with
 * what to do next: failed cells, GPUs no machine could be rented for, cells not run, and machines
 * whose release is not confirmed (they may still bill). Pure; the detail and the list show it.
 */

export type OutcomeProblem = { id: string; text: string; next: string; overview?: boolean };

const LISTED = 3;

function cellsInWords(cells: readonly SweepCell[]): string {
  const shown = cells.slice(0, LISTED).map((c) => `${c.model} on ${c.gpu}${c.reason ? ` (${c.reason})` : ''}`);
  return `${shown.join('; ')}${cells.length > LISTED ? `; and ${cells.length - LISTED} more` : ''}`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function cellProblems(s: SweepRecord): OutcomeProblem[] {
  const out: OutcomeProblem[] = [];
  const failed = s.cells.filter((c) => c.status === 'failed' && !c.unrented);
  if (failed.length > 0) {
    out.push({ id: 'failed', text: `${plural(failed.length, 'cell')} failed: ${cellsInWords(failed)}.`, next: 'Choose the cell in the matrix to open its job and its error; run those models again in a new sweep once it is fixed.' });
  }
  const unrented = s.cells.filter((c) => c.status === 'failed' && c.unrented);
  if (unrented.length > 0) {
    const gpus = [...new Set(unrented.map((c) => c.gpu))];
    out.push({
      id: 'unrented',
      text: `No machine could be rented for ${gpus.join(', ')}, so ${plural(unrented.length, 'cell')} did not run${unrented[0]?.reason ? ` (${unrented[0].reason})` : ''}.`,
      next: 'Raise the highest price per machine or choose another GPU in a new sweep; if no rent worked at all, check the marketplace key in Settings.',
    });
  }
  const notRun = s.cells.filter((c) => c.status === 'cancelled' || c.status === 'budget_exceeded');
  if (notRun.length > 0) {
    const budget = notRun.some((c) => c.status === 'budget_exceeded');
    out.push({
      id: 'not-run',
      text: `${plural(notRun.length, 'cell')} did not run: ${budget ? 'the sweep reached its spend limit' : 'the sweep was cancelled'}.`,
      next: budget ? 'Raise the spend limit and run the missing models in a new sweep.' : 'Run the missing models in a new sweep.',
    });
  }
  return out;
}

function machineProblems(s: SweepRecord): OutcomeProblem[] {
  return [...s.earlier_machines, ...s.machines]
    .filter((m) => m.instance_id !== undefined && m.released === false)
    .map((m) => ({
      id: `machine-${m.machine_id}`,
      text: `The ${m.gpu} machine (instance ${formatInstance(m.instance_id)}) is not confirmed released${m.release_error ? `: ${m.release_error}` : ''}. It may still bill${m.dph_total !== undefined ? ` at ${formatDph(m.dph_total)}` : ''}.`,
      next: 'benchdesk keeps trying. To stop the billing now, release it from the Overview’s Machines panel (or destroy it in the Vast.ai console).',
      overview: true,
    }));
}

/** The problems of a sweep that ended not clean; none when it is clean, not finished, or from a version without outcomes. */
export function outcomeProblems(s: SweepRecord): OutcomeProblem[] {
  const outcome = s.outcome;
  if (!outcome || outcome.clean) return [];
  const found = [...cellProblems(s), ...machineProblems(s)];
  // The server named problems these records do not explain: show its own words.
  if (found.length === 0) return outcome.problems.map((p, i) => ({ id: `server-${i}`, text: `${p}.`, next: 'Open the cells and machines below to see which.' }));
  return found;
}

/** One line for the sweeps list: "not clean" and what, short. */
export function outcomeSummary(s: SweepRecord): string | null {
  if (!s.outcome || s.outcome.clean) return null;
  return s.outcome.problems.length > 0 ? s.outcome.problems.join('; ') : 'see the sweep';
}
