// Must stay the first import: configures zod before any shared schema is built.
import './zod-jitless';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QueryClientProvider } from '@tanstack/react-query';
import { App } from './App';
import { ApiProvider, getApi } from './bridge';
import { watchTokenInHash } from './bridge/session';
import { createQueryClient } from './queries/client';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');

// Resolve the bridge before rendering: in browser mode this also scrubs #token= from the URL, and a
// token added to the address bar later is picked up before the router sees it.
const api = getApi();
if (api.transport === 'http') watchTokenInHash();
const queryClient = createQueryClient();

createRoot(root).render(
  <StrictMode>
    <ApiProvider api={api}>
      <QueryClientProvider client={queryClient}>
        <App />
      </QueryClientProvider>
    </ApiProvider>
  </StrictMode>,
);
