import type { VastApi } from './vast-client';

/** A marketplace key and the client that sends it. */
export type KeyedClient = { key: string; client: VastApi };

/**
 * The marketplace keys a process can use: the one in use now, and a client for any other key (the
 * one a job rented with, held until its machine is confirmed gone). The key holder (app/) implements it.
 */
export type MarketplaceAccess = {
  /** The key in use and its client, or null without a usable key. */
  current(): KeyedClient | null;
  /** The client for this key (reused per key), or null when the key cannot be sent (not printable ASCII). */
  clientFor(key: string): VastApi | null;
};
