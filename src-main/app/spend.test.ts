import { describe, expect, it } from 'vitest';
import { StoredRequestSchemas, type JobEvent, type JobRecord, type JobRecordOf } from '../../shared';
import type { JobListFilter, JobListPage, JobStore } from '../store/types';
import { SpendCache, computeSpend, jobSpend } from './spend';

const NOW = new Date(2026, 10, 22, 15, 0, 0); // local time: 22 Nov 2026, 15:00
const at = (d: number, h = 12) => new Date(2026, 10, d, h, 0, 0).toISOString();

const benchRequest = StoredRequestSchemas.benchmark.parse({ question: 'q', model: 'llama3.1:8b', backend_url: 'http://127.0.0.1:11434' });

function bench(id: string, finished: string, cost: number, status: JobRecord['status'] = 'succeeded'): JobRecordOf<'benchmark'> {
  return {
    job_id: id,
    tenant_id: 'default',
    kind: 'benchmark',
    status,
    message: '',
    created_at: finished,
    started_at: finished,
    finished_at: finished,
    updated_at: finished,
    request: benchRequest,
    progress: null,
    result:
      status === 'succeeded'
        ? {
            answer: 'a',
            result_type: 'text',
            artifacts: [],
            metadata: { agent: 'builtin', model: 'm', steps: 1, tool_calls: 0, prompt_tokens: 1, completion_tokens: 1, tokens_per_second: 1, duration_ms: 1 },
            model_name: 'm',
            backend_url: 'http://127.0.0.1:11434',
            contract_id: 1,
            phases: [],
            cost: { dph_total: 1, rented_seconds: 1, cost_usd: cost },
            instance: null,
            teardown: null,
          }
        : null,
    error: status === 'failed' ? 'x' : null,
    error_code: null,
    resources: null,
  };
}

/** A failed or running job that rented a machine: cost from its resources. */
function rented(id: string, status: JobRecord['status'], rentedAt: string, finished: string | null, dph: number): JobRecord {
  const j = bench(id, finished ?? rentedAt, 0, status);
  return { ...j, finished_at: finished, result: null, resources: { dph_total: dph, rented_at: rentedAt, marketplace_instance_id: 7 } };
}

function fakeStore(jobs: JobRecord[]): { store: JobStore; lists: () => number } {
  let lists = 0;
  const sorted = [...jobs].sort((a, b) => b.created_at.localeCompare(a.created_at));
  const store = {
    async listJobs(filter: JobListFilter): Promise<JobListPage> {
      lists++;
      const mine = sorted.filter((j) => j.tenant_id === filter.tenant_id);
      const start = filter.cursor ? Number(filter.cursor) : 0;
      const page = mine.slice(start, start + filter.limit);
      return { jobs: page, next_cursor: start + filter.limit < mine.length ? String(start + filter.limit) : null };
    },
  } as unknown as JobStore;
  return { store, lists: () => lists };
}

describe('jobSpend', () => {
  it('takes a benchmark result cost, or dph × rented time for a failed or running job', () => {
    expect(jobSpend(bench('a', at(22), 0.5), NOW)).toMatchObject({ cost_usd: 0.5, running_dph: 0 });
    // Failed after 30 min at $2/h.
    expect(jobSpend(rented('b', 'failed', at(22, 10), new Date(2026, 10, 22, 10, 30).toISOString(), 2), NOW)?.cost_usd).toBe(1);
    // Running since 14:00 at $3/h, now 15:00.
    expect(jobSpend(rented('c', 'running', at(22, 14), null, 3), NOW)).toMatchObject({ cost_usd: 3, running_dph: 3 });
    expect(jobSpend({ ...bench('d', at(22), 0, 'failed') }, NOW)).toBeNull();
  });

  it("takes a suite's recorded cost when it rented, and nothing on an existing backend", () => {
    const finished = at(22, 11);
    const summary = { passed: 1, total: 1, accuracy: 1, mean_score: 1, latency_ms: { p50: 1, p95: 1 }, tokens_per_second: null, cost_usd: 0.25, cost_per_correct_usd: 0.25 };
    const suiteJob = (cost: { dph_total: number; rented_seconds: number; cost_usd: number } | null): JobRecord => ({
      ...bench('s', finished, 0),
      kind: 'suite',
      request: StoredRequestSchemas.suite.parse({ suite_id: 'starter', model: 'm', backend_url: 'http://127.0.0.1:11434' }),
      result: { suite_id: 'starter', agent: 'builtin', model: 'm', backend_url: 'http://h', scenarios: [], summary, phases: [], cost, instance: null, teardown: null },
    });
    expect(jobSpend(suiteJob({ dph_total: 0.5, rented_seconds: 1800, cost_usd: 0.25 }), NOW)).toMatchObject({ cost_usd: 0.25, running_dph: 0 });
    expect(jobSpend(suiteJob(null), NOW)).toBeNull();
  });
});

describe('computeSpend', () => {
  it('adds today and this month by the day a job ended, across pages, and stops at old jobs', async () => {
    const jobs = [
      bench('today-1', at(22, 9), 0.25),
      bench('today-2', at(22, 11), 0.5),
      bench('earlier', at(3), 2),
      bench('last-month', at(-5 + 31 - 31, 12), 100), // 26 Oct (day -5 of November)
      rented('running', 'running', at(22, 14), null, 1),
      ...Array.from({ length: 450 }, (_, i) => bench(`old-${i}`, new Date(2026, 8, 1 + (i % 20)).toISOString(), 1)),
    ];
    const { store } = fakeStore(jobs);
    const spend = await computeSpend(store, 'default', NOW);
    expect(spend.today).toMatchObject({ cost_usd: 1.75, jobs: 3 });
    expect(spend.this_month).toMatchObject({ cost_usd: 3.75, jobs: 4 });
    expect(spend.running).toMatchObject({ cost_usd: 1, jobs: 1, dph_total: 1 });
    expect(spend.by_kind.benchmark?.jobs).toBe(4);
  });

  it('counts only the tenant asked for', async () => {
    const other = { ...bench('x', at(22), 9), tenant_id: 'acme' };
    const { store } = fakeStore([bench('a', at(22), 1), other]);
    expect((await computeSpend(store, 'default', NOW)).today.cost_usd).toBe(1);
    expect((await computeSpend(store, 'acme', NOW)).today.cost_usd).toBe(9);
  });
});

describe('SpendCache', () => {
  it('recomputes only after a job event of the tenant (or when stale)', async () => {
    const { store, lists } = fakeStore([bench('a', at(22), 1)]);
    let listener: ((e: JobEvent) => void) | undefined;
    let now = NOW;
    const cache = new SpendCache({ store, subscribe: (_t, l) => ((listener = l), () => undefined), now: () => now, maxAgeMs: 15_000 });
    await cache.get('default');
    await cache.get('default');
    expect(lists()).toBe(1);
    listener?.({ event: 'cost.update' } as JobEvent);
    await cache.get('default');
    expect(lists()).toBe(2);
    listener?.({ event: 'agent.tool_call' } as JobEvent);
    await cache.get('default');
    expect(lists()).toBe(2);
    now = new Date(NOW.getTime() + 20_000);
    await cache.get('default');
    expect(lists()).toBe(3);
    cache.close();
  });
});
