import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { runCliBench } from './cli-bench';
import { runBareServer } from './bare-server';
import { engineRunChild, runEngineBench } from './engine-bench';
import { runHttpBench } from './http-bench';
import { ROOT, ensureWrk } from './processes';
import { runBareTlsChild, runReplayBench, runReplayChild } from './replay-bench';
import { Report } from './report';
import { benchBundle, benchJobsRender, benchRunMemory, benchStartup } from './server-bench';
import { runServingBench } from './serving-bench';
import { prefillDataDir, runStoreBench } from './store-bench';
import { runScoringBench } from './scoring-bench';
import { runSweepBench } from './sweep-bench';

/**
 * `npm run bench`: every figure of the performance targets, each printed beside its target, then
 * one table, and a JSON copy under bench-results/ (git-ignored). Stops by itself (~4-5 min;
 * `--quick` ~1 min with smaller sizes and 16 connections only). Nothing here asserts a time.
 *
 *   --quick           smaller sizes, shorter runs
 *   --only=a,b        sections: http, store, startup, cli, memory, engine, replay, renderer, serving, sweeps, scoring
 *   --cpu-prof=DIR    run the HTTP scenarios' server under --cpu-prof, profiles into DIR
 */
const args = process.argv.slice(2);

if (args[0] === '--bare') {
  await runBareServer(args[1] ?? 'static', args[2] ?? '');
} else if (args[0] === '--engine-run') {
  await engineRunChild(args.slice(1));
} else if (args[0] === '--replay') {
  await runReplayChild(args[1] ?? '');
} else if (args[0] === '--bare-tls') {
  await runBareTlsChild(args[1] ?? '');
} else {
  await main();
}

async function main(): Promise<void> {
  const quick = args.includes('--quick');
  const only = args.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
  const cpuProf = args.find((a) => a.startsWith('--cpu-prof='))?.slice('--cpu-prof='.length);
  const want = (s: string) => !only || only.includes(s);
  const report = new Report();
  const cpus = os.cpus();
  console.log(`benchdesk bench — node ${process.version}, ${process.platform}/${process.arch}, ${cpus.length} × ${cpus[0]?.model ?? 'cpu'}${quick ? ' (quick)' : ''}`);
  const started = performance.now();
  // Every data dir of the run lives here and is removed only when the run ends: on ext4 without a
  // journal, creating files just after many were deleted is slower (the inode allocator skips
  // recently freed inodes), so removing one section's files would slow the next section's writes.
  const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'benchdesk-bench-'));
  try {
    if (want('http')) {
      console.log('\n# HTTP: benchdesk vs bare node:http, wrk -t1, keep-alive');
      const wrk = ensureWrk();
      if ('missing' in wrk) {
        console.log(`  ${wrk.missing}`);
        report.add({ section: 'http', scenario: 'all HTTP scenarios', value: null, unit: '', target: '', note: 'wrk missing' });
      } else {
        await runHttpBench(report, wrk.path, { connections: quick ? [16] : [1, 16, 64], seconds: quick ? 2 : 3, ...(cpuProf ? { cpuProf: path.resolve(cpuProf) } : {}), root });
      }
    }
    const bigSize = quick ? 20_000 : 100_000;
    let bigDir: string | undefined;
    if (want('store')) {
      console.log('\n# store: durable write latency by store size');
      bigDir = await runStoreBench(report, quick ? [0, 10_000] : [0, 10_000, 100_000], root);
    }
    if (want('startup')) {
      console.log(`\n# start-up with ${bigSize} jobs`);
      if (!bigDir || !bigDir.endsWith(`store-${bigSize}`)) {
        bigDir = path.join(root, `startup-${bigSize}`);
        await prefillDataDir(bigDir, bigSize);
      }
      // The store bench added ~4,600 jobs on top of the prefill.
      await benchStartup(report, bigDir, bigSize);
    }
    if (want('cli')) {
      console.log('\n# CLI: what a short command costs to start');
      await runCliBench(report, { root, rounds: quick ? 5 : 15 });
    }
    if (want('memory')) {
      console.log('\n# memory: jobs run to completion, then idle');
      await benchRunMemory(report, { jobs: quick ? 2_000 : 10_000, idleSeconds: quick ? 5 : 30, root });
    }
    if (want('engine')) {
      console.log('\n# engine: concurrent benchmarks against the fakes');
      await runEngineBench(report, { jobs: quick ? 200 : 1_000, root });
    }
    if (want('replay')) {
      console.log('\n# snapshot replay: 1,000 pods over HTTPS on loopback');
      const wrk = ensureWrk();
      await runReplayBench(report, { wrk: 'missing' in wrk ? null : wrk.path, seconds: quick ? 2 : 3, root });
    }
    if (want('serving')) {
      console.log('\n# serving benchmark: accuracy against a backend of known timing, and the generator ceiling');
      await runServingBench(report, { quick });
    }
    if (want('sweeps')) {
      console.log('\n# sweeps: the engine’s own CPU per cell against the fakes');
      await runSweepBench(report, { root, models: quick ? 5 : 10 });
    }
    if (want('scoring')) {
      console.log('\n# scoring: the rules against the labelled answers, and the time to score one');
      await runScoringBench(report, { rounds: quick ? 5 : 20 });
    }
    if (want('renderer')) {
      console.log('\n# renderer');
      benchBundle(report);
      benchJobsRender(report);
    }
  } finally {
    await fsp.rm(root, { recursive: true, force: true });
  }
  report.printTable();
  const file = report.writeJson(path.join(ROOT, 'bench-results'), { quick, total_s: Math.round((performance.now() - started) / 1000) });
  console.log(`\nwritten to ${path.relative(ROOT, file)}; total ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
