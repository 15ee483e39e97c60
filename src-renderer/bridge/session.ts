import { create } from 'zustand';
import { browserTokenEnv, storeToken, takeTokenFromHash } from './token';

/**
 * Who browser mode is signed in as: the API token it sends, and a counter that rises whenever the
 * server refuses it (any request answered 401), so the sign-in check runs again.
 */
interface SessionState {
  token: string | null;
  /** Bumped on every 401: the shell re-checks the token. */
  refusals: number;
  setToken(token: string | null): void;
  refused(): void;
}

export const useSession = create<SessionState>()((set) => ({
  token: null,
  refusals: 0,
  setToken: (token) => {
    storeToken(browserTokenEnv(), token);
    set({ token });
  },
  refused: () => set((s) => ({ refusals: s.refusals + 1 })),
}));

let watching = false;

/**
 * Picks up `#token=…` whenever it appears in the address bar, also in a tab that is already open.
 * Registered before the app renders, so the router never sees the token as a page.
 */
export function watchTokenInHash(): void {
  if (watching) return;
  watching = true;
  window.addEventListener('hashchange', (event) => {
    const previous = event.oldURL ? new URL(event.oldURL).hash : '';
    const token = takeTokenFromHash(browserTokenEnv(), previous);
    if (token) useSession.getState().setToken(token);
  });
}
