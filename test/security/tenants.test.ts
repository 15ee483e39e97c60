import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SettingsResponseSchema, type BenchdeskClient } from '../../shared';
import { BenchdeskApiError, createHttpClient } from '../../shared/client';
import { registerIpcDispatch } from '../../src-main/adapter/ipc-dispatch';
import { startBenchdesk, type Benchdesk } from '../../src-main/composition/start';
import { createPreloadApi } from '../../src-main/electron/preload-api';
import { createIpcClient } from '../../src-renderer/bridge/ipc-client';
import { FAKE_VAST_KEY, startFakeVast, type FakeVast } from '../fakes/vast';
import { forbiddenProblem, memoryIpc, type TransportName } from '../contract/transports';

/**
 * The tenant model: settings, the marketplace key, key tests and the app token belong to the app's
 * own tenant (`default`). Another tenant may read the settings (without the key's hint or any
 * account data) and gets 403 `forbidden_tenant` for everything else, over HTTP, IPC and the
 * in-process client alike, whatever it sends.
 */

const APP_TOKEN = 'app-token-0123456789';
const OTHER_TOKEN = 'other-token-0123456789';

let bd: Benchdesk & { apiUrl: string };
let vast: FakeVast;
let dir: string;
let removeIpc: () => void;
const clients = {} as Record<TransportName, BenchdeskClient>;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'benchdesk-tenants-'));
  vast = await startFakeVast({});
  bd = await startBenchdesk({
    dataDir: dir,
    env: {
      SERVICE_API_TOKENS: `default:${APP_TOKEN},other:${OTHER_TOKEN}`,
      MARKETPLACE_API_URL: vast.url,
      VAST_API_KEY: FAKE_VAST_KEY,
      BENCHDESK_SHUTDOWN_GRACE_S: '0',
    },
    logger: false,
    port: 0,
  });
  const ipc = memoryIpc();
  removeIpc = registerIpcDispatch({
    ipcMain: ipc.ipcMain,
    handlers: bd.handlers,
    tenantId: 'other',
    checkSender: (event) => (event.sender === ipc.sender ? null : forbiddenProblem()),
  });
  clients.http = createHttpClient({ baseUrl: bd.apiUrl, token: OTHER_TOKEN, tenant: 'other' });
  clients['in-process'] = bd.client('other');
  clients.ipc = createIpcClient(createPreloadApi(ipc.ipcRenderer));
});
afterAll(async () => {
  removeIpc();
  await bd.close();
  await vast.close();
  await rm(dir, { recursive: true, force: true });
});

