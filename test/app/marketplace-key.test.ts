import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MarketplaceKeyHolder, keyHint } from '../../src-main/app/marketplace-key';
import { ProblemError } from '../../src-main/app/problem-error';
import { createBenchdesk } from '../../src-main/composition/start';
import { FAKE_VAST_KEY, startFakeVast, type FakeVast } from '../fakes/vast';

const ENV_KEY = 'env-key-aaaaaaaaaaaa1111';
const APP_KEY = 'app-key-bbbbbbbbbbbb2222';

describe('MarketplaceKeyHolder', () => {
  it('uses the app key before VAST_API_KEY and falls back to it when the app key is cleared', async () => {
    const persisted: (string | null)[] = [];
    const holder = new MarketplaceKeyHolder({
      baseUrl: 'http://127.0.0.1:9/api/v0',
      environmentKey: ENV_KEY,
      persist: async (key) => {
        persisted.push(key);
      },
    });
    expect(holder.state()).toEqual({ configured: true, source: 'env', hint: '1111', environment_key: true });
    const envClient = holder.client();
    expect(holder.client()).toBe(envClient);

    expect(holder.canStore).toBe(true);
    await holder.store(`  ${APP_KEY}\n`);
    expect(persisted).toEqual([APP_KEY]);
    expect(holder.state()).toEqual({ configured: true, source: 'app', hint: '2222', environment_key: true });
    expect(holder.client()).not.toBe(envClient);

    await holder.store(null);
    expect(persisted).toEqual([APP_KEY, null]);
    expect(holder.state().source).toBe('env');
  });

  it('without a way to persist (headless) it refuses to store', async () => {
    const holder = new MarketplaceKeyHolder({ baseUrl: 'http://127.0.0.1:9/api/v0' });
    expect(holder.client()).toBeNull();
    expect(holder.state()).toEqual({ configured: false, source: null, hint: null, environment_key: false });
    expect(holder.canStore).toBe(false);
    await expect(holder.store(APP_KEY)).rejects.toMatchObject({ status: 409, code: 'marketplace_not_configured' });
  });

  it('rejects keys that cannot be keys (422) without persisting them', async () => {
    const persisted: (string | null)[] = [];
    const holder = new MarketplaceKeyHolder({ baseUrl: 'http://x/api/v0', persist: async (k) => void persisted.push(k) });
    for (const bad of ['', '   ', 'abc def', 'abc\u0000def', 'x'.repeat(513), 'vast-key-€-0123456789', 'ключ-0123456789', 'café-0123456789']) {
      const err = await holder.store(bad).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ProblemError);
      expect(err).toMatchObject({ status: 422, code: 'validation_failed' });
    }
    expect(persisted).toEqual([]);
    expect(holder.state().configured).toBe(false);
  });

  it('says why a key that is not printable ASCII is refused, and ignores one given at start instead of failing', () => {
    const holder = new MarketplaceKeyHolder({ baseUrl: 'http://x/api/v0' });
    // A job's held key that cannot be sent gets no client (it would throw inside fetch), instead of an exception.
    expect(holder.clientFor('vast-key-€-0123456789')).toBeNull();
    expect(holder.clientFor('vast-key-0123456789')).not.toBeNull();
    const warnings: string[] = [];
    const started = new MarketplaceKeyHolder({ baseUrl: 'http://x/api/v0', environmentKey: 'env-ключ-0123', appKey: 'app-€-0123456789', warn: (m) => void warnings.push(m) });
    expect(started.state()).toMatchObject({ configured: false, source: null });
    expect(started.client()).toBeNull();
    expect(started.current()).toBeNull();
    expect(warnings).toEqual([
      'VAST_API_KEY is ignored: the marketplace key must be printable ASCII (letters, digits and punctuation): it contains a character outside that range, which cannot be sent to the marketplace; set a valid key in Settings or the environment',
      'the marketplace key stored by the app is ignored: the marketplace key must be printable ASCII (letters, digits and punctuation): it contains a character outside that range, which cannot be sent to the marketplace; set a valid key in Settings or the environment',
    ]);
  });

  it('shows at most the last four characters, and nothing of short keys', () => {
    expect(keyHint('0123456789abcdef')).toBe('cdef');
    expect(keyHint('short')).toBeNull();
  });

  it('tells listeners about changes', async () => {
    const holder = new MarketplaceKeyHolder({ baseUrl: 'http://x/api/v0', persist: async () => undefined });
    const seen: (string | null)[] = [];
    const off = holder.onChange((s) => seen.push(s.source));
    await holder.store(APP_KEY);
    off();
    await holder.store(null);
    expect(seen).toEqual(['app']);
  });
});

describe('the desktop app supplies its key without a restart', () => {
  let vast: FakeVast;
  let dataDir: string;
  beforeAll(async () => {
    vast = await startFakeVast();
    dataDir = await mkdtemp(path.join(tmpdir(), 'benchdesk-mkey-'));
  });
  afterAll(async () => {
    await vast.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('estimates switch from the price range to live offers once the key is stored, and back when cleared', async () => {
    const stored: (string | null)[] = [];
    const bd = await createBenchdesk({
      dataDir,
      logger: false,
      env: { MARKETPLACE_API_URL: vast.url },
      appMarketplaceKey: { persist: async (key) => void stored.push(key) },
    });
    try {
      const request = { marketplace: true, min_dph: 0.05, max_dph: 5, estimated_duration_seconds: 3600 };
      const before = await bd.client().createEstimate(request);
      expect(before.basis).toBe('price_range');
      expect(vast.callsTo('bundles')).toHaveLength(0);

      await bd.marketplaceKey.store(FAKE_VAST_KEY);
      expect(stored).toEqual([FAKE_VAST_KEY]);
      const live = await bd.client().createEstimate(request);
      expect(live.basis).toBe('live_offers');
      expect(vast.callsTo('bundles').length).toBeGreaterThan(0);

      await bd.marketplaceKey.store(null);
      expect((await bd.client().createEstimate(request)).basis).toBe('price_range');
    } finally {
      await bd.close();
    }
  });

  it('a key given at start is in use from the first call (start-up recovery needs it)', async () => {
    const bd = await createBenchdesk({ dataDir, logger: false, env: { MARKETPLACE_API_URL: vast.url }, appMarketplaceKey: { key: FAKE_VAST_KEY } });
    try {
      expect(bd.marketplaceKey.state()).toMatchObject({ configured: true, source: 'app', environment_key: false });
      expect((await bd.client().createEstimate({ marketplace: true, min_dph: 0.05, max_dph: 5 })).basis).toBe('live_offers');
      // Headless-style: no persist → Settings cannot store a key here.
      expect(bd.marketplaceKey.canStore).toBe(false);
    } finally {
      await bd.close();
    }
  });
});
