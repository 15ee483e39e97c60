import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverAskParams } from '../../src-main/agents/driver-wire';
import { askHolmes } from '../../src-main/agents/drivers/holmes';
import { askK8sgpt } from '../../src-main/agents/drivers/k8sgpt';
import { AgentError } from '../../src-main/agents/errors';
import { createAgentRegistry } from '../../src-main/agents/registry';
import { startFakeKubernetes, type FakeKubernetes } from '../fakes/kubernetes';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama';
import { buildDriverEntry, pathWithFakeAgents, pathWithoutAgents } from './build-driver';

let k8s: FakeKubernetes;
let ollama: FakeOllama;
let dir: string;
let selfCommand: string[];
let cleanup: () => Promise<void>;

beforeAll(async () => {
  k8s = await startFakeKubernetes();
  ollama = await startFakeOllama({ scripts: { 'qwen2.5:7b': [{ content: 'holmes asked the fake ollama' }] } });
  dir = await mkdtemp(path.join(tmpdir(), 'benchdesk-cli-drivers-'));
  ({ selfCommand, cleanup } = await buildDriverEntry());
}, 60_000);
afterAll(async () => {
  await Promise.all([k8s.close(), ollama.close(), rm(dir, { recursive: true, force: true }), cleanup()]);
});

const params = (over: Partial<DriverAskParams> = {}): DriverAskParams => ({
  question: 'Why is the web app down?',
  model: 'llama3.1:8b',
  kubeconfig: k8s.kubeconfigPath,
  backend_type: 'llmserver',
  backend_api: 'ollama',
  backend_url: 'http://127.0.0.1:11434/',
  ...over,
});
// The fakes' knobs reach them only because BENCHDESK_AGENT_ENV lists them (agent programs get an allow-listed environment).
const fakeEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ ...process.env, PATH: pathWithFakeAgents(), BENCHDESK_AGENT_ENV: 'FAKE_HOLMES_*,FAKE_K8SGPT_*', ...extra });

