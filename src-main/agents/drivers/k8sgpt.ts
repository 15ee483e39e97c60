import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { K8sgptOutputSchema, type K8sgptOutput } from './cli-wire';
import { type AgentResult } from '../../../shared/results';
import { type DriverAskParams } from '../driver-wire';
import { normaliseBackendUrl } from '../../llm/backend-url';
import { agentEnvironment } from '../driver-env';
import { AgentError } from '../errors';
import { exitFailure } from '../process-runner';
import { DEFAULT_CLI_TIMEOUT_MS, runCli, type CliDriverOptions } from './cli';
import { roundMs } from '../../events/timed';

/**
 * The k8sgpt driver (reference §C.4). k8sgpt reads its Ollama backend (URL and model) from its
 * config file, not from flags of `analyze`, so each ask writes a throw-away config, owner-only
 * (0600, in a 0700 directory), then runs:
 *   k8sgpt analyze --explain --backend ollama --output json --no-cache --kubeconfig <path> --config <tmp>/k8sgpt.yaml
 * The file holds what `k8sgpt auth add --backend ollama --model <m> --baseurl <url>` would write;
 * writing it ourselves keeps the backend URL, which may carry credentials, off every command line
 * (where any local user could read it in the process list). `--config` is a global flag; with it
 * the user's own ~/.config/k8sgpt/k8sgpt.yaml is neither read nor changed, and concurrent asks
 * with different backends do not race on one file.
 * k8sgpt is not a question-answering agent: its analyzers are fixed, so the question only frames
 * the answer; the LLM writes one explanation per finding.
 */

export const K8SGPT_INSTALL_HINT = 'install k8sgpt from https://k8sgpt.ai (e.g. `brew install k8sgpt`, or a release binary from github.com/k8sgpt-ai/k8sgpt/releases)';
const MAX_OUTPUT_BYTES = 8 * 1024 * 1024;
/** `k8sgpt auth add`'s default sampling temperature, written as it would write it. */
const K8SGPT_DEFAULT_TEMPERATURE = 0.7;

/** k8sgpt's backend: an Ollama server is its `ollama` backend, an OpenAI-compatible one its `openai` backend with a base URL. */
function k8sgptBackend(params: DriverAskParams): 'ollama' | 'openai' {
  return params.backend_api === 'openai' ? 'openai' : 'ollama';
}

/**
 * The config `k8sgpt auth add` would write for this backend. k8sgpt reads a .yaml config with
 * go-yaml, and YAML 1.2 is a superset of JSON: JSON text needs no YAML quoting rules.
 */
export function k8sgptConfig(params: DriverAskParams): string {
  const openai = params.backend_api === 'openai';
  const base = normaliseBackendUrl(params.backend_url);
  const provider = {
    name: k8sgptBackend(params),
    model: params.model,
    baseurl: openai ? `${base.replace(/\/v1$/, '')}/v1` : base,
    ...(openai ? { password: params.backend_api_key ?? 'none' } : {}),
    temperature: K8SGPT_DEFAULT_TEMPERATURE,
  };
  return `${JSON.stringify({ ai: { providers: [provider], defaultprovider: '' } }, null, 2)}\n`;
}

export function k8sgptInvocation(params: DriverAskParams, configFile: string): string[] {
  return ['k8sgpt', 'analyze', '--explain', '--backend', k8sgptBackend(params), '--output', 'json', '--no-cache', '--kubeconfig', params.kubeconfig, '--config', configFile];
}

/** k8sgpt may print a warning line before the JSON document: parse from the first "{" line on. */
export function parseK8sgptOutput(stdout: string): K8sgptOutput {
  const candidates = [stdout.trim()];
  const lines = stdout.split('\n');
  const first = lines.findIndex((l) => l.trimStart().startsWith('{'));
  if (first > 0) candidates.push(lines.slice(first).join('\n').trim());
  for (const text of candidates) {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      continue;
    }
    const parsed = K8sgptOutputSchema.safeParse(json);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    throw new AgentError('invalid_response', `k8sgpt JSON output has an unexpected shape (${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''})`);
  }
  const shown = stdout.trim().slice(0, 200);
  throw new AgentError('invalid_json', `k8sgpt did not print JSON${shown ? `: ${shown}` : ' (empty output)'}`);
}

/** The findings as a Markdown answer: one item per object, its errors and the LLM's explanation. */
export function formatK8sgptAnswer(output: K8sgptOutput): string {
  const results = output.results ?? [];
  const parts: string[] = [];
  if (results.length === 0) {
    parts.push(output.status === 'OK' || !output.status ? 'k8sgpt found no problems in the cluster.' : `k8sgpt status: ${output.status}; no findings reported.`);
  } else {
    parts.push(`k8sgpt found ${output.problems ?? results.length} problem(s):`);
    results.forEach((r, i) => {
      const parent = r.parentObject ? ` (parent ${r.parentObject})` : '';
      const lines = [`${i + 1}. **${r.kind} ${r.name}**${parent}`];
      for (const failure of r.error ?? []) lines.push(`   - ${failure.Text.replace(/\s+/g, ' ').trim()}`);
      const details = (r.details ?? '').trim();
      if (details) lines.push(`   Explanation: ${details.replace(/\n+/g, '\n   ')}`);
      parts.push(lines.join('\n'));
    });
  }
  const errors = (output.errors ?? []).filter((e) => e.trim());
  if (errors.length) parts.push(`Analyzer errors: ${errors.join('; ')}`);
  return parts.join('\n\n');
}

export async function askK8sgpt(params: DriverAskParams, options: CliDriverOptions = {}): Promise<AgentResult> {
  const started = Date.now();
  const deadline = started + (options.timeoutMs ?? DEFAULT_CLI_TIMEOUT_MS);
  const dir = await mkdtemp(path.join(options.tmpDir ?? tmpdir(), 'benchdesk-k8sgpt-'));
  try {
    const configFile = path.join(dir, 'k8sgpt.yaml');
    await writeFile(configFile, k8sgptConfig(params), { mode: 0o600, flag: 'wx' });
    const outcome = await runCli(k8sgptInvocation(params, configFile), {
      ...options,
      env: agentEnvironment(options.env ?? process.env, 'k8sgpt'),
      installHint: K8SGPT_INSTALL_HINT,
      deadline,
      maxStdoutBytes: MAX_OUTPUT_BYTES,
      label: 'k8sgpt analyze',
    });
    if (outcome.exitCode !== 0) throw exitFailure('k8sgpt analyze', outcome, 'failed', true);
    const output = parseK8sgptOutput(outcome.stdout);
    const results = output.results ?? [];
    return {
      answer: formatK8sgptAnswer(output),
      result_type: 'text',
      artifacts: [{ kind: 'k8sgpt_results', title: 'k8sgpt findings', data: results }],
      metadata: {
        agent: 'k8sgpt',
        model: params.model,
        // One LLM explanation per finding; k8sgpt reports neither tool calls nor tokens.
        steps: null,
        tool_calls: null,
        prompt_tokens: null,
        completion_tokens: null,
        tokens_per_second: null,
        duration_ms: roundMs(Date.now() - started),
        problems: output.problems ?? results.length,
      },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
