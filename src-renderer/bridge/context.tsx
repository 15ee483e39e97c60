import { createContext, useContext, type ReactNode } from 'react';
import type { BenchdeskApi } from '../../shared';

// A context rather than a module singleton so tests and stories can hand in a fake bridge.
const ApiContext = createContext<BenchdeskApi | null>(null);

export function ApiProvider({ api, children }: { api: BenchdeskApi; children: ReactNode }) {
  return <ApiContext.Provider value={api}>{children}</ApiContext.Provider>;
}

export function useApi(): BenchdeskApi {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi() outside <ApiProvider>');
  return api;
}
