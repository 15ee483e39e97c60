import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { StoredRequestSchemas, type JobRecord } from '../../../shared';
import { openJobStore } from '../../store/job-store';
import { jobStatsHandlers } from './jobs-stats';

const request = StoredRequestSchemas['llm-instance'].parse({ backend_url: 'http://127.0.0.1:1' });
function job(id: string, tenant: string, kind: JobRecord['kind'], status: JobRecord['status']): JobRecord {
  const at = new Date().toISOString();
  const base = { job_id: id, tenant_id: tenant, status, message: status, created_at: at, started_at: null, finished_at: null, updated_at: at, progress: null, result: null, error: null, error_code: null, resources: null };
  if (kind === 'llm-instance') return { ...base, kind, request };
  if (kind === 'benchmark') return { ...base, kind, request: StoredRequestSchemas.benchmark.parse({ question: 'q', model: 'm', backend_url: 'http://127.0.0.1:1' }) };
  if (kind === 'suite') return { ...base, kind, request: StoredRequestSchemas.suite.parse({ suite_id: 'starter', model: 'm', backend_url: 'http://127.0.0.1:1' }) };
  if (kind === 'serving-benchmark') return { ...base, kind, request: StoredRequestSchemas['serving-benchmark'].parse({ model: 'm', backend_url: 'http://127.0.0.1:1' }) };
  return { ...base, kind, request: StoredRequestSchemas['agentic-agent'].parse({ question: 'q', model: 'm', agent: 'builtin', backend_url: 'http://127.0.0.1:1' }) };
}

describe('getJobCounts', () => {
  it("counts the tenant's jobs per status (of the kind asked) and per kind, from the index", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'benchdesk-counts-'));
    const store = await openJobStore({ dataDir: dir, logger: { info: () => undefined, warn: () => undefined }, releaseLockOnExit: false });
    try {
      await store.createJob(job('a', 'default', 'benchmark', 'failed'));
      await store.createJob(job('b', 'default', 'benchmark', 'succeeded'));
      await store.createJob(job('c', 'default', 'llm-instance', 'failed'));
      await store.createJob(job('d', 'default', 'agentic-agent', 'queued'));
      await store.createJob(job('e', 'acme', 'benchmark', 'failed'));
      const handlers = jobStatsHandlers(store);
      expect(await handlers.getJobCounts({ tenantId: 'default' }, {})).toEqual({
        total: 4,
        by_status: { queued: 1, running: 0, succeeded: 1, failed: 2, cancelled: 0 },
        by_kind: { 'agentic-agent': 1, benchmark: 2, 'llm-instance': 1, suite: 0, 'serving-benchmark': 0 },
      });
      // by_status follows the kind filter; by_kind always lists every kind.
      expect(await handlers.getJobCounts({ tenantId: 'default' }, { kind: 'benchmark' })).toEqual({
        total: 2,
        by_status: { queued: 0, running: 0, succeeded: 1, failed: 1, cancelled: 0 },
        by_kind: { 'agentic-agent': 1, benchmark: 2, 'llm-instance': 1, suite: 0, 'serving-benchmark': 0 },
      });
      expect((await handlers.getJobCounts({ tenantId: 'acme' }, undefined)).total).toBe(1);
      expect((await handlers.getJobCounts({ tenantId: 'nobody' }, {})).total).toBe(0);
      await expect(handlers.getJobCounts({ tenantId: 'default' }, { kind: 'nope' })).rejects.toMatchObject({ status: 422 });
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
