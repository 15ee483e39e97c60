import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentError } from '../../src-main/agents/errors';
import { createAgentRegistry } from '../../src-main/agents/registry';
import { startFakeKubernetes, type FakeKubernetes } from '../fakes/kubernetes';
import { ensureCliBuilt, getJob, mustK8s, startHarness, submit, waitUntil } from '../workflows/harness';
import { buildDriverEntry, pathWithFakeAgents } from './build-driver';

/**
 * Agent programs leave nothing behind: cancel, timeout and server shutdown stop the whole process
 * group (SIGTERM, then SIGKILL after the grace period), the driver, `holmes` and the `kubectl` it
 * started included, and remove the run's temporary directory. The stand-in holmes starts a child
 * and, with FAKE_HOLMES_IGNORE_TERM, both ignore SIGTERM. The call settles only once they are gone,
 * so every check below is made right after it settles, without waiting.
 */

const FAKE_DRIVER = path.join(import.meta.dirname, 'fixtures', 'fake-driver.mjs');

let k8s: FakeKubernetes;
let dir: string;
let selfCommand: string[];
let cleanup: () => Promise<void>;

beforeAll(async () => {
  k8s = await startFakeKubernetes();
  dir = await mkdtemp(path.join(tmpdir(), 'benchdesk-process-tree-'));
  ({ selfCommand, cleanup } = await buildDriverEntry());
}, 60_000);
afterAll(async () => {
  await Promise.all([k8s.close(), rm(dir, { recursive: true, force: true }), cleanup()]);
});

