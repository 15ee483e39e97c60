import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiTokenResponseSchema, MarketplaceKeyTestResponseSchema, SettingsResponseSchema, SpendSummarySchema, UpdateSettingsResponseSchema } from '../../shared';
import { SettingsStore } from '../../src-main/app/settings';
import { createBenchdesk, type Benchdesk } from '../../src-main/composition/start';
import { FAKE_VAST_KEY, startFakeVast, type FakeVast } from '../fakes/vast';

/**
 * The Settings and Overview operations through the HTTP pipeline (fastify inject): the settings
 * round trip, token rotation taking effect at once, the marketplace key test, the spend summary.
 */

type Setup = { bd: Benchdesk; dir: string; token: string; vast: FakeVast | null };
const setups: Setup[] = [];
afterEach(async () => {
  for (const s of setups.splice(0)) {
    await s.bd.close();
    await s.vast?.close();
    await rm(s.dir, { recursive: true, force: true });
  }
});

async function setup(options: { vast?: boolean; vastKey?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Setup> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'benchdesk-settings-api-'));
  // The app token exists before start (as after the desktop app's first run).
  const { token } = await new SettingsStore(dir).ensureApiToken();
  const vast = options.vast ? await startFakeVast({}) : null;
  const env: NodeJS.ProcessEnv = { BENCHDESK_SHUTDOWN_GRACE_S: '0', ...options.env };
  if (vast) {
    env.MARKETPLACE_API_URL = vast.url;
    env.VAST_API_KEY = options.vastKey ?? FAKE_VAST_KEY;
  }
  const bd = await createBenchdesk({ dataDir: dir, env, logger: false, port: 0 });
  const s = { bd, dir, token, vast };
  setups.push(s);
  return s;
}

