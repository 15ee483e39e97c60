import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobErrorWording } from '../../shared';
import { startFakeKubernetes, type FakeKubernetes } from '../fakes/kubernetes';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama';
import { pathWithoutAgents } from '../agents/build-driver';
import { ensureCliBuilt, pathWithFakeAgents, startHarness, submit, waitForEnd } from './harness';

/**
 * "Not installed", "timed out", "bad output" and "the agent failed" stay apart across the driver
 * protocol: the bundled holmes driver runs as a `benchdesk driver holmes` child, reports the kind in
 * its error line (`code`), and the job gets its own error_code for each, which the CLI and the app
 * word (shared/job-errors.ts).
 */

let ollama: FakeOllama;
let k8s: FakeKubernetes;
beforeAll(async () => {
  ensureCliBuilt();
  [ollama, k8s] = await Promise.all([startFakeOllama(), startFakeKubernetes()]);
}, 60_000);
afterAll(async () => {
  await Promise.all([ollama.close(), k8s.close()]);
});

async function holmesFails(env: NodeJS.ProcessEnv): Promise<{ error_code: string | null; error: string | null }> {
  const h = await startHarness({ reuse: { ollama, k8s }, env: { BENCHDESK_AGENT_ENV: 'FAKE_HOLMES_*', ...env } });
  try {
    const id = await submit(h, 'agentic-agent', { question: 'What is failing?', model: 'llama3.1:8b', agent: 'holmes', backend_url: ollama.url, kubeconfig: k8s.kubeconfigPath, backend_warmup: false });
    const { job } = await waitForEnd(h, id, 30_000);
    expect(job.status).toBe('failed');
    return { error_code: job.error_code, error: job.error };
  } finally {
    await h.close();
  }
}

describe('agent failures keep their kind across the driver protocol', () => {
  it('holmes not installed → agent_not_installed, naming how to install it', async () => {
    const failed = await holmesFails({ PATH: pathWithoutAgents() });
    expect(failed.error_code).toBe('agent_not_installed');
    expect(failed.error).toContain('pipx install holmesgpt');
  });

  it('holmes running out of time inside its driver → agent_timeout', async () => {
    // 16 s for the call: the driver gives holmes 1 s (15 s less) and answers with a timeout error.
    const failed = await holmesFails({ PATH: pathWithFakeAgents(), BENCHDESK_AGENT_TIMEOUT_S: '16', FAKE_HOLMES_SLEEP_MS: '20000' });
    expect(failed.error_code).toBe('agent_timeout');
    expect(failed.error).toMatch(/holmes did not finish within .*its processes were stopped/);
  });

  it('holmes writing a result that is not JSON → agent_bad_output', async () => {
    const failed = await holmesFails({ PATH: pathWithFakeAgents(), FAKE_HOLMES_GARBAGE: '1' });
    expect(failed.error_code).toBe('agent_bad_output');
    expect(failed.error).toMatch(/not JSON/);
  });

  it('holmes exiting with an error → agent_failed', async () => {
    const failed = await holmesFails({ PATH: pathWithFakeAgents(), FAKE_HOLMES_EXIT: '1' });
    expect(failed.error_code).toBe('agent_failed');
    expect(failed.error).toMatch(/exit code 1/);
  });

  it('a driver of your own that cannot be started → agent_not_installed', async () => {
    const h = await startHarness({ reuse: { ollama, k8s }, env: { BENCHDESK_DRIVER_GHOST: '/nonexistent/bin/ghost-agent --serve' } });
    try {
      const id = await submit(h, 'agentic-agent', { question: 'q', model: 'llama3.1:8b', agent: 'ghost', backend_url: ollama.url, kubeconfig: k8s.kubeconfigPath, backend_warmup: false });
      const { job } = await waitForEnd(h, id);
      expect(job.error_code).toBe('agent_not_installed');
      expect(job.error).toContain('command not found');
    } finally {
      await h.close();
    }
  });

  it('every agent error code has wording for the CLI and the app', () => {
    for (const code of ['agent_not_installed', 'agent_timeout', 'agent_bad_output', 'agent_failed']) expect(jobErrorWording(code), code).not.toBeNull();
  });
});
