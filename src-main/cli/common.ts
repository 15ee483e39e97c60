import { Option, type Command, type OptionValues } from '@commander-js/extra-typings';
import type { CreateJobInput } from '../../shared';
import { connect, DEFAULT_API_URL, type Connection, type ConnectionOptions, type Purpose } from './connection';
import { EXIT, UsageError, type ExitCode } from './exit-codes';
import { followJob } from './follow';
import { onInterrupt } from './interrupt';
import { err, note, print, printJson } from './output';
import { defaultKubeconfig, expandPath, parseDph, parseHttpUrl, parsePercentage } from './parsers';
import { confirmSpend } from './spend';

/* Option groups shared by the commands, so every command spells them the same way. */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- commander's own constraint on argument tuples
type AnyArgs = any[];

export function withConnection<A extends AnyArgs, O extends OptionValues, G extends OptionValues>(cmd: Command<A, O, G>) {
  return cmd
    .option('--json', "print exactly the API's JSON on stdout, and nothing else")
    .option('--api-url <url>', `the running app's API (default ${DEFAULT_API_URL}, or BENCHDESK_API_URL)`, parseHttpUrl)
    .option('--token <token>', "API token (default: BENCHDESK_TOKEN, else the data dir's api-token file)")
    .option('--tenant <tenant>', 'tenant to act as (X-Tenant-ID); default "default"')
    .option('--local', 'run in this process on the data dir instead of talking to the app');
}

export function withJobSubmit<A extends AnyArgs, O extends OptionValues, G extends OptionValues>(cmd: Command<A, O, G>) {
  return cmd
    .option('--idempotency-key <key>', 'submit at most once: the same key and request return the same job')
    .option('--yes', 'skip the spend confirmation')
    .option('--no-wait', 'print the job id and return (needs the running app)')
    .option('--cancel-on-interrupt', "on Ctrl-C also cancel a job running on the app (an in-process job is always cancelled)");
}

export function withMarketplace<A extends AnyArgs, O extends OptionValues, G extends OptionValues>(cmd: Command<A, O, G>) {
  return cmd
    .option('--marketplace', 'rent a GPU machine on the marketplace (Vast.ai) instead of using --backend-url')
    .option('--marketplace-template <hash>', 'the Vast.ai template hash that runs Ollama')
    .option('--marketplace-min-dph <usd>', 'lowest price to consider, $/hour', parseDph)
    .option('--marketplace-max-dph <usd>', 'highest price to pay, $/hour (the spend ceiling)', parseDph)
    .option('--marketplace-reliability <percent>', 'minimum host reliability in percent, 0–100 (default 99)', parsePercentage);
}

export function withBackend<A extends AnyArgs, O extends OptionValues, G extends OptionValues>(cmd: Command<A, O, G>) {
  return cmd
    .option('--backend-url <url>', 'an existing llmserver: Ollama (http://127.0.0.1:11434) or an OpenAI-compatible server (vLLM: http://gpu-box:8000)')
    .addOption(new Option('--backend-type <type>', 'backend type').choices(['llmserver', 'ollama'] as const).default('llmserver' as const))
    .addOption(backendApiOption())
    .option('--llmserver-warmup', 'load the model before use (default)')
    .option('--no-llmserver-warmup', 'skip the warm-up');
}

export function withAgent<A extends AnyArgs, O extends OptionValues, G extends OptionValues>(cmd: Command<A, O, G>) {
  return cmd
    .requiredOption('-q, --question <text>', 'the question for the agent')
    .option('--agent <name>', 'builtin, holmes, k8sgpt or a registered driver', 'builtin')
    .option('--kubeconfig <path>', 'kubeconfig the agent reads (default $KUBECONFIG, else ~/.kube/config)')
    .option('--snapshot <id>', 'a recorded cluster to run on instead of a kubeconfig (see benchdesk snapshot list): served read-only while the job runs');
}

export function kubeconfigOf(value: string | undefined): string {
  return value ? expandPath(value) : defaultKubeconfig();
}

