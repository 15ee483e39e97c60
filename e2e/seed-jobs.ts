import { StoredRequestSchemas, type JobRecord } from '../shared';
import { openJobStore } from '../src-main/store/job-store';

/**
 * Writes `n` finished jobs straight into a data dir's job store (before a server opens it): a
 * realistic mix of kinds and end states, spread over the last days, for the 10,000-job list.
 */
export async function seedJobs(dataDir: string, n: number, tenantId = 'default'): Promise<void> {
  const store = await openJobStore({ dataDir, logger: { info: () => undefined, warn: () => undefined }, releaseLockOnExit: false });
  const agentRequest = StoredRequestSchemas['agentic-agent'].parse({
    question: 'Which pods are unhealthy?',
    model: 'qwen3:8b',
    agent: 'builtin',
    backend_url: 'http://127.0.0.1:11434',
  });
  const benchRequest = StoredRequestSchemas.benchmark.parse({
    question: 'Why is checkout not ready?',
    model: 'llama3.1:8b',
    backend_url: 'http://127.0.0.1:11434',
  });
  const start = Date.now() - n * 30_000;
  const make = (i: number): JobRecord => {
    const created = new Date(start + i * 30_000).toISOString();
    const started = new Date(start + i * 30_000 + 400).toISOString();
    const finished = new Date(start + i * 30_000 + 400 + 5_000 + (i % 17) * 1_000).toISOString();
    const base = { job_id: `seed-${String(i).padStart(6, '0')}`, tenant_id: tenantId, message: 'done', created_at: created, started_at: started, finished_at: finished, updated_at: finished, progress: null, resources: null };
    if (i % 3 === 0) {
      return { ...base, kind: 'benchmark', status: 'failed', message: 'failed', request: benchRequest, result: null, error: 'the llmserver at http://127.0.0.1:11434 did not answer', error_code: 'upstream_unreachable' };
    }
    if (i % 7 === 0) {
      return { ...base, kind: 'agentic-agent', status: 'cancelled', message: 'cancelled', request: agentRequest, result: null, error: null, error_code: null };
    }
    return {
      ...base,
      kind: 'agentic-agent',
      status: 'succeeded',
      request: agentRequest,
      result: {
        answer: `All pods are healthy (run ${i}).`,
        result_type: 'text',
        artifacts: [],
        metadata: { agent: 'builtin', model: 'qwen3:8b', steps: 3, tool_calls: 2, prompt_tokens: 812, completion_tokens: 96, tokens_per_second: 41.5, duration_ms: 5_000 },
      },
      error: null,
      error_code: null,
    };
  };
  const chunk = 256;
  for (let done = 0; done < n; done += chunk) {
    await Promise.all(Array.from({ length: Math.min(chunk, n - done) }, (_, k) => store.createJob(make(done + k))));
  }
  await store.close();
}
