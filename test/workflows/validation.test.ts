import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OLLAMA_TEMPLATE_HASH } from '../fakes/vast';
import { mustK8s, mustVast, startHarness, waitForEnd, type Harness, type Reply } from './harness';

/** Submit-time checks (design §3/§4/§5): a 422 problem, and no job is stored or run. */

let withKey: Harness;
let noKey: Harness;
beforeAll(async () => {
  withKey = await startHarness({
    vast: true,
    k8s: true,
    env: { BENCHDESK_DRIVER_MYAGENT: `${process.execPath} /nonexistent/my-driver.mjs`, BENCHDESK_DRIVER_REMOTE: 'http://127.0.0.1:9/driver' },
  });
  noKey = await startHarness({ vast: true, vastKey: false, k8s: true });
});
afterAll(async () => {
  await withKey.close();
  await noKey.close();
});

const marketplaceLlm = { marketplace: true, template_hash: OLLAMA_TEMPLATE_HASH, max_dph: 1, model: 'llama3.1:8b' };

function expect422(res: Reply, path: string): { path: string; message: string } {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.headers['content-type']).toContain('application/problem+json');
  expect(res.body).toMatchObject({ status: 422, code: 'validation_failed' });
  expect(res.body.error).toBe(res.body.detail);
  const errors = res.body.errors as { path: string; message: string }[];
  const issue = errors.find((e) => e.path === path);
  expect(issue, JSON.stringify(errors)).toBeDefined();
  return issue ?? { path, message: '' };
}

async function expectNoJobs(h: Harness): Promise<void> {
  const list = await h.get('/v1/jobs');
  expect(list.body.jobs).toEqual([]);
}

describe('422 at submit time', () => {
  it('marketplace: true without VAST_API_KEY', async () => {
    for (const [kind, body] of [
      ['llm-instance', marketplaceLlm],
      ['benchmark', { ...marketplaceLlm, question: 'why?', kubeconfig: mustK8s(noKey).kubeconfigPath }],
    ] as const) {
      const issue = expect422(await noKey.post(`/v1/jobs/${kind}`, body), 'marketplace');
      expect(issue.message).toContain('VAST_API_KEY');
    }
    await expectNoJobs(noKey);
    expect(mustVast(noKey).calls).toEqual([]);
  });

  it('a model that is not in the marketplace catalog', async () => {
    for (const [kind, body] of [
      ['llm-instance', { ...marketplaceLlm, model: 'nope:1b' }],
      ['benchmark', { ...marketplaceLlm, model: 'nope:1b', question: 'why?' }],
    ] as const) {
      const issue = expect422(await withKey.post(`/v1/jobs/${kind}`, body), 'model');
      expect(issue.message).toContain("'nope:1b'");
      expect(issue.message).toMatch(/catalog/);
    }
    // The catalog's own spelling variants are accepted (qwen3 → qwen3:8b): this one is fine.
    const ok = await withKey.post('/v1/jobs/llm-instance', { ...marketplaceLlm, model: 'qwen3', backend_warmup: false });
    expect(ok.status, JSON.stringify(ok.body)).toBe(202);
    await withKey.post(`/v1/jobs/${String(ok.body.job_id)}/cancel`, {});
    expect((await waitForEnd(withKey, String(ok.body.job_id))).job.status).toBe('cancelled');
  });

  it('an unknown agent: the message lists the available ones, env drivers included', async () => {
    const kubeconfig = mustK8s(withKey).kubeconfigPath;
    for (const [kind, body] of [
      ['agentic-agent', { question: 'why?', model: 'llama3.1:8b', agent: 'nosuch', backend_url: withKey.ollama.url, kubeconfig }],
      ['benchmark', { question: 'why?', model: 'llama3.1:8b', agent: 'nosuch', backend_url: withKey.ollama.url, kubeconfig }],
    ] as const) {
      const res = await withKey.post(`/v1/jobs/${kind}`, body);
      const issue = expect422(res, 'agent');
      expect(issue.message).toContain("'nosuch'");
      for (const name of ['builtin', 'holmes', 'k8sgpt', 'myagent', 'remote']) expect(issue.message).toContain(name);
      expect(String(res.body.detail)).toContain('builtin, holmes, k8sgpt, myagent, remote');
    }
  });

  it('a kubeconfig path that does not exist, given or from KUBECONFIG', async () => {
    const missing = path.join(withKey.dir, 'no-such-kubeconfig.yaml');
    const base = { question: 'why?', model: 'llama3.1:8b', agent: 'builtin', backend_url: withKey.ollama.url };
    for (const kind of ['agentic-agent', 'benchmark'] as const) {
      const issue = expect422(await withKey.post(`/v1/jobs/${kind}`, { ...base, kubeconfig: missing }), 'kubeconfig');
      expect(issue.message).toContain(missing);
    }
    const h = await startHarness({ env: { KUBECONFIG: missing } });
    try {
      const issue = expect422(await h.post('/v1/jobs/agentic-agent', base), 'kubeconfig');
      expect(issue.message).toContain(missing);
    } finally {
      await h.close();
    }
  });

  it('schema errors: unknown fields, wrong types, marketplace fields missing, a backend_url with marketplace', async () => {
    const h = withKey;
    expect422(await h.post('/v1/jobs/llm-instance', { backend_url: h.ollama.url, surprise: 1 }), '');
    expect422(await h.post('/v1/jobs/llm-instance', { backend_url: h.ollama.url, backend_warmup: 'true' }), 'backend_warmup');
    expect422(await h.post('/v1/jobs/llm-instance', { marketplace: true, model: 'llama3.1:8b', max_dph: 1 }), 'template_hash');
    expect422(await h.post('/v1/jobs/llm-instance', { ...marketplaceLlm, max_dph: undefined }), 'max_dph');
    expect422(await h.post('/v1/jobs/llm-instance', { ...marketplaceLlm, backend_url: h.ollama.url }), 'backend_url');
    expect422(await h.post('/v1/jobs/llm-instance', {}), 'backend_url');
    expect422(await h.post('/v1/jobs/benchmark', { ...marketplaceLlm, question: 'q', reliability: 99 }), 'reliability');
  });

  it('several problems are reported together', async () => {
    const res = await noKey.post('/v1/jobs/benchmark', { ...marketplaceLlm, model: 'nope:1b', question: 'q', agent: 'nosuch', kubeconfig: '/no/such/file' });
    expect(res.status).toBe(422);
    const paths = (res.body.errors as { path: string }[]).map((e) => e.path).sort();
    expect(paths).toEqual(['agent', 'kubeconfig', 'marketplace', 'model']);
  });
});