/** The cluster fields of a job request: `snapshot`, or the kubeconfig (given or the default); never both. */
export function clusterOf(o: { kubeconfig?: string | undefined; snapshot?: string | undefined }): { kubeconfig: string } | { snapshot: string } {
  if (o.snapshot !== undefined) {
    if (o.kubeconfig !== undefined) throw new UsageError('give either --kubeconfig (a live cluster) or --snapshot (a recorded one), not both');
    return { snapshot: o.snapshot };
  }
  return { kubeconfig: kubeconfigOf(o.kubeconfig) };
}

/** Marketplace request fields, in the API's names, from the options. */
export function marketplaceFields(o: {
  marketplace?: true | undefined;
  marketplaceTemplate?: string | undefined;
  marketplaceMinDph?: number | undefined;
  marketplaceMaxDph?: number | undefined;
  marketplaceReliability?: number | undefined;
}): { marketplace: boolean; template_hash?: string; min_dph?: number; max_dph?: number; reliability?: number } {
  return {
    marketplace: o.marketplace === true,
    ...(o.marketplaceTemplate !== undefined ? { template_hash: o.marketplaceTemplate } : {}),
    ...(o.marketplaceMinDph !== undefined ? { min_dph: o.marketplaceMinDph } : {}),
    ...(o.marketplaceMaxDph !== undefined ? { max_dph: o.marketplaceMaxDph } : {}),
    ...(o.marketplaceReliability !== undefined ? { reliability: o.marketplaceReliability } : {}),
  };
}

/** `--backend-api`: the API the server speaks; `auto` asks it (Ollama's /api/version, else /v1/models). */
export function backendApiOption() {
  return new Option('--backend-api <api>', 'the API the server speaks: ollama, openai (vLLM, SGLang, TGI, llama.cpp, LM Studio) or auto (detect); its key, if it wants one, from $BENCHDESK_BACKEND_API_KEY')
    .choices(['ollama', 'openai', 'auto'] as const)
    .default('auto' as const);
}

/**
 * The API fields of a request: the API asked for, and the key of an OpenAI-compatible server from
 * the environment (BENCHDESK_BACKEND_API_KEY), never from the command line (shell history, `ps`).
 */
export function backendApiFields(o: { backendApi: 'ollama' | 'openai' | 'auto' }, env: NodeJS.ProcessEnv = process.env): { backend_api: 'ollama' | 'openai' | 'auto'; backend_api_key?: string } {
  const key = env.BENCHDESK_BACKEND_API_KEY?.trim();
  return { backend_api: o.backendApi, ...(key ? { backend_api_key: key } : {}) };
}

type BackendOptions = {
  backendApi: 'ollama' | 'openai' | 'auto';
  marketplace?: true | undefined;
  marketplaceTemplate?: string | undefined;
  marketplaceMinDph?: number | undefined;
  marketplaceMaxDph?: number | undefined;
  marketplaceReliability?: number | undefined;
  backendUrl?: string | undefined;
  backendType: 'llmserver' | 'ollama';
  llmserverWarmup?: boolean | undefined;
  marketplaceStopInstance?: boolean | undefined;
};

export type BackendFields = ReturnType<typeof marketplaceFields> & {
  backend_url?: string;
  backend_type: 'llmserver' | 'ollama';
  backend_api: 'ollama' | 'openai' | 'auto';
  backend_api_key?: string;
  backend_warmup?: boolean;
  marketplace_stop_instance?: boolean;
};

/**
 * Where a job that needs an llmserver runs, as request fields: an existing one (--backend-url) or
 * a rented one (--marketplace), never both and never neither. `choice` ends the both-given message.
 */
export function backendFields(o: BackendOptions, choice: string): BackendFields {
  const market = marketplaceFields(o);
  if (market.marketplace && o.backendUrl) throw new UsageError(`--backend-url and --marketplace exclude each other: ${choice}`);
  if (!market.marketplace && !o.backendUrl) throw new UsageError('give --backend-url <url> (an existing llmserver) or --marketplace (rent one)');
  return {
    ...market,
    ...(o.backendUrl ? { backend_url: o.backendUrl } : {}),
    backend_type: o.backendType,
    // A rented machine (Ollama, or vLLM with --backend-api openai) is reached with its proxy token: the key of an OpenAI server is for --backend-url only.
    ...(market.marketplace ? { backend_api: o.backendApi } : backendApiFields(o)),
    ...(o.llmserverWarmup !== undefined ? { backend_warmup: o.llmserverWarmup } : {}),
    ...(o.marketplaceStopInstance !== undefined ? { marketplace_stop_instance: o.marketplaceStopInstance } : {}),
  };
}

