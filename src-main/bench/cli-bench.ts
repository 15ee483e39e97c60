import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { ROOT, TOKEN, startBenchdeskServer } from './processes';
import type { Report } from './report';

const CLI_JS = path.join(ROOT, 'dist', 'main', 'cli.js');

type Run = { wallMs: number; cpuMs: number };

/** CPU seconds of the children of `sh` as `times` prints them ("0m0.456s 0m0.100s"): user + system. */
export function parseChildTimes(output: string): number | null {
  const lines = output.trim().split('\n');
  const children = lines[lines.length - 1] ?? '';
  const parts = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  if (parts.length !== 2) return null;
  return Math.round(((parts[0] ?? 0) + (parts[1] ?? 0)) * 1000);
}

/** One command, its output discarded; the CPU it used is what `sh`'s `times` says of its children. */
function runOnce(args: readonly string[], env: NodeJS.ProcessEnv): Run {
  const t0 = performance.now();
  const res = spawnSync('/bin/sh', ['-c', '"$@" >/dev/null 2>&1; code=$?; times; exit $code', 'sh', process.execPath, CLI_JS, ...args], { env, encoding: 'utf8' });
  const wallMs = performance.now() - t0;
  if (res.status !== 0) throw new Error(`benchdesk ${args.join(' ')} exited ${res.status}`);
  const cpuMs = parseChildTimes(res.stdout);
  if (cpuMs === null) throw new Error(`could not read the CPU time from: ${res.stdout}`);
  return { wallMs, cpuMs };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * What a short `benchdesk` command costs to start, as `npx benchdesk` runs it (compile cache on, warm):
 * `--help`, a list against a running app (the usual case: the app or `benchdesk serve` is up), and the
 * same list in-process (`--local`: the engine is loaded). Median of `rounds` runs.
 */
export async function runCliBench(report: Report, options: { root: string; rounds: number }): Promise<void> {
  if (!fs.existsSync(CLI_JS)) throw new Error(`${CLI_JS} is missing: run \`node scripts/build.mjs\` first`);
  const dataDir = await fsp.mkdtemp(path.join(options.root, 'cli-'));
  const localDir = await fsp.mkdtemp(path.join(options.root, 'cli-local-'));
  const cache = await fsp.mkdtemp(path.join(options.root, 'cli-compile-cache-'));
  const server = await startBenchdeskServer(dataDir);
  try {
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', NODE_COMPILE_CACHE: cache, BENCHDESK_TOKEN: TOKEN };
    // No targets: nothing sets one; the figures show what the chunked CLI saves (docs/performance.md).
    const cases: { scenario: string; args: string[]; env?: NodeJS.ProcessEnv }[] = [
      { scenario: 'benchdesk --help', args: ['--help'] },
      { scenario: 'benchdesk jobs list --json (a running app)', args: ['jobs', 'list', '--json', '--api-url', server.url] },
      { scenario: 'benchdesk jobs list --json --local (engine in-process)', args: ['jobs', 'list', '--json', '--local'], env: { BENCHDESK_DATA_DIR: localDir } },
    ];
    for (const c of cases) {
      const runEnv = { ...env, ...c.env };
      runOnce(c.args, runEnv); // fills the compile cache
      const runs = Array.from({ length: options.rounds }, () => runOnce(c.args, runEnv));
      const cpu = median(runs.map((r) => r.cpuMs));
      const wall = median(runs.map((r) => r.wallMs));
      report.add({ section: 'cli', scenario: `${c.scenario}: CPU`, value: cpu, unit: 'ms', target: '', note: `wall ${Math.round(wall)} ms, median of ${options.rounds}` });
    }
  } finally {
    await server.stop();
  }
}
