import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src-main/agents/events';
import { createAgentRegistry } from '../../src-main/agents/registry';
import { startFakeKubernetes, type FakeKubernetes } from '../fakes/kubernetes';

const DRIVER = path.join(import.meta.dirname, 'fixtures', 'fake-driver.mjs');
const SELF = [process.execPath, '/nonexistent/cli.js'];
let k8s: FakeKubernetes;

beforeAll(async () => {
  k8s = await startFakeKubernetes();
});
afterAll(async () => {
  await k8s.close();
});

const ask = () => ({ question: 'what is wrong?', model: 'llama3.1:8b', kubeconfig: k8s.kubeconfigPath, backend_url: 'http://127.0.0.1:11434' });

describe('agent registry', () => {
  it('lists builtin, holmes and k8sgpt, and user drivers from settings and the environment', () => {
    const registry = createAgentRegistry({
      selfCommand: SELF,
      drivers: { fromsettings: 'python3 -m drv', override: 'settings-cmd' },
      env: { PATH: process.env.PATH, BENCHDESK_DRIVER_MYAGENT: `node ${DRIVER}`, BENCHDESK_DRIVER_OVERRIDE: 'env-cmd', BENCHDESK_DRIVER_REMOTE: 'http://127.0.0.1:5050' },
    });
    expect(registry.listAgents()).toEqual(['builtin', 'fromsettings', 'holmes', 'k8sgpt', 'myagent', 'override', 'remote']);
    expect(registry.hasAgent('myagent')).toBe(true);
    expect(registry.hasAgent('MYAGENT')).toBe(false);
    const byName = Object.fromEntries(registry.describeAgents().map((d) => [d.name, d]));
    expect(byName.builtin).toEqual({ name: 'builtin', source: 'builtin', transport: 'in-process', command: null });
    expect(byName.holmes).toEqual({ name: 'holmes', source: 'bundled', transport: 'stdio', command: `${SELF.join(' ')} driver holmes` });
    expect(byName.override).toMatchObject({ source: 'environment', command: 'env-cmd' });
    expect(byName.fromsettings).toMatchObject({ source: 'settings', transport: 'stdio', command: 'python3 -m drv' });
    expect(byName.remote).toMatchObject({ source: 'environment', transport: 'http', command: 'http://127.0.0.1:5050' });
    expect(registry.warnings).toEqual([]);
  });

  it('ignores invalid entries with a warning and never replaces builtin', () => {
    const registry = createAgentRegistry({
      selfCommand: SELF,
      drivers: { 'Bad Name': 'x', builtin: 'evil' },
      env: { BENCHDESK_DRIVER_QUOTE: 'node "unterminated', BENCHDESK_DRIVER_EMPTY: '  ', BENCHDESK_DRIVER_: 'x' },
    });
    expect(registry.listAgents()).toEqual(['builtin', 'holmes', 'k8sgpt']);
    expect(registry.warnings).toEqual([
      "settings driver 'Bad Name': 'Bad Name' is not a valid agent name (lower-case letters, digits, _ and -); ignored",
      "settings driver 'builtin': the built-in agent cannot be replaced; ignored",
      'BENCHDESK_DRIVER_QUOTE: unterminated double quote in command line; ignored',
      'BENCHDESK_DRIVER_EMPTY: empty or overlong command line; ignored',
    ]);
    expect(registry.describeAgents().find((d) => d.name === 'builtin')?.transport).toBe('in-process');
  });

  it('an unknown agent names the available ones', () => {
    const registry = createAgentRegistry({ selfCommand: SELF, env: {} });
    expect(() => registry.resolveAgent('nope')).toThrow("unknown agent 'nope'; available agents: builtin, holmes, k8sgpt");
  });

  it('a user driver registered by BENCHDESK_DRIVER_MYAGENT works end to end', async () => {
    const registry = createAgentRegistry({
      selfCommand: SELF,
      env: { ...process.env, BENCHDESK_DRIVER_MYAGENT: `"${process.execPath}" ${DRIVER}`, BENCHDESK_AGENT_ENV: 'FAKE_DRIVER_*', FAKE_DRIVER_MODE: 'ok' },
    });
    const agent = registry.resolveAgent('myagent');
    expect(agent.transport).toBe('stdio');
    const events: AgentEvent[] = [];
    const stderr: string[] = [];
    const result = await agent.ask(ask(), { onEvent: (e) => events.push(e), onStderr: (l) => stderr.push(l) });
    expect(result.answer).toBe('echo: what is wrong?');
    // What the driver can't know is filled in; the registry name wins.
    expect(result.metadata).toMatchObject({ agent: 'myagent', model: 'llama3.1:8b', steps: 2, tool_calls: null, prompt_tokens: null });
    expect(result.metadata.duration_ms).toBeGreaterThan(0);
    expect(result.artifacts).toEqual([]);
    // The protocol params reached the driver, backend_type defaulted; unknown result keys are dropped.
    expect(result.metadata).toMatchObject({ seen_kubeconfig: k8s.kubeconfigPath, seen_backend_type: 'llmserver', seen_backend_url: 'http://127.0.0.1:11434' });
    expect(Object.keys(result)).toEqual(['answer', 'result_type', 'artifacts', 'metadata']);
    expect(stderr).toEqual(['thinking...', 'still thinking']);
    expect(events.map((e) => `${e.event}:${e.status}`)).toEqual(['agent.ask:started', 'agent.ask:ok']);
    expect(events[1]?.labels).toMatchObject({ agent: 'myagent', transport: 'stdio' });
  });

  it('passes structured driver events on, validated, and rejects results that are not agent results', async () => {
    const env = { ...process.env, BENCHDESK_DRIVER_MYAGENT: `"${process.execPath}" ${DRIVER}` };
    const events: AgentEvent[] = [];
    const stderr: string[] = [];
    const ok = await createAgentRegistry({ selfCommand: SELF, env: { ...env, BENCHDESK_AGENT_ENV: 'FAKE_DRIVER_*', FAKE_DRIVER_MODE: 'events' } })
      .resolveAgent('myagent')
      .ask(ask(), { onEvent: (e) => events.push(e), onStderr: (l) => stderr.push(l) });
    expect(ok.answer).toBe('with events');
    expect(events.map((e) => e.event)).toEqual(['agent.ask', 'agent.tool_call', 'agent.ask']);
    expect(events[1]).toMatchObject({ status: 'ok', duration_ms: 5, labels: { tool: 'x' }, message: null });
    expect(stderr).toEqual(['@benchdesk-event not json']);

    const err = await createAgentRegistry({ selfCommand: SELF, env: { ...env, BENCHDESK_AGENT_ENV: 'FAKE_DRIVER_*', FAKE_DRIVER_MODE: 'bad-result' } })
      .resolveAgent('myagent')
      .ask(ask())
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'invalid_response' });
    expect((err as Error).message).toMatch(/agent 'myagent' returned a result that is not an agent result \(answer:/);
  });

  it('a driver error becomes a failed agent.ask event', async () => {
    const events: AgentEvent[] = [];
    const registry = createAgentRegistry({
      selfCommand: SELF,
      env: { ...process.env, BENCHDESK_DRIVER_MYAGENT: `"${process.execPath}" ${DRIVER}`, BENCHDESK_AGENT_ENV: 'FAKE_DRIVER_*', FAKE_DRIVER_MODE: 'error' },
    });
    await expect(registry.resolveAgent('myagent').ask(ask(), { onEvent: (e) => events.push(e) })).rejects.toThrow(
      "driver 'myagent' reported an error: model llama9 is not available",
    );
    expect(events.at(-1)).toMatchObject({ event: 'agent.ask', status: 'error', error_type: 'driver_error' });
  });

  it('resolves the default kubeconfig from KUBECONFIG and validates params', async () => {
    const registry = createAgentRegistry({
      selfCommand: SELF,
      env: { ...process.env, KUBECONFIG: `${k8s.kubeconfigPath}:/other`, BENCHDESK_DRIVER_MYAGENT: `"${process.execPath}" ${DRIVER}`, BENCHDESK_AGENT_ENV: 'FAKE_DRIVER_*', FAKE_DRIVER_MODE: 'ok' },
    });
    const result = await registry.resolveAgent('myagent').ask({ question: 'q', model: 'm', backend_url: 'http://x' });
    expect(result.metadata.seen_kubeconfig).toBe(k8s.kubeconfigPath);
    const relative = await registry.resolveAgent('myagent').ask({ question: 'q', model: 'm', backend_url: 'http://x', kubeconfig: 'rel/kc' });
    expect(relative.metadata.seen_kubeconfig).toBe(path.resolve('rel/kc'));
    await expect(registry.resolveAgent('myagent').ask({ question: ' ', model: 'm', backend_url: 'http://x' })).rejects.toMatchObject({
      code: 'invalid_params',
    });
  });

  it('info of a user driver and of builtin', async () => {
    const registry = createAgentRegistry({
      selfCommand: SELF,
      env: { ...process.env, BENCHDESK_DRIVER_MYAGENT: `"${process.execPath}" ${DRIVER}`, BENCHDESK_AGENT_ENV: 'FAKE_DRIVER_*', FAKE_DRIVER_MODE: 'info' },
    });
    expect(await registry.resolveAgent('myagent').info()).toEqual({ name: 'fake', version: '9', actions: ['ask', 'info'] });
    expect(await registry.resolveAgent('builtin').info()).toEqual({ name: 'builtin', version: '1', actions: ['ask', 'info'] });
  });

  it('HTTP drivers: POST /v1/actions/ask then poll the job', async () => {
    const seen: { method: string; url: string; body: string }[] = [];
    let polls = 0;
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', body });
        res.setHeader('content-type', 'application/json');
        if (req.method === 'POST' && req.url === '/v1/actions/ask') return res.end(JSON.stringify({ job_id: 'j1' }));
        if (req.url === '/v1/jobs/j1') {
          polls++;
          return res.end(JSON.stringify(polls < 3 ? { status: 'running' } : { status: 'succeeded', result: { answer: 'remote answer', metadata: { tool_calls: 4 } } }));
        }
        res.statusCode = 404;
        res.end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const registry = createAgentRegistry({ selfCommand: SELF, env: { BENCHDESK_DRIVER_REMOTE: url } });
      const result = await registry.resolveAgent('remote').ask(ask());
      expect(result.answer).toBe('remote answer');
      expect(result.metadata).toMatchObject({ agent: 'remote', tool_calls: 4 });
      expect(JSON.parse(seen[0]?.body ?? '{}')).toMatchObject({ params: { question: 'what is wrong?', backend_type: 'llmserver' } });
      expect(polls).toBe(3);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