async function raw(method: 'GET' | 'POST', url: string, tenant: 'default' | 'other', payload?: unknown) {
  const res = await bd.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${tenant === 'default' ? APP_TOKEN : OTHER_TOKEN}`, 'x-tenant-id': tenant },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
  return { status: res.statusCode, type: String(res.headers['content-type']), body: JSON.parse(res.body) as Record<string, unknown> };
}

async function refusal(p: Promise<unknown>): Promise<BenchdeskApiError> {
  const err = await p.then(
    () => new Error('expected a refusal'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BenchdeskApiError);
  return err as BenchdeskApiError;
}

const settingsFile = () => readFile(path.join(dir, 'settings.json'), 'utf8').catch(() => '');

describe('tenants and the app settings', () => {
  it('another tenant gets 403 forbidden_tenant over HTTP for every settings change, key call and token call, whatever it sends', async () => {
    const before = await settingsFile();
    const userCallsBefore = vast.callsTo('user').length;
    const attempts: [string, unknown][] = [
      ['/v1/settings', { default_max_cost_usd: 0.000001, release_orphans_automatically: true, concurrency: 1 }],
      ['/v1/settings', { concurrency: 'not a number', color: 'red' }],
      ['/v1/settings/marketplace-key', { key: 'stolen' }],
      ['/v1/settings/marketplace-key/test', {}],
      ['/v1/settings/marketplace-key/test', { key: 'candidate' }],
      ['/v1/settings/api-token/rotate', {}],
    ];
    for (const [url, body] of attempts) {
      const res = await raw('POST', url, 'other', body);
      expect(res.status, `${url} ${JSON.stringify(res.body)}`).toBe(403);
      expect(res.type).toContain('application/problem+json');
      expect(res.body).toMatchObject({ status: 403, code: 'forbidden_tenant' });
      expect(String(res.body.detail)).toContain("tenant 'other'");
      expect(String(res.body.detail)).toContain("app's own tenant ('default')");
    }
    const token = await raw('GET', '/v1/settings/api-token', 'other');
    expect(token.status).toBe(403);
    expect(token.body.code).toBe('forbidden_tenant');

    // Nothing changed, the marketplace was never asked, the app token still works.
    expect(await settingsFile()).toBe(before);
    expect(vast.callsTo('user').length).toBe(userCallsBefore);
    expect((bd.engine as unknown as { concurrency: number }).concurrency).toBe(4);
    expect((await raw('GET', '/v1/settings', 'default')).status).toBe(200);
  });

  it('the same refusal over IPC and the in-process client', async () => {
    for (const name of ['ipc', 'in-process', 'http'] as const) {
      const client = clients[name];
      const calls: (() => Promise<unknown>)[] = [
        () => client.updateSettings({ default_max_cost_usd: 0.000001 }),
        () => client.setMarketplaceKey({ key: 'stolen' }),
        () => client.testMarketplaceKey({}),
        () => client.getApiToken(undefined),
        () => client.rotateApiToken(undefined),
      ];
      for (const call of calls) {
        const err = await refusal(call());
        expect(err.problem, name).toMatchObject({ status: 403, code: 'forbidden_tenant' });
      }
    }
    expect(bd.settings.appSettings().default_max_cost_usd).toBeNull();
  });

  it('another tenant reads the settings without the key hint, account data or the right to change them', async () => {
    const theirs = await raw('GET', '/v1/settings', 'other');
    expect(theirs.status).toBe(200);
    const seen = SettingsResponseSchema.parse(theirs.body);
    expect(seen.access).toEqual({ tenant_id: 'other', can_change: false });
    expect(seen.environment.marketplace_key).toMatchObject({ configured: true, source: 'env', hint: null, can_store: false });
    expect(JSON.stringify(theirs.body)).not.toContain(FAKE_VAST_KEY.slice(-4));

    const ours = SettingsResponseSchema.parse((await raw('GET', '/v1/settings', 'default')).body);
    expect(ours.access).toEqual({ tenant_id: 'default', can_change: true });
    expect(ours.environment.marketplace_key.hint).toBe(FAKE_VAST_KEY.slice(-4));
  });

  it('the app tenant changes settings, tests the key and shows the token as before', async () => {
    const updated = await raw('POST', '/v1/settings', 'default', { spend_confirm_threshold_usd: 3 });
    expect(updated.status).toBe(200);
    const test = await raw('POST', '/v1/settings/marketplace-key/test', 'default', {});
    expect(test.status).toBe(200);
    expect(test.body.ok).toBe(true);
    expect((await raw('GET', '/v1/settings/api-token', 'default')).status).toBe(200);
    expect(bd.settings.appSettings().spend_confirm_threshold_usd).toBe(3);
  });

  it('the OpenAPI document declares the 403 of each app-tenant operation', async () => {
    const doc = (await raw('GET', '/v1/openapi.json', 'default')).body as { paths: Record<string, Record<string, { responses: Record<string, { $ref?: string }> }>>; components: { responses: Record<string, { description: string }> } };
    for (const [p, m] of [
      ['/v1/settings', 'post'],
      ['/v1/settings/marketplace-key', 'post'],
      ['/v1/settings/marketplace-key/test', 'post'],
      ['/v1/settings/api-token', 'get'],
      ['/v1/settings/api-token/rotate', 'post'],
    ] as const) {
      expect(doc.paths[p]?.[m]?.responses['403']?.$ref, `${m} ${p}`).toBe('#/components/responses/ForbiddenTenant');
    }
    expect(doc.paths['/v1/settings']?.get?.responses['403']?.$ref).toBe('#/components/responses/Forbidden');
    expect(doc.components.responses.ForbiddenTenant?.description).toContain('forbidden_tenant');
  });
});
