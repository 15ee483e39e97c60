import { fileURLToPath } from 'node:url';
import { nodeTooOld, nodeVersionMessage } from './node-version';
import { tuneRuntime } from './runtime-tuning';
import type * as ServerApp from './server-app';

// Headless entry (`npm run serve`, dist/main/server.js). The server itself is a separate bundle
// (dist/main/server-app.js), loaded only after the Node check: its dependencies are imported when
// a module loads, before any of its code runs, and on an old Node they crash with an unrelated error.
if (nodeTooOld()) {
  console.error(nodeVersionMessage('the benchdesk server', fileURLToPath(import.meta.url)));
  process.exit(1);
}
tuneRuntime();
const app = (await import(new URL('./server-app.js', import.meta.url).href)) as typeof ServerApp;
app.main({});