async function call(s: Setup, method: 'GET' | 'POST', url: string, token: string, payload?: unknown) {
  const res = await s.bd.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${token}` },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
  return { status: res.statusCode, body: JSON.parse(res.body) as Record<string, unknown> };
}

describe('settings operations', () => {
  it('round trip: read, partial update (validated), read back; concurrency applies without a restart', async () => {
    const s = await setup();
    const first = SettingsResponseSchema.parse((await call(s, 'GET', '/v1/settings', s.token)).body);
    expect(first.settings.concurrency).toBe(4);
    expect(first.sources.concurrency).toBe('default');
    expect(first.effects.concurrency).toBe('now');
    expect(first.environment.data_dir).toBe(s.dir);
    expect(first.environment.auth).toBe('enabled');
    expect(first.environment.marketplace_key).toMatchObject({ configured: false, source: null, can_store: false });

    const upd = await call(s, 'POST', '/v1/settings', s.token, { concurrency: 1, default_backend_url: 'http://127.0.0.1:11434', spend_confirm_threshold_usd: 2 });
    expect(upd.status).toBe(200);
    const updated = UpdateSettingsResponseSchema.parse(upd.body);
    expect(updated.changed.sort()).toEqual(['concurrency', 'default_backend_url', 'spend_confirm_threshold_usd']);
    expect(updated.sources.concurrency).toBe('settings');
    expect(updated.restart_required).toEqual([]);

    const bad = await call(s, 'POST', '/v1/settings', s.token, { concurrency: 0, color: 'red' });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body.errors)).toContain('concurrency');

    const again = SettingsResponseSchema.parse((await call(s, 'GET', '/v1/settings', s.token)).body);
    expect(again.settings).toMatchObject({ concurrency: 1, default_backend_url: 'http://127.0.0.1:11434', spend_confirm_threshold_usd: 2 });
    // Applied to the running engine: the limit the engine pumps with is the new one.
    expect((s.bd.engine as unknown as { concurrency: number }).concurrency).toBe(1);
  });

  it('BENCHDESK_CONCURRENCY in the environment wins and is reported as the source', async () => {
    const s = await setup({ env: { BENCHDESK_CONCURRENCY: '7' } });
    await call(s, 'POST', '/v1/settings', s.token, { concurrency: 2 });
    const res = SettingsResponseSchema.parse((await call(s, 'GET', '/v1/settings', s.token)).body);
    expect(res.sources.concurrency).toBe('env');
    expect((s.bd.engine as unknown as { concurrency: number }).concurrency).toBe(7);
  });

  it('token rotation: the old token gets 401 at once, the new one works, the file is rewritten 0600', async () => {
    const s = await setup();
    const shown = ApiTokenResponseSchema.parse((await call(s, 'GET', '/v1/settings/api-token', s.token)).body);
    expect(shown.token).toBe(s.token);
    const rotated = await call(s, 'POST', '/v1/settings/api-token/rotate', s.token, {});
    expect(rotated.status).toBe(200);
    const next = ApiTokenResponseSchema.parse(rotated.body).token;
    expect(next).toBeTruthy();
    expect(next).not.toBe(s.token);
    expect((await call(s, 'GET', '/v1/jobs', s.token)).status).toBe(401);
    expect((await call(s, 'GET', '/v1/jobs', next ?? '')).status).toBe(200);
    const file = path.join(s.dir, 'api-token');
    expect((await readFile(file, 'utf8')).trim()).toBe(next);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('four rotations at once: each answers 200 in turn, the file holds the token the server accepts, GET shows it (issue 34 item 6)', async () => {
    const s = await setup();
    const answers = await Promise.all(Array.from({ length: 4 }, () => call(s, 'POST', '/v1/settings/api-token/rotate', s.token, {})));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const tokens = answers.map((a) => ApiTokenResponseSchema.parse(a.body).token ?? '');
    expect(new Set(tokens).size).toBe(4);
    const inFile = (await readFile(path.join(s.dir, 'api-token'), 'utf8')).trim();
    expect(tokens).toContain(inFile);
    // Exactly the token in the file is accepted: the last rotation's.
    const accepted = [];
    for (const token of tokens) if ((await call(s, 'GET', '/v1/jobs', token)).status === 200) accepted.push(token);
    expect(accepted).toEqual([inFile]);
    expect(ApiTokenResponseSchema.parse((await call(s, 'GET', '/v1/settings/api-token', inFile)).body).token).toBe(inFile);
    // No temporary file is left beside it.
    expect((await readdir(s.dir)).filter((name) => name.includes('.tmp'))).toEqual([]);
  });

  it('the marketplace key: env source, "test key" asks the marketplace; a wrong key is reported, not thrown', async () => {
    const s = await setup({ vast: true });
    const info = SettingsResponseSchema.parse((await call(s, 'GET', '/v1/settings', s.token)).body);
    expect(info.environment.marketplace_key).toMatchObject({ configured: true, source: 'env', can_store: false });
    const ok = MarketplaceKeyTestResponseSchema.parse((await call(s, 'POST', '/v1/settings/marketplace-key/test', s.token, {})).body);
    expect(ok).toMatchObject({ ok: true, source: 'env' });
    expect(s.vast?.calls.some((c) => c.endpoint === 'user')).toBe(true);
    const wrong = MarketplaceKeyTestResponseSchema.parse((await call(s, 'POST', '/v1/settings/marketplace-key/test', s.token, { key: 'not-the-right-key-1234' })).body);
    expect(wrong.ok).toBe(false);
    expect(wrong.message).not.toContain('not-the-right-key-1234');
    // Headless: the key cannot be stored through the API.
    expect((await call(s, 'POST', '/v1/settings/marketplace-key', s.token, { key: 'abc' })).status).toBe(409);
  });

  it('without a key, "test key" says where a key comes from', async () => {
    const s = await setup();
    const res = MarketplaceKeyTestResponseSchema.parse((await call(s, 'POST', '/v1/settings/marketplace-key/test', s.token, {})).body);
    expect(res.ok).toBe(false);
    expect(res.message).toContain('VAST_API_KEY');
  });

  it('spend summary of an empty data dir is zero', async () => {
    const s = await setup();
    const spend = SpendSummarySchema.parse((await call(s, 'GET', '/v1/spend', s.token)).body);
    expect(spend.today).toMatchObject({ cost_usd: 0, jobs: 0 });
    expect(spend.this_month).toMatchObject({ cost_usd: 0, jobs: 0 });
    expect(spend.tenant_id).toBe('default');
  });
});
