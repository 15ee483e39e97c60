import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDriver } from '../../src-main/agents/driver-main';
import { buildDriverEntry } from './build-driver';

let selfCommand: string[];
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ selfCommand, cleanup } = await buildDriverEntry());
}, 60_000);
afterAll(async () => {
  await cleanup();
});

/** Runs `driver <name>` as a real child with the given stdin; resolves with its output. */
function runChild(name: string, input: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const [cmd = '', ...args] = selfCommand;
    const child = spawn(cmd, [...args, 'driver', name], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

function lines(stdout: string): unknown[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as unknown);
}

describe('driver process loop (real child process)', () => {
  it('answers info, unknown actions, invalid JSON and invalid requests, skips blank lines, exits 0 at EOF', async () => {
    const input = [
      JSON.stringify({ action: 'info', params: {}, id: 'a1' }),
      '',
      '   ',
      JSON.stringify({ action: 'dance', params: {}, id: 'a2' }),
      '{not json',
      JSON.stringify({ params: {}, id: 'a3' }),
      JSON.stringify({ action: 'ask', params: { question: 'q' }, id: 'a4' }),
      JSON.stringify({ action: 'info', id: 'a5' }),
    ].join('\n');
    const { code, stdout } = await runChild('builtin', `${input}\n`);
    expect(code).toBe(0);
    const responses = lines(stdout);
    expect(responses).toHaveLength(6);
    expect(responses[0]).toEqual({ status: 'ok', result: { name: 'builtin', version: '1', actions: ['ask', 'info'] }, id: 'a1' });
    expect(responses[1]).toEqual({ status: 'error', error: "unknown action 'dance'; supported actions: ask, info", id: 'a2' });
    expect(responses[2]).toMatchObject({ status: 'error', id: '' });
    expect((responses[2] as { error: string }).error).toMatch(/^invalid JSON request/);
    expect(responses[3]).toMatchObject({ status: 'error', id: 'a3' });
    expect((responses[3] as { error: string }).error).toMatch(/^invalid request: action/);
    expect(responses[4]).toMatchObject({ status: 'error', id: 'a4' });
    expect((responses[4] as { error: string }).error).toMatch(/^invalid ask params: model/);
    expect(responses[5]).toMatchObject({ status: 'ok', id: 'a5' });
  });

  it('each bundled driver reports its name', async () => {
    for (const name of ['holmes', 'k8sgpt']) {
      const { stdout } = await runChild(name, `${JSON.stringify({ action: 'info', params: {}, id: 'x' })}\n`);
      expect(lines(stdout)[0]).toMatchObject({ status: 'ok', result: { name } });
    }
  });

  it('an unknown driver name exits 2 with a message', async () => {
    const { code, stdout, stderr } = await runChild('nope', '');
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/unknown agent 'nope'; available: builtin, holmes, k8sgpt/);
  });

  it('ask errors come back as error responses (missing kubeconfig named by path)', async () => {
    const req = { action: 'ask', params: { question: 'q', model: 'm', kubeconfig: '/nonexistent/kc', backend_url: 'http://127.0.0.1:9' }, id: 'k1' };
    const { code, stdout } = await runChild('builtin', `${JSON.stringify(req)}\n`);
    expect(code).toBe(0);
    // The kind travels in `code`: this agent ran and failed (not "not installed", "timed out" or "bad output").
    expect(lines(stdout)[0]).toEqual({ status: 'error', error: 'kubeconfig not found: /nonexistent/kc', code: 'failed', id: 'k1' });
  });
});

describe('runDriver in-process', () => {
  it('works on any streams and returns 0 at EOF', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    stdout.on('data', (d: Buffer) => (out += d.toString()));
    const done = runDriver('k8sgpt', { stdin, stdout, stderr });
    stdin.end(`${JSON.stringify({ action: 'info', params: {}, id: '1' })}\r\n\n`);
    expect(await done).toBe(0);
    expect(lines(out)).toEqual([{ status: 'ok', result: { name: 'k8sgpt', version: '1', actions: ['ask', 'info'] }, id: '1' }]);
  });
});
