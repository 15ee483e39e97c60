import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SweepRecordSchema, type SweepRecord } from '../../shared';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama';
import { FAKE_VAST_KEY, OLLAMA_TEMPLATE_HASH, startFakeVast, type FakeVast } from '../fakes/vast';
import { request, startServer, type ServerProcess } from '../helpers/server-process';
import { killChildren } from '../helpers/children';

// Whatever a failed test left running (a server, a CLI) is stopped.
afterAll(killChildren);

/**
 * SIGKILL of the real headless server in the middle of a sweep (a serving-benchmark job running on
 * the sweep's rented machine), then a restart on the same data dir: the start-up recovery fails
 * the interrupted job, releases the machine the killed process held, and resumes the unfinished
 * cells on a new machine; every cell ends scored with its $ per million output tokens, and
 * nothing is left billing.
 */

let ollama: FakeOllama;
let vast: FakeVast;
let dir: string;
const servers: ServerProcess[] = [];
const agent = new http.Agent({ keepAlive: false });

beforeAll(async () => {
  ollama = await startFakeOllama({
    models: [
      { name: 'llama3.1:8b', size: 4_920_753_328, family: 'llama', parameter_size: '8.0B', quantization_level: 'Q4_K_M' },
      { name: 'qwen2.5:7b', size: 4_683_087_332, family: 'qwen2', parameter_size: '7.6B', quantization_level: 'Q4_K_M' },
    ],
    // Known timing: each request streams its tokens over about half a second, so a job lasts seconds.
    knobs: { serving: { firstTokenMs: 30, tokenIntervalMs: 30 } },
  });
  vast = await startFakeVast({ knobs: { pollsPerPhase: { scheduling: 0, created: 0, loading: 0 } } });
  vast.setKnob('ollamaPort', Number(new URL(ollama.url).port));
  dir = await mkdtemp(path.join(os.tmpdir(), 'benchdesk-sweep-crash-'));
});

afterAll(async () => {
  for (const s of servers.splice(0)) await s.kill('SIGKILL');
  await vast?.close();
  await ollama?.close();
  await rm(dir, { recursive: true, force: true });
});

const env = (): NodeJS.ProcessEnv => ({ MARKETPLACE_API_URL: vast.url, VAST_API_KEY: FAKE_VAST_KEY, BENCHDESK_MARKETPLACE_PACING: '0' });

async function sweepOf(server: ServerProcess, id: string): Promise<SweepRecord> {
  const res = await request(agent, server.url, 'GET', `/v1/sweeps/${id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return SweepRecordSchema.parse(res.body);
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('SIGKILL mid-sweep', () => {
  it('the restart releases the held machine and resumes the unfinished cells; every cell gets its $/1M tokens', async () => {
    const first = await startServer(dir, { env: env() });
    servers.push(first);
    const created = await request(agent, first.url, 'POST', '/v1/sweeps', {
      name: 'serving after a crash',
      models: ['llama3.1:8b', 'qwen2.5:7b'],
      gpus: ['RTX 3090'],
      serving: { concurrency: [1, 2], requests_per_level: 6, prompt_tokens: 64, output_tokens: 16 },
      template_hash: OLLAMA_TEMPLATE_HASH,
      max_dph: 1,
      max_total_cost_usd: 5,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const id = String(created.body.sweep_id);

    // Killed while the first cell's serving job runs on the rented machine.
    const running = await until('the first cell running its job', async () => {
      const s = await sweepOf(first, id);
      return s.cells[0]?.status === 'running' && s.cells[0].job_ids.length === 1 && s.machines[0]?.instance_id !== undefined ? s : undefined;
    });
    const heldInstance = running.machines[0]?.instance_id as number;
    const interruptedJob = running.cells[0]?.job_ids[0] as string;
    // The cell runs once its job is submitted; the job itself may still be queued (on a busy machine,
    // long enough for the kill to find it so: the restart then runs it again and the sweep's recovery
    // cancels it). Killed once the job runs.
    await until('the first cell\'s job running', async () => {
      const job = await request(agent, first.url, 'GET', `/v1/jobs/${interruptedJob}`);
      return (job.body as { status?: string }).status === 'running' ? true : undefined;
    });
    await first.kill('SIGKILL');
    servers.splice(servers.indexOf(first), 1);
    // The machine outlived the process: it still bills until someone releases it.
    expect(vast.liveInstances().map((i) => i.id)).toEqual([heldInstance]);

    const second = await startServer(dir, { env: env() });
    servers.push(second);
    const done = await until('the resumed sweep to end', async () => {
      const s = await sweepOf(second, id);
      return s.status === 'succeeded' || s.status === 'failed' || s.status === 'cancelled' ? s : undefined;
    }, 120_000);

    expect(done.status, JSON.stringify(done.cells)).toBe('succeeded');
    for (const cell of done.cells) {
      expect(cell.status, JSON.stringify(cell)).toBe('succeeded');
      expect(cell.output_tokens_per_s).toBeGreaterThan(0);
      expect(cell.usd_per_million_output_tokens).toBeGreaterThan(0);
      expect(cell.ttft_p50_ms).toBeGreaterThan(0);
    }
    // The interrupted cell ran again with a new job; its first job ended as interrupted.
    expect(done.cells[0]?.job_ids).toHaveLength(2);
    const old = await request(agent, second.url, 'GET', `/v1/jobs/${interruptedJob}`);
    expect(old.body).toMatchObject({ status: 'failed', error_code: 'interrupted' });
    // The held machine was released by the recovery; the resumed cells ran on a second one, released too.
    expect(done.earlier_machines.map((m) => m.instance_id)).toEqual([heldInstance]);
    expect(done.earlier_machines[0]?.released).toBe(true);
    expect(vast.callsTo('asks')).toHaveLength(2);
    expect(vast.liveInstances()).toHaveLength(0);
    expect(done.spend_usd).toBeCloseTo([...done.earlier_machines, ...done.machines].reduce((sum, m) => sum + m.cost_usd, 0), 6);
    expect(done.ranking).toHaveLength(2);
  }, 180_000);
});