type RunOptions = {
  apiUrl?: string | undefined;
  token?: string | undefined;
  tenant?: string | undefined;
  local?: true | undefined;
  yes?: true | undefined;
  json?: true | undefined;
  wait: boolean;
  cancelOnInterrupt?: true | undefined;
  idempotencyKey?: string | undefined;
};

/**
 * Submits a job and follows it. A rent with a price ceiling first shows what the model costs at
 * today's offers and asks (unless --yes): the one confirmation every renting command shares.
 */
export async function runJob(
  o: RunOptions,
  input: CreateJobInput,
  spend: { target: BackendFields; model: string | undefined },
  follow: { jsonResult?: boolean; afterFollow?: SubmitOptions['afterFollow'] } = {},
): Promise<ExitCode> {
  const { target, model } = spend;
  return withConnectionOpen(connectionOf(o), 'run', async (conn) => {
    if (target.marketplace && target.max_dph !== undefined && model) {
      await confirmSpend(conn.client, { min_dph: target.min_dph ?? 0, max_dph: target.max_dph, reliability: target.reliability ?? 0.99, model }, { yes: o.yes === true });
    }
    return submitAndFollow(conn, { ...input, ...(o.idempotencyKey ? { idempotency_key: o.idempotencyKey } : {}) }, {
      json: o.json === true,
      ...(follow.jsonResult ? { jsonResult: true } : {}),
      ...(follow.afterFollow ? { afterFollow: follow.afterFollow } : {}),
      wait: o.wait,
      cancelOnInterrupt: o.cancelOnInterrupt === true,
    });
  });
}

export function connectionOf(o: { apiUrl?: string | undefined; token?: string | undefined; tenant?: string | undefined; local?: true | undefined }): ConnectionOptions {
  return { apiUrl: o.apiUrl, token: o.token, tenant: o.tenant, local: o.local === true };
}

/** Connects, runs `body`, and always closes the connection (in local mode: the in-process engine). */
export async function withConnectionOpen<T>(options: ConnectionOptions, purpose: Purpose, body: (conn: Connection) => Promise<T>): Promise<T> {
  const conn = await connect(options, purpose);
  try {
    return await body(conn);
  } finally {
    await conn.close();
  }
}

export type SubmitOptions = {
  json: boolean;
  /** With --json, a succeeded job prints its `result` alone (a failed one still prints the whole record). */
  jsonResult?: boolean;
  wait: boolean;
  cancelOnInterrupt: boolean;
  /** Once the job ended (whatever its status), with the connection still open: e.g. an export of what it recorded. */
  afterFollow?: (conn: Connection, jobId: string) => Promise<void>;
};

/** createJob, then follow it (or print its id with --no-wait). */
export async function submitAndFollow(conn: Connection, input: CreateJobInput, options: SubmitOptions): Promise<ExitCode> {
  if (!options.wait && conn.mode === 'local') {
    throw new UsageError('--no-wait needs the running app: a job run in-process ends with this command. Start the app or `benchdesk serve`, or drop --no-wait.');
  }
  // Ctrl-C while the job is being submitted: once accepted, it is handled like one during the follow.
  let early = false;
  const release = onInterrupt({ onInterrupt: () => (early = true), force: () => process.exit(EXIT.interrupted) });
  let accepted: Awaited<ReturnType<typeof conn.client.createJob>>;
  try {
    accepted = await conn.client.createJob(input);
  } finally {
    release();
  }
  if (!options.wait) {
    if (options.json) printJson(accepted);
    else print(accepted.job_id);
    note(err.dim(`job ${accepted.job_id} accepted (${input.kind}); follow it: benchdesk jobs watch ${accepted.job_id}`));
    return early ? EXIT.interrupted : EXIT.ok;
  }
  note(err.dim(`job ${accepted.job_id} accepted (${input.kind})`));
  const code = await followJob(conn, accepted.job_id, { json: options.json, ...(options.jsonResult ? { jsonResult: true } : {}), cancelOnInterrupt: options.cancelOnInterrupt, interrupted: early });
  await options.afterFollow?.(conn, accepted.job_id);
  return code;
}

/** `Examples:` help text, shown after the options. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
}
