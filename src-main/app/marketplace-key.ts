import type { KeyedClient, MarketplaceAccess } from '../marketplace/access';
import { VastClient, type VastClientOptions } from '../marketplace/vast-client';
import { ProblemError } from './problem-error';

/**
 * Which marketplace key the providers use, changeable while the server runs. Headless, the key
 * comes from VAST_API_KEY. The desktop app also has one it keeps encrypted (Electron safeStorage):
 * given at start (so start-up recovery can release machines with it) and again whenever Settings
 * saves or clears it, without a restart. A key the user saved in the app wins over the
 * environment's; clearing it falls back to VAST_API_KEY. Any other key (the one a job rented with)
 * gets its own client through clientFor. A key that cannot be sent (not printable ASCII) is refused
 * when saved (422) and ignored, with a log line, when it comes from the environment or the app's
 * store: it never reaches a request, where it would throw.
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

/** What an HTTP header can carry: visible ASCII, no spaces. A Vast.ai key is letters and digits. */
const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;

/** Why this cannot be a key, or null. */
export function marketplaceKeyProblem(key: string): string | null {
  if (key.length === 0) return 'the marketplace key is empty';
  if (key.length > 512) return 'the marketplace key is longer than 512 characters';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\s\u0000-\u001f\u007f]/.test(key)) return 'the marketplace key contains whitespace or control characters';
  if (!PRINTABLE_ASCII.test(key)) {
    return 'the marketplace key must be printable ASCII (letters, digits and punctuation): it contains a character outside that range, which cannot be sent to the marketplace';
  }
  return null;
}

/** Trims and rejects what cannot be a key (422): empty, whitespace inside, not printable ASCII, absurd length. */
export function normaliseMarketplaceKey(raw: string): string {
  const key = raw.trim();
  const problem = marketplaceKeyProblem(key);
  if (problem) throw ProblemError.validation([{ path: 'key', message: problem }], 'marketplace key');
  return key;
}

export class MarketplaceKeyHolder implements MarketplaceAccess {
  private appKey: string | undefined;
  private readonly environmentKey: string | undefined;
  private readonly clients = new Map<string, VastClient>();
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
      /** Client settings other than the URL and key (timeouts, retries, limits; tests shorten them). */
      clientOptions?: Partial<Omit<VastClientOptions, 'baseUrl' | 'apiKey'>>;
      /** Told when a key from the environment or the app's store is ignored, and what clients skip. */
      warn?: (message: string, fields?: Record<string, unknown>) => void;
    },
  ) {
    this.environmentKey = this.usable(options.environmentKey, 'VAST_API_KEY');
    this.appKey = this.usable(options.appKey, 'the marketplace key stored by the app');
  }

  /** A key given at start, trimmed, or undefined (with a log line) when it cannot be sent. */
  private usable(raw: string | undefined, where: string): string | undefined {
    const key = raw?.trim();
    if (!key) return undefined;
    const problem = marketplaceKeyProblem(key);
    if (problem) {
      this.options.warn?.(`${where} is ignored: ${problem}; set a valid key in Settings or the environment`);
      return undefined;
    }
    return key;
  }

  private currentKey(): { key: string; source: MarketplaceKeySource } | null {
    if (this.appKey) return { key: this.appKey, source: 'app' };
    if (this.environmentKey) return { key: this.environmentKey, source: 'env' };
    return null;
  }

  private makeClient(key: string): VastClient {
    return (
      this.options.createClient?.(key) ??
      new VastClient({
        ...this.options.clientOptions,
        baseUrl: this.options.baseUrl,
        apiKey: key,
        ...(this.options.warn ? { onWarning: this.options.warn } : {}),
      })
    );
  }

  clientFor(key: string): VastClient | null {
    if (marketplaceKeyProblem(key)) return null;
    let client = this.clients.get(key);
    if (!client) {
      try {
        client = this.makeClient(key);
      } catch {
        // A base URL the client refuses: no client for any key (the estimate and lists say so).
        return null;
      }
      this.clients.set(key, client);
    }
    return client;
  }

  current(): KeyedClient | null {
    const current = this.currentKey();
    if (!current) return null;
    const client = this.clientFor(current.key);
    return client ? { key: current.key, client } : null;
  }

  /** The client for the key in use (one per key, reused), or null without a key. */
  client(): VastClient | null {
    const current = this.currentKey();
    return current ? this.clientFor(current.key) : null;
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
      environment_key: Boolean(this.options.environmentKey?.trim()),
    };
  }

  onChange(listener: (state: MarketplaceKeyState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
