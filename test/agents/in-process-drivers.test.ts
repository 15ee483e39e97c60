import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentError } from '../../src-main/agents/errors';
import { createAgentRegistry } from '../../src-main/agents/registry';
import { startFakeKubernetes, type FakeKubernetes } from '../fakes/kubernetes';
import { pathWithFakeAgents, pathWithoutAgents } from './build-driver';

/**
 * The desktop app's bundled drivers (bundledTransport 'in-process'): holmes and k8sgpt answer
 * without a `benchdesk driver` child, so the packaged app (runAsNode fuse off, no Node on PATH)
 * can still use them. selfCommand points nowhere: were it used, every ask would fail to spawn.
 */

const NO_SELF = ['/nonexistent/benchdesk-electron-binary', '/nonexistent/cli.js'];

let k8s: FakeKubernetes;
beforeAll(async () => {
  k8s = await startFakeKubernetes();
});
afterAll(async () => {
  await k8s.close();
});

const params = () => ({
  question: 'Why is the web app down?',
  model: 'llama3.1:8b',
  kubeconfig: k8s.kubeconfigPath,
  backend_url: 'http://127.0.0.1:11434/',
});
// The fakes' knobs reach them only because BENCHDESK_AGENT_ENV lists them (agent programs get an allow-listed environment).
const fakeEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ ...process.env, PATH: pathWithFakeAgents(), BENCHDESK_AGENT_ENV: 'FAKE_HOLMES_*,FAKE_K8SGPT_*', ...extra });

describe('bundled drivers in-process (the desktop app)', () => {
  it('holmes and k8sgpt answer without a driver child process; their stderr is surfaced', async () => {
    const registry = createAgentRegistry({ selfCommand: NO_SELF, env: fakeEnv(), bundledTransport: 'in-process' });
    expect(registry.describeAgents().filter((a) => a.source === 'bundled')).toEqual([
      { name: 'holmes', source: 'bundled', transport: 'in-process', command: null },
      { name: 'k8sgpt', source: 'bundled', transport: 'in-process', command: null },
    ]);
    const stderr: string[] = [];
    const events: string[] = [];
    const holmes = await registry.resolveAgent('holmes').ask(params(), { onStderr: (l) => stderr.push(l), onEvent: (e) => events.push(`${e.event}:${e.status}`) });
    expect(holmes.answer).toMatch(/CrashLoopBackOff/);
    expect(holmes.metadata).toMatchObject({ agent: 'holmes', tool_calls: 2 });
    expect(stderr).toContain('Loaded toolsets: kubernetes/core, kubernetes/logs');
    expect(events).toEqual(['agent.ask:started', 'agent.ask:ok']);

    const k8sgpt = await registry.resolveAgent('k8sgpt').ask(params());
    expect(k8sgpt.answer).toMatch(/k8sgpt found 2 problem/);
    expect(k8sgpt.metadata).toMatchObject({ agent: 'k8sgpt', problems: 2 });
    expect(await registry.resolveAgent('holmes').info()).toEqual({ name: 'holmes', version: '1', actions: ['ask', 'info'] });
  });

  it('not installed → the agent error names what to install (code not_installed, no driver wrapping)', async () => {
    const registry = createAgentRegistry({ selfCommand: NO_SELF, env: { ...process.env, PATH: pathWithoutAgents() }, bundledTransport: 'in-process' });
    const err = await registry.resolveAgent('holmes').ask(params()).then(
      () => new Error('expected a failure'),
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(AgentError);
    expect(err).toMatchObject({ code: 'not_installed', message: expect.stringContaining('pipx install holmesgpt') });
    await expect(registry.resolveAgent('k8sgpt').ask(params())).rejects.toMatchObject({ code: 'not_installed' });
  });

  it('is cancellable and bounded by the driver time limit', async () => {
    const registry = createAgentRegistry({ selfCommand: NO_SELF, env: fakeEnv({ FAKE_HOLMES_SLEEP_MS: '10000' }), bundledTransport: 'in-process', killGraceMs: 200 });
    const controller = new AbortController();
    const asked = registry.resolveAgent('holmes').ask(params(), { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    await expect(asked).rejects.toMatchObject({ code: 'cancelled' });

    const limited = createAgentRegistry({ selfCommand: NO_SELF, env: fakeEnv({ FAKE_HOLMES_SLEEP_MS: '10000' }), bundledTransport: 'in-process', timeoutMs: 400, killGraceMs: 200 });
    await expect(limited.resolveAgent('holmes').ask(params())).rejects.toMatchObject({ code: 'timeout' });
  });

  it('the default stays the child-process driver (headless server and CLI)', () => {
    const registry = createAgentRegistry({ selfCommand: ['/usr/bin/node', '/x/cli.js'], env: fakeEnv() });
    const bundled = registry.describeAgents().filter((a) => a.source === 'bundled');
    expect(bundled.map((a) => [a.name, a.transport, a.command])).toEqual([
      ['holmes', 'stdio', '/usr/bin/node /x/cli.js driver holmes'],
      ['k8sgpt', 'stdio', '/usr/bin/node /x/cli.js driver k8sgpt'],
    ]);
  });
});
