import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobEvent, JobRecord } from '../../shared';
import { starterSuite } from '../../src-main/suites/starter';
import { DEFAULT_FAKE_MODELS, startFakeOllama, type ChatTurn } from '../fakes/ollama';
import { OLLAMA_TEMPLATE_HASH, startFakeVast } from '../fakes/vast';
import { ROOT, destroyCalls, ensureCliBuilt, expectInOrder, productEnv, startHarness, tempDir, waitForEnd, waitUntil } from './harness';

/**
 * A server killed in the middle of a suite on a rented machine: the next start ends the job
 * failed/interrupted and releases the machine, and the scenarios scored before the kill are
 * still in the job's events.
 */

const starter = starterSuite().suite;
const questionOf = (id: string) => starter.scenarios.find((s) => s.scenario_id === id)?.question ?? '';
const CRASH_ANSWER = 'orders-api is in CrashLoopBackOff: password authentication failed for user "orders".';
const SCRIPT: ChatTurn[] = [{ tool_calls: [{ name: 'list_unhealthy_pods', arguments: {} }] }, { content: 'I could not tell.', by_question: { [questionOf('crashloop-db-password')]: CRASH_ANSWER } }];

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('a crash mid-suite', () => {
  it('ends failed/interrupted on the next start, the machine released, the scored scenarios kept in the events', async () => {
    ensureCliBuilt();
    const ollama = await startFakeOllama({ models: DEFAULT_FAKE_MODELS, scripts: { 'llama3.1:8b': SCRIPT } });
    const vast = await startFakeVast();
    vast.setKnob('ollamaPort', Number(new URL(ollama.url).port));
    // The server polls at its own pace (3 s, then longer): the machine runs at the first poll, so the test is not a wait.
    vast.setKnob('pollsPerPhase', { scheduling: 0, created: 0, loading: 0 });
    const dir = await tempDir('benchdesk-suite-crash-');
    cleanups.push(async () => {
      await vast.close();
      await ollama.close();
      await rm(dir, { recursive: true, force: true });
    });
    const env = { ...productEnv({ vast }), BENCHDESK_DATA_DIR: dir, BENCHDESK_PORT: '0', BENCHDESK_LOG_LEVEL: 'warn' };
    const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, 'dist', 'main', 'server.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr?.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const apiUrl = await waitUntil(() => /benchdesk API listening on (\S+)/.exec(out)?.[1], `the server to listen (output: ${out})`, 20_000);

    const res = await fetch(`${apiUrl}/v1/jobs/suite`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        suite_id: 'starter',
        scenario_ids: ['crashloop-db-password', 'oomkilled', 'healthy-cluster'],
        marketplace: true,
        template_hash: OLLAMA_TEMPLATE_HASH,
        max_dph: 1,
        model: 'llama3.1:8b',
      }),
    });
    expect(res.status, await res.clone().text()).toBe(202);
    const { job_id: id } = (await res.json()) as { job_id: string };
    const eventsOf = async (): Promise<JobEvent[]> => ((await (await fetch(`${apiUrl}/v1/jobs/${id}/events`)).json()) as { events: JobEvent[] }).events;
    await waitUntil(async () => (await eventsOf()).some((e) => e.event === 'scenario.scored'), 'the first scenario to be scored', 30_000);
    // The next answers hang: the kill lands in the middle of the second scenario.
    ollama.setKnobs({ firstByteDelayMs: 60_000 });
    await waitUntil(async () => (await eventsOf()).filter((e) => e.event === 'scenario.started').length >= 2, 'the second scenario to start', 30_000);
    const running = (await (await fetch(`${apiUrl}/v1/jobs/${id}`)).json()) as JobRecord;
    expect(running.status).toBe('running');
    const instanceId = running.resources?.marketplace_instance_id ?? -1;
    expect(instanceId).toBeGreaterThan(0);
    child.kill('SIGKILL');
    await exited;
    expect(vast.state.instances.get(instanceId)?.destroyed).toBe(false);

    ollama.setKnobs({ firstByteDelayMs: 0 });
    const h = await startHarness({ dataDir: dir, start: true, reuse: { ollama, vast }, vast: true });
    cleanups.push(() => h.close());
    const { job, events } = await waitForEnd(h, id);
    expect(job).toMatchObject({ status: 'failed', error_code: 'interrupted' });
    expect(job.resources).toMatchObject({ marketplace_instance_id: instanceId, marketplace_instance_released: true });
    expect(destroyCalls(vast, instanceId).deletes).toBe(1);
    const scored = events.filter((e) => e.event === 'scenario.scored');
    expect(scored).toHaveLength(1);
    expect(scored[0]?.labels).toMatchObject({ scenario_id: 'crashloop-db-password', passed: true, score: 1, answer: CRASH_ANSWER });
    expectInOrder(events, ['scenario.scored:ok', 'scenario.started:started', 'job.recover:info', 'marketplace.instance.destroy:ok', 'job.failed:error']);
    // A server process started, a suite run on a rented machine, a SIGKILL and a second start: about 20 s
    // on two busy cores (its own waits are bounded above).
  }, 60_000);
});
