/**
 * The environment an agent program runs with: an allow-list, never the server's whole
 * environment, which holds our secrets (VAST_API_KEY, SERVICE_API_TOKENS, BENCHDESK_TOKEN). A
 * driver gets what any program needs (PATH, HOME, locale, proxies and CA bundles, temp dirs), the
 * cluster and backend (KUBECONFIG, OLLAMA_API_BASE), what its own CLI documents, and the names the
 * user lists in BENCHDESK_AGENT_ENV (e.g. `OPENAI_API_KEY,MYAGENT_*` for a driver of their own).
 */

/** Comma- or space-separated variable names (a trailing `*` matches a prefix) passed on to every agent program. */
export const AGENT_ENV_LIST = 'BENCHDESK_AGENT_ENV';

const COMMON_NAMES = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TMPDIR',
  'TZ',
  'TERM',
  'NO_COLOR',
  'LANG',
  'LANGUAGE',
  'http_proxy',
  'HTTP_PROXY',
  'https_proxy',
  'HTTPS_PROXY',
  'no_proxy',
  'NO_PROXY',
  'all_proxy',
  'ALL_PROXY',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'REQUESTS_CA_BUNDLE',
  'NODE_EXTRA_CA_CERTS',
  'XDG_CONFIG_HOME',
  'XDG_CACHE_HOME',
  'XDG_DATA_HOME',
  'XDG_RUNTIME_DIR',
  'KUBECONFIG',
  'OLLAMA_API_BASE',
  // Windows: programs do not start, or cannot find their profile, without these.
  'SYSTEMROOT',
  'WINDIR',
  'COMSPEC',
  'PATHEXT',
  'USERPROFILE',
  'APPDATA',
  'LOCALAPPDATA',
  'PROGRAMDATA',
  'HOMEDRIVE',
  'HOMEPATH',
  'TEMP',
  'TMP',
] as const;
const COMMON_PREFIXES = ['LC_'] as const;

export type AgentEnvProfile = 'holmes' | 'k8sgpt' | 'builtin' | 'user';

/** What each bundled driver's CLI documents reading (HolmesGPT's context and log limits, its config; k8sgpt's own variables). */
const PROFILE: Record<AgentEnvProfile, { names: readonly string[]; prefixes: readonly string[] }> = {
  holmes: {
    names: ['OVERRIDE_MAX_CONTENT_SIZE', 'OVERRIDE_MAX_OUTPUT_TOKEN', 'TOOL_MAX_ALLOCATED_CONTEXT_WINDOW_PCT', 'TOOL_MAX_ALLOCATED_CONTEXT_WINDOW_TOKENS', 'KUBERNETES_LOGS_TIMEOUT_SECONDS', 'USE_LEGACY_KUBERNETES_LOGS'],
    prefixes: ['HOLMES_'],
  },
  k8sgpt: { names: [], prefixes: ['K8SGPT_'] },
  builtin: { names: [], prefixes: [] },
  user: { names: [], prefixes: [] },
};

/** Ours, never passed on, even when listed in BENCHDESK_AGENT_ENV. */
const NEVER = /^(VAST_|SERVICE_API_|BENCHDESK_|MARKETPLACE_API_)/i;

/** Names Windows spells in mixed case (SystemRoot): matched without regard to case there. */
const caseInsensitive = process.platform === 'win32';

function userPatterns(source: NodeJS.ProcessEnv): { names: Set<string>; prefixes: string[] } {
  const names = new Set<string>();
  const prefixes: string[] = [];
  for (const item of (source[AGENT_ENV_LIST] ?? '').split(/[\s,]+/)) {
    const name = item.trim();
    if (!/^[A-Za-z_][A-Za-z0-9_]*\*?$/.test(name)) continue;
    if (name.endsWith('*')) prefixes.push(name.slice(0, -1));
    else names.add(name);
  }
  return { names, prefixes };
}

/**
 * The environment of one agent program, from the server's (`source`): the allow-list of the
 * profile, the user's extra names, then `set` (values we give it: KUBECONFIG of the request, the
 * time limit of a bundled driver…), which may name our own variables.
 */
export function agentEnvironment(source: NodeJS.ProcessEnv, profile: AgentEnvProfile, set: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const own = PROFILE[profile];
  const user = userPatterns(source);
  const names = new Set<string>([...COMMON_NAMES, ...own.names, ...user.names].map((n) => (caseInsensitive ? n.toUpperCase() : n)));
  const prefixes = [...COMMON_PREFIXES, ...own.prefixes, ...user.prefixes].map((p) => (caseInsensitive ? p.toUpperCase() : p));
  const out: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || NEVER.test(name)) continue;
    const key = caseInsensitive ? name.toUpperCase() : name;
    if (names.has(key) || prefixes.some((p) => p !== '' && key.startsWith(p))) out[name] = value;
  }
  // A bundled driver process passes the user's list on to the CLI it runs.
  if (source[AGENT_ENV_LIST] !== undefined && (profile === 'holmes' || profile === 'k8sgpt')) out[AGENT_ENV_LIST] = source[AGENT_ENV_LIST];
  return { ...out, ...set };
}
