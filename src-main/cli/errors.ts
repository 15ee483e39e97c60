import { issueInWords, type FieldVocabulary } from '../../shared';
import { isBenchdeskApiError, type BenchdeskApiError } from '../../shared/client';
import { CliError, EXIT, type ExitCode } from './exit-codes';
import { err, note, printJson } from './output';

/** API request fields → the CLI options that set them, so a 422 names what to change on the command line. */
const OPTION_OF_FIELD: Record<string, string> = {
  marketplace: '--marketplace',
  template_hash: '--marketplace-template',
  min_dph: '--marketplace-min-dph',
  max_dph: '--marketplace-max-dph',
  reliability: '--marketplace-reliability',
  backend_url: '--backend-url',
  backend_type: '--backend-type',
  backend_warmup: '--llmserver-warmup',
  model: '--model',
  question: '--question',
  agent: '--agent',
  kubeconfig: '--kubeconfig',
  snapshot: '--snapshot',
  log_tail_lines: '--log-tail-lines',
  namespaces: '--namespace',
  marketplace_stop_instance: '--marketplace-stop-instance',
  estimated_duration_seconds: '--duration',
  suite_id: 'the suite id',
  scenario_ids: '--scenario',
  repeat: '--repeat',
  max_cost_usd: '--max-cost',
  concurrency: '--concurrency',
  requests_per_level: '--requests',
  prompt_tokens: '--prompt-tokens',
  output_tokens: '--output-tokens',
  warmup_requests: '--warmup',
};

/** The options as the validation wording names them; --marketplace-reliability is a percentage, sent as a fraction. */
const CLI_VOCABULARY: FieldVocabulary = Object.fromEntries(
  Object.entries(OPTION_OF_FIELD).map(([field, option]) => [field, field === 'reliability' ? { name: option, scale: 100 } : { name: option }]),
);

/** A validation answer (the request the options made is wrong) is a usage error; the rest are failures. */
function exitCodeOf(e: BenchdeskApiError): ExitCode {
  return e.status === 422 || e.code === 'validation_failed' ? EXIT.usage : EXIT.failure;
}

/**
 * Prints a failure as one plain message (and, with --json, the API's problem body on stdout) and
 * returns the exit code.
 */
export function reportError(e: unknown, json: boolean): ExitCode {
  if (e instanceof CliError) {
    note(`${err.red('benchdesk:')} ${e.message}`);
    return e.exitCode;
  }
  if (isBenchdeskApiError(e)) {
    if (json) printJson(e.problem);
    const issues = e.problem.errors ?? [];
    // The detail of a validation answer repeats the issues in the API's own terms; the lines below say them in the CLI's.
    const headline = issues.length > 0 ? `the server refused the request (${issues.length === 1 ? '1 problem' : `${issues.length} problems`}):` : e.problem.detail;
    note(`${err.red('benchdesk:')} ${headline}${e.status >= 400 && e.status !== 503 ? ` (${e.status} ${e.code})` : ''}`);
    for (const issue of issues) note(`  ${issueInWords(issue, CLI_VOCABULARY)}`);
    return exitCodeOf(e);
  }
  note(`${err.red('benchdesk:')} ${e instanceof Error ? e.message : String(e)}`);
  return EXIT.failure;
}
