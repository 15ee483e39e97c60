#!/usr/bin/env node
// `node scripts/with-node.mjs <command> [args…]`: runs the command under a Node the project
// supports. `npm start`, `npm test`, `npm run serve` and `npm run bench` start here. On a Node
// older than engines.node it says so in one line, fetches Node 24 from the npm registry into a
// per-user cache (once), and re-runs the command under it with stdio, signals and the exit code
// passed through. BENCHDESK_NO_NODE_BOOTSTRAP=1 prints which Node is needed instead.
// Plain JavaScript on purpose: it must run on the old Node it replaces.
import os from 'node:os';
import { BootstrapError, ensureNode } from './lib/node-bootstrap.mjs';
import { bootstrappedEnv, bootstrapNotice, childCommand, commandLabel, planNodeRun, shortPath, tooOldMessage } from './lib/node-runtime.mjs';
import { exitLike, runThrough } from './lib/run-through.mjs';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('usage: node scripts/with-node.mjs <command> [args…]\n');
  process.exit(2);
}

const env = process.env;
const home = os.homedir();
const version = process.versions.node;
const npmCli = env.npm_execpath;
const plan = planNodeRun({ version, env, platform: process.platform, arch: process.arch, home });

if (plan.action === 'refuse') {
  process.stderr.write(plan.message);
  process.exit(1);
}

let nodePath = process.execPath;
let childEnv = /** @type {Record<string, string | undefined>} */ (env);
if (plan.action === 'bootstrap') {
  const what = commandLabel(env);
  const cached = shortPath(plan.cacheDir, home);
  try {
    // One line: before a fetch (it takes a while), or once the cached Node answered.
    const node = await ensureNode(plan, {
      npmCli,
      env,
      onFetch: () => process.stderr.write(`${bootstrapNotice({ what, version, cached, fetching: true })}\n`),
    });
    if (!node.fetched) process.stderr.write(`${bootstrapNotice({ what, version, cached, fetching: false, bootstrapVersion: node.version })}\n`);
  } catch (err) {
    if (!(err instanceof BootstrapError)) throw err;
    process.stderr.write(tooOldMessage(what, version, err.message));
    process.exit(1);
  }
  nodePath = plan.nodePath;
  childEnv = bootstrappedEnv(env, plan);
}

const child = childCommand(command, args, { nodePath, npmCli, platform: process.platform });
const result = await runThrough(child.file, child.args, { env: childEnv, shell: child.shell });
if (result.error) {
  process.stderr.write(`benchdesk: could not run ${command}: ${result.error.message}\n`);
  process.exit(1);
}
exitLike(result);
