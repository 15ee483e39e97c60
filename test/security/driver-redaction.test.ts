import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API_PATHS } from '../../shared';
import { startFakeKubernetes, type FakeKubernetes } from '../fakes/kubernetes';
import { startFakeOllama } from '../fakes/ollama';
import { getEvents, startHarness, tempDir, waitForEnd, type Harness } from '../workflows/harness';

/**
 * One redaction pass for what leaves a driver: a driver that prints the backend URL it was given
 * (`http://alice:<password>@…`) and the password on its own, on stderr, in a structured event and
 * in its error, must not put the password in the job's error or message, its events, the API's
 * answers, the files of the data dir or the log. The password lives only in secrets/.
 */

const PASSWORD = 'Wonderland-pa55';

const LEAKY_DRIVER = `
import { createInterface } from 'node:readline';
const rl = createInterface({ input: process.stdin });
rl.once('line', (text) => {
  const req = JSON.parse(text);
  const url = req.params.backend_url;
  const password = decodeURIComponent(new URL(url).password);
  process.stderr.write('connecting to ' + url + '\\n');
  process.stderr.write('@benchdesk-event ' + JSON.stringify({ event: 'agent.tool_call', status: 'error', message: 'login with ' + password + ' failed', labels: { url } }) + '\\n');
  process.stdout.write(JSON.stringify({ status: 'error', code: 'failed', error: 'cannot reach ' + url + ' (user alice, password ' + password + ')', id: req.id }) + '\\n');
});
`;

let k8s: FakeKubernetes;
let h: Harness;
let scratch: string;
const logged: string[] = [];
beforeAll(async () => {
  k8s = await startFakeKubernetes();
  scratch = await tempDir('benchdesk-leaky-');
  const driver = path.join(scratch, 'leaky.mjs');
  await writeFile(driver, LEAKY_DRIVER);
  h = await startHarness({ reuse: { ollama: await startFakeOllama(), k8s }, env: { BENCHDESK_DRIVER_LEAKY: `${process.execPath} ${driver}` } });
  for (const level of ['info', 'warn', 'error'] as const) {
    vi.spyOn(h.bd.log, level).mockImplementation((msg: string, fields?: Record<string, unknown>) => void logged.push(`${msg} ${JSON.stringify(fields ?? {})}`));
  }
});
afterAll(async () => {
  vi.restoreAllMocks();
  await h.close();
  await h.ollama.close();
  await k8s.close();
});

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) if (entry.isFile()) out.push(path.join(entry.parentPath, entry.name));
  return out;
}

describe('what a driver prints', () => {
  it('never puts the password of the backend URL in the job, its events, the API, the data dir or the log', async () => {
    const port = new URL(h.ollama.url).port;
    const res = await h.post('/v1/jobs/agentic-agent', {
      question: 'q',
      model: 'llama3.1:8b',
      agent: 'leaky',
      backend_url: `http://alice:${PASSWORD}@127.0.0.1:${port}`,
      kubeconfig: k8s.kubeconfigPath,
      backend_warmup: false,
    });
    expect(res.status).toBe(202);
    const id = String(res.body.job_id);
    const { job, events } = await waitForEnd(h, id);
    expect(job.status).toBe('failed');
    // What the driver said is kept, with the password masked wherever it appeared.
    expect(job.error).toContain(`cannot reach http://alice:***@127.0.0.1:${port}`);
    expect(job.error).toContain('password ***');
    expect(job.error).not.toContain(PASSWORD);
    expect(job.message).not.toContain(PASSWORD);
    expect(events.find((e) => e.event === 'agent.stderr')?.message).toBe(`connecting to http://alice:***@127.0.0.1:${port}`);
    expect(events.find((e) => e.event === 'agent.tool_call')?.message).toBe('login with *** failed');

    const served = [
      await h.get(API_PATHS.job(id)),
      await h.get(API_PATHS.jobs),
      await h.get(API_PATHS.jobEvents(id)),
      await h.get(`/v1/metrics/summary?job_id=${id}`),
    ];
    for (const answer of served) expect(JSON.stringify(answer.body)).not.toContain(PASSWORD);
    expect(JSON.stringify(await getEvents(h, id))).not.toContain(PASSWORD);

    await h.bd.store.flush();
    const files = (await filesUnder(h.dir)).filter((f) => !f.startsWith(path.join(h.dir, 'secrets')));
    expect(files.some((f) => f.includes(`${id}`))).toBe(true);
    for (const file of files) expect(await readFile(file, 'latin1'), file).not.toContain(PASSWORD);
    for (const line of logged) expect(line).not.toContain(PASSWORD);
  });
});
