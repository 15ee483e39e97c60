import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HolmesLlmResultSchema, type HolmesLlmResult } from './cli-wire';
import { type AgentResult } from '../../../shared/results';
import { type DriverAskParams } from '../driver-wire';
import { normaliseBackendUrl } from '../../llm/backend-url';
import { agentEnvironment } from '../driver-env';
import { AgentError } from '../errors';
import { exitFailure } from '../process-runner';
import { DEFAULT_CLI_TIMEOUT_MS, runCli, type CliDriverOptions } from './cli';
import { roundMs } from '../../events/timed';

/**
 * The HolmesGPT driver (reference §C.1): runs
 *   holmes ask --model=ollama_chat/<model> --no-interactive --json-output-file <tmp> -- "<question>"
 * with KUBECONFIG (holmes has no --kubeconfig flag; it shells out to kubectl), OLLAMA_API_BASE
 * (LiteLLM's ollama_chat route) and LITELLM_LOCAL_MODEL_COST_MAP=True in an allow-listed
 * environment (driver-env.ts), then reads the LLMResult JSON it wrote.
 * OPENAI_API_BASE is not set: it only matters for `openai/` models, which we do not use.
 */

export const HOLMES_INSTALL_HINT = 'install HolmesGPT with `pipx install holmesgpt` (it also needs kubectl on PATH)';
const MAX_RESULT_FILE_BYTES = 16 * 1024 * 1024;
const LITELLM_OLLAMA_PREFIXES = ['ollama_chat/', 'ollama/'];

/** LiteLLM names Ollama models `ollama_chat/<name>`; a name that already has the prefix is kept. */
export function holmesModelName(model: string): string {
  return LITELLM_OLLAMA_PREFIXES.some((p) => model.startsWith(p)) ? model : `ollama_chat/${model}`;
}

/** The LiteLLM route: an Ollama server is LiteLLM's ollama_chat, an OpenAI-compatible one its openai/ route. */
function liteLlmModel(params: DriverAskParams): string {
  if (params.backend_api === 'openai') return params.model.startsWith('openai/') ? params.model : `openai/${params.model}`;
  return holmesModelName(params.model);
}

/** Where LiteLLM finds the server: OLLAMA_API_BASE, or OPENAI_API_BASE (…/v1) and its key (LiteLLM wants one even when the server does not). */
function liteLlmServer(params: DriverAskParams): Record<string, string> {
  const base = normaliseBackendUrl(params.backend_url);
  if (params.backend_api !== 'openai') return { OLLAMA_API_BASE: base };
  return { OPENAI_API_BASE: `${base.replace(/\/v1$/, '')}/v1`, OPENAI_API_KEY: params.backend_api_key ?? 'none' };
}

export function holmesInvocation(params: DriverAskParams, outputFile: string, baseEnv: NodeJS.ProcessEnv): { argv: string[]; env: NodeJS.ProcessEnv } {
  return {
    // `--` ends the options, so a question starting with "-" stays the prompt.
    argv: ['holmes', 'ask', `--model=${liteLlmModel(params)}`, '--no-interactive', '--json-output-file', outputFile, '--', params.question],
    env: agentEnvironment(baseEnv, 'holmes', {
      KUBECONFIG: params.kubeconfig,
      ...liteLlmServer(params),
      // LiteLLM otherwise downloads its model cost map from the internet when holmes imports it.
      LITELLM_LOCAL_MODEL_COST_MAP: 'True',
    }),
  };
}

async function readResultFile(file: string): Promise<HolmesLlmResult> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    throw new AgentError('no_output', 'holmes finished but wrote no --json-output-file');
  }
  if (size > MAX_RESULT_FILE_BYTES) throw new AgentError('output_too_large', `holmes wrote a ${size}-byte result file (limit ${MAX_RESULT_FILE_BYTES})`);
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    throw new AgentError('invalid_json', 'holmes wrote a --json-output-file that is not JSON');
  }
  const parsed = HolmesLlmResultSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AgentError('invalid_response', `holmes result file has an unexpected shape (${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''})`);
  }
  return parsed.data;
}

export function holmesResultToAgentResult(result: HolmesLlmResult, model: string, durationMs: number): AgentResult {
  const answer = (result.result ?? '').trim();
  if (!answer) throw new AgentError('driver_error', 'holmes returned an empty answer');
  const calls = result.tool_calls ?? [];
  return {
    answer,
    result_type: 'text',
    artifacts: [
      {
        kind: 'tool_calls',
        title: 'HolmesGPT tool calls',
        data: calls.map((c) => ({ tool: c.tool_name, description: c.description ?? null, status: c.result?.status ?? null })),
      },
    ],
    metadata: {
      agent: 'holmes',
      model,
      steps: null,
      tool_calls: calls.length,
      prompt_tokens: result.prompt_tokens ?? null,
      completion_tokens: result.completion_tokens ?? null,
      tokens_per_second: null,
      duration_ms: roundMs(durationMs),
      ...(typeof result.total_cost === 'number' ? { total_cost: result.total_cost } : {}),
    },
  };
}

export async function askHolmes(params: DriverAskParams, options: CliDriverOptions = {}): Promise<AgentResult> {
  const started = Date.now();
  const dir = await mkdtemp(path.join(options.tmpDir ?? tmpdir(), 'benchdesk-holmes-'));
  try {
    const outputFile = path.join(dir, 'result.json');
    const { argv, env } = holmesInvocation(params, outputFile, options.env ?? process.env);
    const outcome = await runCli(argv, {
      ...options,
      env,
      label: 'holmes',
      installHint: HOLMES_INSTALL_HINT,
      deadline: started + (options.timeoutMs ?? DEFAULT_CLI_TIMEOUT_MS),
      // Its stdout is rich text for humans; the answer comes from the result file.
      maxStdoutBytes: 256 * 1024,
      truncateStdout: true,
    });
    // Holmes often reports the cause on stdout (rich console).
    if (outcome.exitCode !== 0) throw exitFailure('holmes', outcome, 'failed', true);
    const result = await readResultFile(outputFile);
    return holmesResultToAgentResult(result, params.model, Date.now() - started);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
