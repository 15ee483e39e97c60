import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, submit, type Harness } from '../workflows/harness';

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

describe('GET /v1/job-counts', () => {
  it('answers the counts of the caller, validates kind, and /v1/jobs/{id} still means a job', async () => {
    const h = await startHarness();
    harnesses.push(h);
    await submit(h, 'llm-instance', { backend_url: 'http://127.0.0.1:9' });
    const res = await h.get('/v1/job-counts?kind=llm-instance');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 1, by_kind: { 'llm-instance': 1, benchmark: 0, 'agentic-agent': 0 } });
    expect((await h.get('/v1/job-counts')).body).toMatchObject({ total: 1 });
    expect((await h.get('/v1/job-counts?kind=bogus')).status).toBe(422);
    expect((await h.get('/v1/jobs/counts')).status).toBe(404);
  });
});
