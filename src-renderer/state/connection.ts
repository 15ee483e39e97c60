import { create } from 'zustand';

/**
 * Whether the app hears the server: the live event stream's connection (with the server's
 * one-second heartbeat) is the signal. While it is down, live figures freeze at `downSince`.
 */
interface ConnectionState {
  link: 'up' | 'down';
  /** When the link went down (epoch ms); null while up. */
  downSince: number | null;
  /** Bumped by "Retry now": the live feed reconnects at once. */
  retryNonce: number;
  /** Bumped each time the server is heard again after a time down: what failed meanwhile tries again. */
  recoveries: number;
  setLink(link: 'up' | 'down', at?: number): void;
  retryNow(): void;
}

export const useConnection = create<ConnectionState>()((set) => ({
  link: 'up',
  downSince: null,
  retryNonce: 0,
  recoveries: 0,
  setLink: (link, at = Date.now()) =>
    set((s) => {
      if (s.link === link) return s;
      return link === 'down' ? { link, downSince: at } : { link, downSince: null, recoveries: s.recoveries + 1 };
    }),
  retryNow: () => set((s) => ({ retryNonce: s.retryNonce + 1 })),
}));