async function failure(p: Promise<unknown>): Promise<AgentError> {
  const err = await p.then(
    () => new Error('expected a failure'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AgentError);
  return err as AgentError;
}

async function leftovers(prefix: string): Promise<string[]> {
  return (await readdir(dir)).filter((f) => f.startsWith(prefix));
}

describe('holmes driver (fake holmes on PATH)', () => {
  it('runs holmes ask with the documented flags and env and maps the LLMResult', async () => {
    const record = path.join(dir, 'holmes-record.json');
    const stderr: string[] = [];
    const result = await askHolmes(params({ question: '-why is it down?' }), {
      env: fakeEnv({ FAKE_HOLMES_RECORD: record, OPENAI_API_BASE: '' }),
      tmpDir: dir,
      onStderrLine: (l) => stderr.push(l),
    });
    const seen = JSON.parse(readFileSync(record, 'utf8')) as { argv: string[]; env: Record<string, string | null> };
    expect(seen.argv.slice(0, 4)).toEqual(['ask', '--model=ollama_chat/llama3.1:8b', '--no-interactive', '--json-output-file']);
    expect(seen.argv.slice(5)).toEqual(['--', '-why is it down?']);
    expect(seen.env).toMatchObject({ KUBECONFIG: k8s.kubeconfigPath, OLLAMA_API_BASE: 'http://127.0.0.1:11434' });

    expect(result.answer).toMatch(/shop\/web-7d9c8b6f5-x2k4q is in CrashLoopBackOff/);
    expect(result.metadata).toMatchObject({ agent: 'holmes', model: 'llama3.1:8b', tool_calls: 2, prompt_tokens: 1234, completion_tokens: 56, steps: null, tokens_per_second: null, total_cost: 0 });
    expect(result.artifacts[0]).toMatchObject({ kind: 'tool_calls', data: [{ tool: 'kubectl_get_by_kind_in_cluster', status: 'success' }, { tool: 'kubectl_logs' }] });
    expect(stderr).toContain('Loaded toolsets: kubernetes/core, kubernetes/logs');
    expect(await leftovers('benchdesk-holmes-')).toEqual([]);
  });

  it('reaches the LLM through OLLAMA_API_BASE (fake holmes calls the fake Ollama)', async () => {
    const result = await askHolmes(params({ model: 'qwen2.5:7b', backend_url: ollama.url }), { env: fakeEnv({ FAKE_HOLMES_CALL_OLLAMA: '1' }), tmpDir: dir });
    expect(result.answer).toBe('holmes asked the fake ollama');
    expect(ollama.callsTo('/api/chat').at(-1)?.body).toMatchObject({ model: 'qwen2.5:7b' });
  });

  it('keeps an explicit LiteLLM ollama prefix', async () => {
    const record = path.join(dir, 'holmes-prefix.json');
    await askHolmes(params({ model: 'ollama_chat/phi3' }), { env: fakeEnv({ FAKE_HOLMES_RECORD: record }), tmpDir: dir });
    expect((JSON.parse(readFileSync(record, 'utf8')) as { argv: string[] }).argv[1]).toBe('--model=ollama_chat/phi3');
  });

  it('not installed → says how to install it', async () => {
    const err = await failure(askHolmes(params(), { env: { PATH: pathWithoutAgents() }, tmpDir: dir }));
    expect(err.code).toBe('not_installed');
    expect(err.message).toBe('holmes is not installed or not on PATH; install HolmesGPT with `pipx install holmesgpt` (it also needs kubectl on PATH)');
  });

  it('failing, silent, garbage and slow runs are clear errors', async () => {
    const exit = await failure(askHolmes(params(), { env: fakeEnv({ FAKE_HOLMES_EXIT: '1' }), tmpDir: dir }));
    expect(exit.code).toBe('exit_nonzero');
    expect(exit.message).toMatch(/^holmes failed \(exit code 1\): Loaded toolsets.*\| stdout: Error: litellm\.APIConnectionError/);

    expect((await failure(askHolmes(params(), { env: fakeEnv({ FAKE_HOLMES_NO_FILE: '1' }), tmpDir: dir }))).code).toBe('no_output');
    expect((await failure(askHolmes(params(), { env: fakeEnv({ FAKE_HOLMES_GARBAGE: '1' }), tmpDir: dir }))).code).toBe('invalid_json');

    const slow = await failure(askHolmes(params(), { env: fakeEnv({ FAKE_HOLMES_SLEEP_MS: '10000' }), tmpDir: dir, timeoutMs: 400, killGraceMs: 200 }));
    expect(slow.code).toBe('timeout');
    expect(await leftovers('benchdesk-holmes-')).toEqual([]);
  });

  it('is cancellable', async () => {
    const controller = new AbortController();
    const p = askHolmes(params(), { env: fakeEnv({ FAKE_HOLMES_SLEEP_MS: '10000' }), tmpDir: dir, signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    expect((await failure(p)).code).toBe('cancelled');
  });
});

describe('k8sgpt driver (fake k8sgpt on PATH)', () => {
  it('writes the ollama backend into a private config, analyzes, and writes an answer', async () => {
    const record = path.join(dir, 'k8sgpt-record.jsonl');
    const result = await askK8sgpt(params(), { env: fakeEnv({ FAKE_K8SGPT_RECORD: record }), tmpDir: dir });
    const runs = readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { argv?: string[]; provider?: unknown; mode?: number });
    expect(runs).toHaveLength(2); // one k8sgpt run: analyze
    const analyze = runs[0]?.argv ?? [];
    const config = analyze[analyze.indexOf('--config') + 1];
    expect(analyze).toEqual(['analyze', '--explain', '--backend', 'ollama', '--output', 'json', '--no-cache', '--kubeconfig', k8s.kubeconfigPath, '--config', config]);
    expect(runs[1]?.provider).toEqual({ name: 'ollama', model: 'llama3.1:8b', baseurl: 'http://127.0.0.1:11434', temperature: 0.7 });
    if (process.platform !== 'win32') expect(runs[1]?.mode).toBe(0o600);

    expect(result.answer).toMatch(/^k8sgpt found 2 problem\(s\):/);
    expect(result.answer).toContain('**Pod shop/web-7d9c8b6f5-x2k4q** (parent Deployment/web)');
    expect(result.answer).toContain('back-off 5m0s restarting failed container=web');
    expect(result.answer).toContain('Explanation: Error: the container keeps crashing.');
    expect(result.metadata).toMatchObject({ agent: 'k8sgpt', model: 'llama3.1:8b', problems: 2, tool_calls: null });
    expect(result.artifacts[0]).toMatchObject({ kind: 'k8sgpt_results' });
    expect(await leftovers('benchdesk-k8sgpt-')).toEqual([]);
  });

  it('keeps backend credentials off the command line: they are in the owner-only config only', async () => {
    const record = path.join(dir, 'k8sgpt-credentials-record.jsonl');
    await askK8sgpt(params({ backend_url: 'http://bench:s3cret-pass@127.0.0.1:11434' }), { env: fakeEnv({ FAKE_K8SGPT_RECORD: record }), tmpDir: dir });
    const runs = readFileSync(record, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { argv?: string[]; provider?: { baseurl?: string } });
    expect(runs.flatMap((r) => r.argv ?? []).join(' ')).not.toContain('s3cret');
    expect(runs[1]?.provider?.baseurl).toBe('http://bench:s3cret-pass@127.0.0.1:11434');
    expect(await leftovers('benchdesk-k8sgpt-')).toEqual([]);
  });

  it('tolerates a warning line before the JSON; reports a clean cluster', async () => {
    const warned = await askK8sgpt(params(), { env: fakeEnv({ FAKE_K8SGPT_WARNING: '1' }), tmpDir: dir });
    expect(warned.answer).toMatch(/^k8sgpt found 2 problem/);
    const clean = await askK8sgpt(params(), { env: fakeEnv({ FAKE_K8SGPT_EMPTY: '1' }), tmpDir: dir });
    expect(clean.answer).toBe('k8sgpt found no problems in the cluster.');
  });

  it('not installed, failing, garbage and slow runs are clear errors', async () => {
    const missing = await failure(askK8sgpt(params(), { env: { PATH: pathWithoutAgents() }, tmpDir: dir }));
    expect(missing.code).toBe('not_installed');
    expect(missing.message).toMatch(/^k8sgpt is not installed or not on PATH; install k8sgpt from https:\/\/k8sgpt\.ai/);

    const exit = await failure(askK8sgpt(params(), { env: fakeEnv({ FAKE_K8SGPT_EXIT: '1' }), tmpDir: dir }));
    expect(exit.code).toBe('exit_nonzero');
    expect(exit.message).toMatch(/^k8sgpt analyze failed \(exit code 1\): Error: failed while calling AI provider ollama/);

    const garbage = await failure(askK8sgpt(params(), { env: fakeEnv({ FAKE_K8SGPT_GARBAGE: '1' }), tmpDir: dir }));
    expect(garbage.code).toBe('invalid_json');

    const slow = await failure(askK8sgpt(params(), { env: fakeEnv({ FAKE_K8SGPT_SLEEP_MS: '10000' }), tmpDir: dir, timeoutMs: 600, killGraceMs: 200 }));
    expect(slow.code).toBe('timeout');
    expect(await leftovers('benchdesk-k8sgpt-')).toEqual([]);
  });
});

describe('holmes and k8sgpt through the registry (real `driver <name>` child processes)', () => {
  it('holmes and k8sgpt answer; their stderr is surfaced', async () => {
    const registry = createAgentRegistry({ selfCommand, env: fakeEnv() });
    const stderr: string[] = [];
    const holmes = await registry.resolveAgent('holmes').ask(params(), { onStderr: (l) => stderr.push(l) });
    expect(holmes.answer).toMatch(/CrashLoopBackOff/);
    expect(holmes.metadata).toMatchObject({ agent: 'holmes', tool_calls: 2 });
    expect(stderr).toContain('Loaded toolsets: kubernetes/core, kubernetes/logs');
    const k8sgpt = await registry.resolveAgent('k8sgpt').ask(params());
    expect(k8sgpt.answer).toMatch(/k8sgpt found 2 problem/);
    expect(k8sgpt.metadata).toMatchObject({ agent: 'k8sgpt', problems: 2 });
  });

  it('not installed → the driver answers status:error with code not_installed, naming what to install', async () => {
    const registry = createAgentRegistry({ selfCommand, env: { ...process.env, PATH: pathWithoutAgents() } });
    await expect(registry.resolveAgent('holmes').ask(params())).rejects.toMatchObject({
      code: 'not_installed',
      message: "driver 'holmes' reported an error: holmes is not installed or not on PATH; install HolmesGPT with `pipx install holmesgpt` (it also needs kubectl on PATH)",
    });
    await expect(registry.resolveAgent('k8sgpt').ask(params())).rejects.toMatchObject({ code: 'not_installed', message: expect.stringMatching(/driver 'k8sgpt' reported an error: k8sgpt is not installed/) });
  });
});
