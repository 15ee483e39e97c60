import Conf from 'conf';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { StoredRequestSchemas, type JobRecord } from '../../shared';
import { openJobStore } from '../store/job-store';
import type { JobStore, StoreLogger } from '../store/types';
import type { Report } from './report';

/**
 * Store figures of design §10: one durable job write (createJob, updateJob) with a small and a large
 * store, open time and RSS of the large one, concurrent durable creates/s, and, for reference,
 * conf's single-file set() at the same sizes (why jobs are sharded). Sizes: BENCH_STORE_SIZES
 * (comma-separated, default "10,10000").
 */

const silent: StoreLogger = { info: () => undefined, warn: () => undefined };
let seqId = 0;

// A stored benchmark request as the engine writes it (defaults applied).
const BENCH_REQUEST = StoredRequestSchemas.benchmark.parse({
  model: 'llama3:8b',
  question: 'Why is the checkout pod crash-looping?',
  marketplace: true,
  template_hash: 'ollama',
  min_dph: 0.1,
  max_dph: 0.6,
  reliability: 0.98,
});

/** A queued job, or (`finished`) one that ran: what a store with history mostly holds. */
function job(finished = false): JobRecord {
  seqId++;
  const now = new Date().toISOString();
  return {
    job_id: `bench-${process.pid}-${seqId}`,
    tenant_id: seqId % 10 === 0 ? 'acme' : 'default',
    kind: 'benchmark',
    status: finished ? 'succeeded' : 'queued',
    message: 'accepted',
    created_at: now,
    started_at: finished ? now : null,
    finished_at: finished ? now : null,
    updated_at: now,
    request: BENCH_REQUEST,
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
    await Promise.all(Array.from({ length: Math.min(chunk, n - done) }, () => store.createJob(job(true))));
  }
  await store.flush();
}

type WriteFigures = { create: number; createP95: number; update: number; perSec: number };

async function benchStore(size: number, ops: number, dir: string): Promise<WriteFigures> {
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
      while (next++ < total) await store.createJob(job(true));
    }),
  );
  const perSec = total / ((performance.now() - t0) / 1000);
  // Leave no job running: the start-up figure reopens this dir, and recovery would have work to do.
  for (const id of created) await store.updateJob(id, { status: 'succeeded', finished_at: new Date().toISOString() });
  await store.close();

  console.log(`  store with ${size} jobs (prefill ${(fillMs / 1000).toFixed(2)} s): createJob ${stats(createSamples)}; updateJob ${stats(updateSamples)}`);
  const sorted = [...createSamples].sort((a, b) => a - b);
  return { create: median(createSamples), createP95: quantile(sorted, 0.95), update: median(updateSamples), perSec };
}

function retainedBytes(): number {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.external + m.arrayBuffers;
}

async function benchOpen(dir: string, report: Report): Promise<void> {
  const before = retainedBytes();
  const t = performance.now();
  const store = await openJobStore({ dataDir: dir, logger: silent, releaseLockOnExit: false });
  const openMs = performance.now() - t;
  await store.listJobs({ tenant_id: 'default', limit: 50 });
  const held = retainedBytes() - before;
  const exact = (globalThis as { gc?: unknown }).gc ? '' : ' (run node with --expose-gc for an exact figure)';
  report.add({ section: 'store', scenario: `open a store of ${store.count()} jobs (in process)`, value: Math.round(openMs), unit: 'ms', target: '', note: `heap held by the open store ${(held / 2 ** 20).toFixed(1)} MB${exact}` });
  await store.close();
}

/** conf's one-file model: every set() re-reads, re-serialises and fsyncs the whole store (why jobs are sharded). */
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
  const samples: number[] = [];
  for (let i = 0; i < 20; i++) {
    const id = ids[i % ids.length] ?? '';
    const rec = { ...(all[id] ?? job()), message: `update ${i}` };
    const t = performance.now();
    conf.set(id, rec);
    samples.push(performance.now() - t);
  }
  const bytes = (await fsp.stat(conf.path)).size;
  console.log(`  for comparison, conf single-file set() with ${size} jobs (${(bytes / 2 ** 20).toFixed(2)} MiB file): ${stats(samples)}`);
}

/**
 * Durable write latency (createJob, updateJob) at each store size, concurrent creates/s, and the
 * in-process open time of the largest store. Returns the largest store's dir (kept for the
 * start-up figure); the caller removes `root`.
 */
export async function runStoreBench(report: Report, sizes: readonly number[], root: string): Promise<string> {
  // Warm-up (JIT, first file-system touches), not recorded, so the first size is not penalised.
  const warm = await openJobStore({ dataDir: path.join(root, 'warm-up'), logger: silent, releaseLockOnExit: false });
  await prefill(warm, 2000);
  for (let i = 0; i < 200; i++) await warm.createJob(job());
  await warm.close();
  const figures = new Map<number, WriteFigures>();
  let largestDir = '';
  for (const size of sizes) {
    const dir = path.join(root, `store-${size}`);
    const f = await benchStore(size, 300, dir);
    figures.set(size, f);
    report.add({ section: 'store', scenario: `createJob (durable) with ${size} jobs, median`, value: Math.round(f.create * 1000) / 1000, unit: 'ms', target: '', note: `p95 ${f.createP95.toFixed(3)} ms` });
    report.add({ section: 'store', scenario: `updateJob (durable) with ${size} jobs, median`, value: Math.round(f.update * 1000) / 1000, unit: 'ms', target: '' });
    report.add({ section: 'store', scenario: `16 concurrent writers with ${size} jobs`, value: Math.round(f.perSec), unit: 'creates/s', target: '' });
    if (size === Math.max(...sizes)) {
      largestDir = dir;
      await benchOpen(dir, report);
    }
    if (size > 0 && size <= 10_000) await benchConfSingleFile(size, path.join(root, `conf-${size}`));
  }
  const small = figures.get(Math.min(...sizes));
  const large = figures.get(Math.max(...sizes));
  if (small && large && sizes.length > 1) {
    // Design §10: a job write with many stored jobs stays within 2x of an (almost) empty store.
    const x = large.create / small.create;
    report.add({ section: 'store', scenario: `createJob latency ${Math.max(...sizes)} vs ${Math.min(...sizes)} jobs`, value: Math.round(x * 100) / 100, unit: 'x', target: '≤ 2x', ok: x <= 2 });
  }
  return largestDir;
}

/** Fills a data dir with n queued jobs (the start-up figure's data). */
export async function prefillDataDir(dir: string, n: number): Promise<void> {
  const store = await openJobStore({ dataDir: dir, logger: silent, releaseLockOnExit: false });
  await prefill(store, n);
  await store.close();
}
