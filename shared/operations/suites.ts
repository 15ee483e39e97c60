import { z } from 'zod';
import { CreateSuiteInputSchema, SuiteDocumentSchema, SuiteListSchema, SuiteRefSchema, SuiteSchema } from '../suites';
import { ScoreAnswerInputSchema, ScoreAnswerOutputSchema } from '../scenario-score';
import { NoInputSchema, REST_BODY, SNAPSHOT_IMPORT_LIMIT_BYTES, type OperationDef } from './common';

/** Suites of scenarios: listed, created, deleted, exported, imported, and one answer scored against a scenario. */
export const SUITE_OPERATIONS = {
  listSuites: {
    summary: 'List the suites',
    description: 'Every suite of this install, the shipped `starter` suite first: name, description, how many scenarios, their tags, and whether it is read-only.',
    tags: ['suites'],
    method: 'GET',
    path: '/v1/suites',
    input: NoInputSchema,
    output: SuiteListSchema,
    status: 200,
  },
  getSuite: {
    summary: 'Get one suite with its scenarios',
    description: "A suite and every scenario: the question, the snapshot it runs on, the findings a correct answer must contain (regex alternatives), the claims it must not make, tags and difficulty.",
    tags: ['suites'],
    method: 'GET',
    path: '/v1/suites/{suite_id}',
    input: SuiteRefSchema,
    output: SuiteSchema,
    status: 200,
  },
  createSuite: {
    summary: 'Create a suite',
    description:
      'Stores a suite of scenarios on snapshots of this install. Every regular expression must compile: one that does not is a 422 naming its path (e.g. `scenarios.0.expected.1.any_of.0`), as is a scenario whose snapshot is not stored. Tenant `default` only.',
    tags: ['suites'],
    method: 'POST',
    path: '/v1/suites',
    // The service checks the body (after the tenant check) so each transport names the same paths.
    input: z.unknown(),
    docs: { body: CreateSuiteInputSchema },
    output: SuiteSchema,
    status: 201,
    body: '*',
    appTenantOnly: true,
    errors: { 409: '`suite_exists`: a suite with that `suite_id` is already stored' },
  },
  deleteSuite: {
    summary: 'Delete a suite',
    description: 'Deletes a suite (its snapshots stay, and can be deleted once no suite uses them). The shipped `starter` suite is read-only. Tenant `default` only.',
    tags: ['suites'],
    method: 'DELETE',
    path: '/v1/suites/{suite_id}',
    input: SuiteRefSchema,
    output: z.undefined(),
    status: 204,
    appTenantOnly: true,
    errors: { 409: '`suite_read_only`: the shipped suite cannot be deleted' },
  },
  exportSuite: {
    summary: 'Export a suite with its snapshots',
    description: 'The suite and every snapshot its scenarios run on, as one portable JSON document (format `benchdesk.suite/v1`), to import on another install.',
    tags: ['suites'],
    method: 'GET',
    path: '/v1/suites/{suite_id}/export',
    input: SuiteRefSchema,
    output: SuiteDocumentSchema,
    status: 200,
    errors: { 409: '`snapshot_not_found`: a snapshot the suite runs on can no longer be read (its file was set aside as corrupt); the problem names it' },
  },
  importSuite: {
    summary: 'Import a suite with its snapshots',
    description:
      'Stores an exported suite and the snapshots it carries (a snapshot already stored with the same content is reused). A malformed document is a 422 naming each wrong path; an id already taken gets a new one. Up to 64 MiB. Tenant `default` only.',
    tags: ['suites'],
    method: 'POST',
    path: '/v1/suites/import',
    input: z.unknown(),
    docs: { body: SuiteDocumentSchema },
    output: SuiteSchema,
    status: 201,
    body: '*',
    appTenantOnly: true,
    bodyLimit: SNAPSHOT_IMPORT_LIMIT_BYTES,
  },
  scoreAnswer: {
    summary: 'Score an answer to one scenario, without a run',
    description:
      "The rules a suite run applies (design §12b), on an answer you give: the answer is split into statements, and each finding, each `must_not` claim (and on the healthy scenario each fault) counts only in an affirmed statement — not negated, dismissed, asked or quoted tool output. " +
      'A structured verdict block in the answer is checked against the scenario\'s ground truth. `statements` says which statements counted and why. Scored off the main thread within a time limit.',
    tags: ['suites'],
    method: 'POST',
    path: '/v1/suites/{suite_id}/score',
    input: ScoreAnswerInputSchema,
    // The suite travels in the path; `{scenario_id, answer}` in the body.
    body: REST_BODY,
    docs: { body: ScoreAnswerInputSchema.omit({ suite_id: true }) },
    output: ScoreAnswerOutputSchema,
    status: 200,
    errors: {
      404: '`suite_not_found` or `scenario_not_found`: no such suite, or the suite has no such scenario (the problem lists its scenarios)',
      422: 'A bad body (`validation_failed`: `scenario_id` and `answer` are required, the answer at most 100,000 characters), or `scoring_timeout`: a pattern of the scenario took longer than the time limit',
    },
  },
} as const satisfies Record<string, OperationDef>;