/** Running and not a zombie (a container's PID 1 may never reap an orphan). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}

async function jsonWhenWritten<T>(file: string): Promise<T> {
  return waitUntil(() => {
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as T;
    } catch {
      return null;
    }
  }, `${file} to be written`);
}

type HolmesPids = { driver: number; holmes: number; kubectl: number; output: string };

const params = () => ({ question: 'Why is the web app down?', model: 'llama3.1:8b', kubeconfig: k8s.kubeconfigPath, backend_url: 'http://127.0.0.1:11434' });
let n = 0;
const infoFile = () => path.join(dir, `pids-${++n}.json`);

function holmesEnv(info: string): NodeJS.ProcessEnv {
  return { ...process.env, PATH: pathWithFakeAgents(), BENCHDESK_AGENT_ENV: 'FAKE_HOLMES_*', FAKE_HOLMES_HANG: info, FAKE_HOLMES_IGNORE_TERM: '1' };
}

function expectAllGone(pids: HolmesPids): void {
  expect(isAlive(pids.kubectl), 'the stand-in kubectl').toBe(false);
  expect(isAlive(pids.holmes), 'holmes').toBe(false);
  expect(isAlive(pids.driver), 'the driver process').toBe(false);
  // The holmes driver's temporary directory (its --json-output-file lives there).
  expect(existsSync(path.dirname(pids.output)), path.dirname(pids.output)).toBe(false);
}

describe('agent process trees', () => {
  it('cancel: `benchdesk driver holmes`, holmes and its kubectl child are all stopped, SIGTERM-deaf ones by SIGKILL, and the temp dir is removed', async () => {
    const info = infoFile();
    const registry = createAgentRegistry({ selfCommand, env: holmesEnv(info), killGraceMs: 300 });
    const controller = new AbortController();
    const asked = registry.resolveAgent('holmes').ask(params(), { signal: controller.signal });
    const pids = await jsonWhenWritten<HolmesPids>(info);
    expect([pids.driver, pids.holmes, pids.kubectl].every(isAlive)).toBe(true);
    controller.abort();
    const err = await asked.then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(AgentError);
    expect(err).toMatchObject({ code: 'cancelled' });
    expectAllGone(pids);
  });

  it('timeout: the same, when the call runs out of time', async () => {
    const info = infoFile();
    const registry = createAgentRegistry({ selfCommand, env: holmesEnv(info), killGraceMs: 300, timeoutMs: 1500 });
    const asked = registry.resolveAgent('holmes').ask(params());
    const pids = await jsonWhenWritten<HolmesPids>(info);
    const err = await asked.then(() => null, (e: unknown) => e);
    expect(err).toMatchObject({ code: 'timeout' });
    expectAllGone(pids);
  });

  it('the desktop app (holmes run in-process): cancel stops holmes and its child and removes the temp dir', async () => {
    const info = infoFile();
    const registry = createAgentRegistry({ selfCommand: ['/nonexistent'], env: holmesEnv(info), killGraceMs: 300, bundledTransport: 'in-process' });
    const controller = new AbortController();
    const asked = registry.resolveAgent('holmes').ask(params(), { signal: controller.signal });
    const pids = await jsonWhenWritten<HolmesPids>(info);
    controller.abort();
    expect(await asked.then(() => null, (e: unknown) => e)).toMatchObject({ code: 'cancelled' });
    expect(isAlive(pids.kubectl)).toBe(false);
    expect(isAlive(pids.holmes)).toBe(false);
    expect(existsSync(path.dirname(pids.output))).toBe(false);
  });

  it('a driver of your own gets a temp dir of its own (TMPDIR), removed with its process group on cancel', async () => {
    const pidfile = infoFile();
    const registry = createAgentRegistry({
      selfCommand,
      env: { ...process.env, BENCHDESK_DRIVER_STANDIN: `${process.execPath} ${FAKE_DRIVER}`, FAKE_DRIVER_MODE: 'hang-in-tmp', FAKE_DRIVER_PIDFILE: pidfile, BENCHDESK_AGENT_ENV: 'FAKE_DRIVER_*' },
      killGraceMs: 300,
    });
    const controller = new AbortController();
    const asked = registry.resolveAgent('standin').ask(params(), { signal: controller.signal });
    const seen = await jsonWhenWritten<{ driver: number; child: number; tmpdir: string; scratch: string }>(pidfile);
    expect(path.resolve(seen.tmpdir)).not.toBe(path.resolve(tmpdir()));
    expect(existsSync(seen.scratch)).toBe(true);
    controller.abort();
    expect(await asked.then(() => null, (e: unknown) => e)).toMatchObject({ code: 'cancelled' });
    expect(isAlive(seen.driver)).toBe(false);
    expect(isAlive(seen.child)).toBe(false);
    expect(existsSync(seen.tmpdir)).toBe(false);
  });

  it('server shutdown stops the running agents of every job, holmes and a driver of your own, and removes their temp dirs', async () => {
    // The bundled holmes driver runs as `node dist/main/cli.js driver holmes`.
    ensureCliBuilt();
    const holmesInfo = infoFile();
    const standinInfo = infoFile();
    const h = await startHarness({
      k8s: true,
      env: {
        PATH: pathWithFakeAgents(),
        BENCHDESK_AGENT_ENV: 'FAKE_HOLMES_* FAKE_DRIVER_*',
        FAKE_HOLMES_HANG: holmesInfo,
        FAKE_HOLMES_IGNORE_TERM: '1',
        BENCHDESK_DRIVER_STANDIN: `${process.execPath} ${FAKE_DRIVER}`,
        FAKE_DRIVER_MODE: 'hang-in-tmp',
        FAKE_DRIVER_PIDFILE: standinInfo,
      },
    });
    try {
      const body = (agent: string) => ({ question: 'q', model: 'llama3.1:8b', agent, backend_url: h.ollama.url, kubeconfig: mustK8s(h).kubeconfigPath, backend_warmup: false });
      const holmesJob = await submit(h, 'agentic-agent', body('holmes'));
      await submit(h, 'agentic-agent', body('standin'));
      const pids = await jsonWhenWritten<HolmesPids>(holmesInfo);
      const standin = await jsonWhenWritten<{ driver: number; child: number; tmpdir: string }>(standinInfo);
      expect((await getJob(h, holmesJob)).status).toBe('running');
      await h.closeProduct();
      expectAllGone(pids);
      expect(isAlive(standin.driver)).toBe(false);
      expect(isAlive(standin.child)).toBe(false);
      expect(existsSync(standin.tmpdir)).toBe(false);
    } finally {
      await h.close();
    }
  }, 30_000);
});
