import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentRegistry } from '../../src-main/agents/registry';
import { startFakeKubernetes, type FakeKubernetes } from '../fakes/kubernetes';
import { buildDriverEntry, pathWithFakeAgents } from './build-driver';

/**
 * Agent programs get an allow-listed environment, never the server's secrets: the bundled holmes
 * driver (as a `benchdesk driver holmes` child and in-process, as in the desktop app), and a
 * driver of your own. holmes also gets LITELLM_LOCAL_MODEL_COST_MAP=True (no network at import).
 */

const FAKE_DRIVER = path.join(import.meta.dirname, 'fixtures', 'fake-driver.mjs');
const SECRETS = { VAST_API_KEY: 'vast-key-should-not-leak', SERVICE_API_TOKENS: 'default:t0ken', BENCHDESK_TOKEN: 't0ken', UNLISTED_SECRET: 'hush' };

let k8s: FakeKubernetes;
let dir: string;
let selfCommand: string[];
let cleanup: () => Promise<void>;
beforeAll(async () => {
  k8s = await startFakeKubernetes();
  dir = await mkdtemp(path.join(tmpdir(), 'benchdesk-driver-env-'));
  ({ selfCommand, cleanup } = await buildDriverEntry());
}, 60_000);
afterAll(async () => {
  await Promise.all([k8s.close(), rm(dir, { recursive: true, force: true }), cleanup()]);
});

const params = () => ({ question: 'Why is the web app down?', model: 'llama3.1:8b', kubeconfig: k8s.kubeconfigPath, backend_url: 'http://127.0.0.1:11434' });

type Record_ = { env: Record<string, string | null>; env_names: string[]; litellm_local_cost_map: string | null };

describe('the environment of agent programs', () => {
  for (const transport of ['driver', 'in-process'] as const) {
    it(`holmes (${transport === 'driver' ? 'a `benchdesk driver holmes` child' : 'in-process, the desktop app'}) gets the allow-list, KUBECONFIG, OLLAMA_API_BASE and LITELLM_LOCAL_MODEL_COST_MAP=True, never our secrets`, async () => {
      const record = path.join(dir, `holmes-${transport}.json`);
      const registry = createAgentRegistry({
        selfCommand,
        bundledTransport: transport,
        env: { ...process.env, ...SECRETS, PATH: pathWithFakeAgents(), LC_ALL: 'C.UTF-8', OVERRIDE_MAX_CONTENT_SIZE: '32768', BENCHDESK_AGENT_ENV: 'FAKE_HOLMES_*', FAKE_HOLMES_RECORD: record },
      });
      await registry.resolveAgent('holmes').ask(params());
      const seen = JSON.parse(readFileSync(record, 'utf8')) as Record_;
      expect(seen.litellm_local_cost_map).toBe('True');
      expect(seen.env).toMatchObject({ KUBECONFIG: k8s.kubeconfigPath, OLLAMA_API_BASE: 'http://127.0.0.1:11434' });
      expect(seen.env_names).toEqual(expect.arrayContaining(['PATH', 'HOME', 'LC_ALL', 'OVERRIDE_MAX_CONTENT_SIZE', 'FAKE_HOLMES_RECORD']));
      for (const name of Object.keys(SECRETS)) expect(seen.env_names).not.toContain(name);
    });
  }

  it('a driver of your own gets the allow-list and what BENCHDESK_AGENT_ENV names, never our secrets even when named, and a TMPDIR removed after the call', async () => {
    const registry = createAgentRegistry({
      selfCommand,
      env: {
        ...process.env,
        ...SECRETS,
        MYAGENT_MODEL_DIR: '/models',
        BENCHDESK_DRIVER_MINE: `${process.execPath} ${FAKE_DRIVER}`,
        FAKE_DRIVER_MODE: 'env',
        BENCHDESK_AGENT_ENV: 'FAKE_DRIVER_MODE MYAGENT_* VAST_API_KEY SERVICE_API_TOKENS',
      },
    });
    const result = await registry.resolveAgent('mine').ask(params());
    const names = String(result.metadata.env_names).split(',');
    expect(names).toEqual(expect.arrayContaining(['PATH', 'HOME', 'MYAGENT_MODEL_DIR', 'TMPDIR']));
    for (const name of Object.keys(SECRETS)) expect(names).not.toContain(name);
    const callTmp = String(result.metadata.tmpdir);
    expect(path.resolve(callTmp)).not.toBe(path.resolve(tmpdir()));
    expect(existsSync(callTmp)).toBe(false);
  });
});
