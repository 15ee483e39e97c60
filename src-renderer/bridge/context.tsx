import { createContext, useContext, type ReactNode } from 'react';
import type { RendererApi } from './types';

// A context rather than a module singleton so tests can hand in a fake or in-memory client.
const ApiContext = createContext<RendererApi | null>(null);

export function ApiProvider({ api, children }: { api: RendererApi; children: ReactNode }) {
  return <ApiContext.Provider value={api}>{children}</ApiContext.Provider>;
}

export function useApi(): RendererApi {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi() outside <ApiProvider>');
  return api;
}
