import { VastClient } from '../marketplace/vast-client';
import { ProblemError } from './problem-error';

/**
 * Which marketplace key the providers use, changeable while the server runs. Headless, the key
 * comes from VAST_API_KEY. The desktop app also has one it keeps encrypted (Electron safeStorage):
 * given at start (so start-up recovery can release machines with it) and again whenever Settings
 * saves or clears it, without a restart. A key the user saved in the app wins over the
 * environment's; clearing it falls back to VAST_API_KEY.
 */

/** `env` = VAST_API_KEY; `app` = stored encrypted by the desktop app (the names shared/settings.ts uses). */
export type MarketplaceKeySource = 'env' | 'app';

export type MarketplaceKeyState = {
  configured: boolean;
  /** Where the key in use comes from; null when there is none. */
  source: MarketplaceKeySource | null;
  /** The last four characters of the key in use (never more), for recognising it; null for short keys. */
  hint: string | null;
  /** VAST_API_KEY is set (it takes over when the app's key is cleared). */
  environment_key: boolean;
};

/** Persists the app's key (the desktop app encrypts it with safeStorage into settings.json). */
export type PersistMarketplaceKey = (key: string | null) => Promise<void>;

/** The last four characters, or null for keys too short to show any part of. */
export function keyHint(key: string): string | null {
  return key.length >= 12 ? key.slice(-4) : null;
}

/** Trims and rejects what cannot be a key (422): empty, whitespace inside, control characters, absurd length. */
export function normaliseMarketplaceKey(raw: string): string {
  const key = raw.trim();
  const invalid = (message: string) => ProblemError.validation([{ path: 'key', message }], 'marketplace key');
  if (key.length === 0) throw invalid('the marketplace key is empty');
  if (key.length > 512) throw invalid('the marketplace key is longer than 512 characters');
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\s\u0000-\u001f\u007f]/.test(key)) throw invalid('the marketplace key contains whitespace or control characters');
  return key;
}

export class MarketplaceKeyHolder {
  private appKey: string | undefined;
  private cached: { key: string; client: VastClient } | undefined;
  private readonly listeners = new Set<(state: MarketplaceKeyState) => void>();

  constructor(
    private readonly options: {
      baseUrl: string;
      /** VAST_API_KEY, if set. */
      environmentKey?: string | undefined;
      /** The desktop app's stored key, known at start. */
      appKey?: string | undefined;
      /** Saves the app's key (desktop app only); without it the key cannot be set from Settings. */
      persist?: PersistMarketplaceKey | undefined;
      /** Replaces the client factory (tests). */
      createClient?: (key: string) => VastClient;
    },
  ) {
    this.appKey = options.appKey ? normaliseMarketplaceKey(options.appKey) : undefined;
  }

  private currentKey(): { key: string; source: MarketplaceKeySource } | null {
    if (this.appKey) return { key: this.appKey, source: 'app' };
    if (this.options.environmentKey) return { key: this.options.environmentKey, source: 'env' };
    return null;
  }

  private makeClient(key: string): VastClient {
    return this.options.createClient?.(key) ?? new VastClient({ baseUrl: this.options.baseUrl, apiKey: key });
  }

  /** The client for the key in use (one per key, reused), or null without a key. */
  client(): VastClient | null {
    const current = this.currentKey();
    if (!current) return null;
    if (this.cached?.key !== current.key) this.cached = { key: current.key, client: this.makeClient(current.key) };
    return this.cached.client;
  }

  /** Whether this process can save a key (the desktop app). */
  get canStore(): boolean {
    return this.options.persist !== undefined;
  }

  /**
   * Saves (a string) or clears (null) the app's key, then uses it at once: the next estimate or
   * job takes the new client; running jobs keep the client they started with.
   */
  async store(key: string | null): Promise<MarketplaceKeyState> {
    const persist = this.options.persist;
    if (!persist) {
      throw new ProblemError(409, 'marketplace_not_configured', 'this server reads the marketplace key from VAST_API_KEY in its environment; the desktop app stores a key itself');
    }
    const next = key === null ? null : normaliseMarketplaceKey(key);
    await persist(next);
    this.appKey = next ?? undefined;
    const state = this.state();
    for (const listener of this.listeners) listener(state);
    return state;
  }

  state(): MarketplaceKeyState {
    const current = this.currentKey();
    return {
      configured: current !== null,
      source: current?.source ?? null,
      hint: current ? keyHint(current.key) : null,
      environment_key: Boolean(this.options.environmentKey),
    };
  }

  onChange(listener: (state: MarketplaceKeyState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
