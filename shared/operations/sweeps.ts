import { z } from 'zod';
import {
  CancelSweepResponseSchema,
  SweepAcceptedSchema,
  SweepListSchema,
  SweepRecordSchema,
  SweepRefSchema,
  SweepReportInputSchema,
  SweepReportOutputSchema,
  SweepRequestSchema,
} from '../sweeps';
import { NoInputSchema, type OperationDef } from './common';

/** Sweeps: a grid of cells run on rented machines, listed, followed, cancelled and reported. */
export const SWEEP_OPERATIONS = {
  createSweep: {
    summary: 'Start a sweep: models × GPUs, one rented machine per GPU, a ranked answer',
    description:
      'Validates the sweep, stores it (on disk before the 202) and answers its id with a `Location`. In the background, for each GPU name it rents one machine ' +
      '(the cheapest offer of that GPU whose memory fits the largest model that fits at all), runs every model on it in turn (the suite and/or the serving benchmark, as jobs), ' +
      'then releases it; a model no offer of that GPU can hold is a `skipped` cell and nothing is rented for it. `machines_at_once` GPUs run in parallel. ' +
      'Reaching `max_total_cost_usd` (machine time plus downloads, checked at every cost change and at least every 5 s) releases every machine and ends the unfinished cells `budget_exceeded`. ' +
      'A sweep whose cells failed or could not be rented, or whose machine is not confirmed released, ends with `outcome.clean` false and says why in `outcome.problems`.',
    tags: ['sweeps'],
    method: 'POST',
    path: '/v1/sweeps',
    // The service checks the body with SweepRequestSchema, so every transport reports the same 422.
    input: z.unknown(),
    docs: { body: SweepRequestSchema },
    output: SweepAcceptedSchema,
    status: 202,
    body: '*',
  },
  listSweeps: {
    summary: "The caller's sweeps, newest first",
    description: "Every sweep of the caller's tenant, newest first, each with its cells, machines, spend and ranking.",
    tags: ['sweeps'],
    method: 'GET',
    path: '/v1/sweeps',
    input: NoInputSchema,
    output: SweepListSchema,
    status: 200,
  },
  getSweep: {
    summary: 'Get one sweep',
    description:
      "The sweep's status, spend (`spend_usd`, the ledger's cost of its machines: time plus downloads), its cells (model × GPU, each with its status, jobs, score and cost), " +
      "its machines, `ranking` (cell indexes, best first) and, once ended, `outcome` (cells succeeded, failed, unrented, skipped, not run; machines not confirmed released; `clean`). Another tenant's sweep answers 404, as a missing one does.",
    tags: ['sweeps'],
    method: 'GET',
    path: '/v1/sweeps/{sweep_id}',
    input: SweepRefSchema,
    output: SweepRecordSchema,
    status: 200,
  },
  cancelSweep: {
    summary: 'Cancel a sweep: every machine released, unfinished cells `cancelled`',
    description:
      'Stops the sweep: its running jobs are cancelled, every machine it holds is released, and the cells not finished end `cancelled`. ' +
      'Answers at once with the status then; the sweep ends `cancelled` once its machines are released. A sweep that has already ended answers 409.',
    tags: ['sweeps'],
    method: 'POST',
    path: '/v1/sweeps/{sweep_id}/cancel',
    input: SweepRefSchema,
    output: CancelSweepResponseSchema,
    status: 202,
    errors: { 409: 'The sweep has already ended (`sweep_not_cancellable`)' },
  },
  getSweepReport: {
    summary: 'The sweep as a ranked report: JSON, Markdown (`md`) or CSV',
    description:
      'The ranked table (accuracy first, then cost per correct answer; a serving-only sweep by $ per million output tokens, with throughput and TTFT beside), ' +
      'accuracy per scenario tag, and the Pareto front of accuracy against cost. `format=md` answers `text/markdown` fit to paste into a pull request or a wiki page; ' +
      '`format=csv` answers `text/csv` with the unit in each column name; `json` (the default) the report object.',
    tags: ['sweeps'],
    method: 'GET',
    path: '/v1/sweeps/{sweep_id}/report',
    input: SweepReportInputSchema,
    output: SweepReportOutputSchema,
    status: 200,
    query: ['format'],
    docs: { media: { 'text/markdown': 'with `format=md`: the report as Markdown', 'text/csv': 'with `format=csv`: the ranked table as CSV, the unit in each column name' } },
  },
} as const satisfies Record<string, OperationDef>;
