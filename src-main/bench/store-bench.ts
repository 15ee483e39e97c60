import Conf from 'conf';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { JobRecord } from '../../shared';
import { openJobStore } from '../store/job-store';
import type { JobStore, StoreLogger } from '../store/types';

/**
 * Store figures of design §10: one durable job write (createJob, updateJob) with a small and a large
 * store, open time and RSS of the large one, concurrent durable creates/s, and, for reference,
 * conf's single-file set() at the same sizes (why jobs are sharded). Sizes: BENCH_STORE_SIZES
 * (comma-separated, default "10,10000").
 */

const silent: StoreLogger = { info: () => undefined, warn: () => undefined };
let seqId = 0;

function job(): JobRecord {
  seqId++;
  const now = new Date().toISOString();
  return {
    job_id: `bench-${process.pid}-${seqId}`,
    tenant_id: seqId % 10 === 0 ? 'acme' : 'default',
    kind: 'benchmark',
    status: 'queued',
    message: 'accepted',
    created_at: now,
    started_at: null,
    finished_at: null,
    updated_at: now,
    request: { model: 'llama3:8b', question: 'Why is the checkout pod crash-looping?', marketplace: true, min_dph: 0.1, max_dph: 0.6, reliability: 0.98 },
    progress: null,
    result: null,
    error: null,
    error_code: null,
    resources: null,
  };
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

function median(samples: readonly number[]): number {
  return quantile([...samples].sort((a, b) => a - b), 0.5);
}

function stats(samples: number[]): string {
  const s = [...samples].sort((a, b) => a - b);
  return `median ${quantile(s, 0.5).toFixed(3)} ms  p95 ${quantile(s, 0.95).toFixed(3)} ms  (n=${s.length})`;
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function prefill(store: JobStore, n: number): Promise<void> {
  const chunk = 256;
  for (let done = 0; done < n; done += chunk) {
    await Promise.all(Array.from({ length: Math.min(chunk, n - done) }, () => store.createJob(job())));
  }
  await store.flush();
}

type WriteMedians = { create: number; update: number };

async function benchStore(size: number, ops: number, dir: string): Promise<WriteMedians> {
  const store = await openJobStore({ dataDir: dir, logger: silent, releaseLockOnExit: false });
  const fillMs = await time(() => prefill(store, size));
  const created: string[] = [];
  const createSamples: number[] = [];
  for (let i = 0; i < ops; i++) {
    const rec = job();
    createSamples.push(await time(() => store.createJob(rec)));
    created.push(rec.job_id);
  }
  const updateSamples: number[] = [];
  for (const id of created) updateSamples.push(await time(() => store.updateJob(id, { status: 'running', progress: { phase: 'provision' } })));

  // 16 concurrent writers, like 16 HTTP connections each waiting for its 202.
  const total = 4000;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next++ < total) await store.createJob(job());
    }),
  );
  const perSec = total / ((performance.now() - t0) / 1000);
  await store.close();

  console.log(`store with ${size} jobs (prefill ${(fillMs / 1000).toFixed(2)} s):`);
  console.log(`  createJob (durable)   ${stats(createSamples)}`);
  console.log(`  updateJob (durable)   ${stats(updateSamples)}`);
  console.log(`  16 concurrent writers ${Math.round(perSec)} durable createJob/s`);
  return { create: median(createSamples), update: median(updateSamples) };
}

function retainedBytes(): number {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.external + m.arrayBuffers;
}

async function benchOpen(dir: string): Promise<void> {
  const before = retainedBytes();
  const t = performance.now();
  const store = await openJobStore({ dataDir: dir, logger: silent, releaseLockOnExit: false });
  const openMs = performance.now() - t;
  const page = await store.listJobs({ tenant_id: 'default', limit: 50 });
  const held = retainedBytes() - before;
  const rss = process.memoryUsage().rss;
  const exact = (globalThis as { gc?: unknown }).gc ? '' : ' (run node with --expose-gc for an exact figure)';
  console.log(
    `  open ${store.count()} jobs: ${openMs.toFixed(0)} ms, first page of ${page.jobs.length}; process RSS ${(rss / 2 ** 20).toFixed(0)} MB, ` +
      `heap held by the open store ${(held / 2 ** 20).toFixed(1)} MB${exact}`,
  );
  await store.close();
}

/** conf's one-file model: every set() re-reads, re-serialises and fsyncs the whole store. */
async function benchConfSingleFile(size: number, dir: string): Promise<void> {
  const conf = new Conf<Record<string, JobRecord>>({ cwd: dir, configName: 'jobs', accessPropertiesByDotNotation: false });
  const all: Record<string, JobRecord> = {};
  const ids: string[] = [];
  for (let i = 0; i < Math.max(1, size); i++) {
    const rec = job();
    all[rec.job_id] = rec;
    ids.push(rec.job_id);
  }
  conf.store = all;
  const ops = size >= 10_000 ? 20 : 200;
  const samples: number[] = [];
  for (let i = 0; i < ops; i++) {
    // Update an existing job, so the store stays at `size` jobs.
    const id = ids[i % ids.length] ?? '';
    const rec = { ...(all[id] ?? job()), message: `update ${i}` };
    const t = performance.now();
    conf.set(id, rec);
    samples.push(performance.now() - t);
  }
  const bytes = (await fsp.stat(conf.path)).size;
  console.log(`  conf single-file set() with ${size} jobs (${(bytes / 2 ** 20).toFixed(2)} MiB file): ${stats(samples)}`);
}

export async function runStoreBench(): Promise<void> {
  const sizes = (process.env.BENCH_STORE_SIZES ?? '10,10000')
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isInteger(n) && n >= 0);
  const root = await fsp.mkdtemp(path.join(os.tmpdir(), 'benchdesk-store-bench-'));
  console.log(`# store bench (data in ${root})`);
  try {
    // Warm-up (JIT, first file-system touches), not printed, so the first size is not penalised.
    const warm = await openJobStore({ dataDir: path.join(root, 'warm-up'), logger: silent, releaseLockOnExit: false });
    await prefill(warm, 2000);
    for (let i = 0; i < 200; i++) await warm.createJob(job());
    await warm.close();
    const medians = new Map<number, WriteMedians>();
    for (const size of sizes) {
      const dir = path.join(root, `store-${size}`);
      medians.set(size, await benchStore(size, 300, dir));
      if (size === Math.max(...sizes)) await benchOpen(dir);
      await benchConfSingleFile(size, path.join(root, `conf-${size}`));
    }
    const small = medians.get(Math.min(...sizes));
    const large = medians.get(Math.max(...sizes));
    if (small && large && sizes.length > 1) {
      // Design §10: a job write with many stored jobs stays within 2x of an (almost) empty store.
      console.log(
        `  write latency ${Math.max(...sizes)} vs ${Math.min(...sizes)} jobs: createJob x${(large.create / small.create).toFixed(2)}, updateJob x${(large.update / small.update).toFixed(2)} (target <= 2)`,
      );
    }
  } finally {
    await fsp.rm(root, { recursive: true, force: true });
  }
}
