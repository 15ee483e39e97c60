import { expect } from 'vitest';
import { VastClient, type VastClientOptions } from '../../src-main/marketplace/vast-client';
import { FAKE_VAST_KEY, type FakeVast } from '../fakes/vast';

/** A client against the fake with fast, deterministic retries. */
export function clientFor(vast: FakeVast, overrides: Partial<VastClientOptions> = {}): VastClient {
  return new VastClient({
    baseUrl: vast.url,
    apiKey: FAKE_VAST_KEY,
    timeoutMs: 2_000,
    retry: { maxAttempts: 4, initialDelayMs: 5, factor: 1.5, maxDelayMs: 20, jitter: 0 },
    ...overrides,
    // The fake rate-limits only when a test asks it to: no pacing unless the test sets some.
    pacing: { scale: 0, ...overrides.pacing },
  });
}

/** The key travels only in the Authorization header: never in a URL, query or body. */
export function expectKeyOnlyInHeader(vast: FakeVast, key = FAKE_VAST_KEY): void {
  for (const call of vast.calls) {
    expect(call.url).not.toContain(key);
    expect(call.rawBody).not.toContain(key);
    expect(call.query).not.toHaveProperty('api_key');
  }
}

/** A value the test expects to exist (instead of a non-null assertion). */
export function must<T>(value: T | null | undefined, what = 'value'): T {
  if (value === null || value === undefined) throw new Error(`expected ${what} to be present`);
  return value;
}
