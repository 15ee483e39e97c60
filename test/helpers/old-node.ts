import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { nodeTooOld } from '../../src-main/node-version';

/** The machine's own Node when it is too old for the project (the build machines ship Node 20), else undefined. */
export function findOldNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(candidate)) continue;
    const res = spawnSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    if (res.status === 0 && nodeTooOld(res.stdout.trim())) return candidate;
  }
  return undefined;
}

/** npm's own script (npm-cli.js) beside that Node: what `npm_execpath` names when npm runs a script. */
export function findNpmCli(oldNode: string): string | undefined {
  const npm = path.join(path.dirname(oldNode), 'npm');
  if (!existsSync(npm)) return undefined;
  const cli = realpathSync(npm);
  return /\.[cm]?js$/.test(cli) ? cli : undefined;
}
