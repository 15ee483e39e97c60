import { fileURLToPath } from 'node:url';
import { nodeTooOld, nodeVersionMessage } from './node-version';
import { tuneRuntime } from './runtime-tuning';
import type * as ServerApp from './server-app';

// `npm start` where Electron cannot start (dist/main/browser-app.js, run by scripts/start.mjs): the
// same app in the browser. The headless server with the browser UI, signed in with the app's own
// token from the data dir (created on first start, as the desktop app does), its URL printed.
if (nodeTooOld()) {
  console.error(nodeVersionMessage('benchdesk', fileURLToPath(import.meta.url)));
  process.exit(1);
}
tuneRuntime();
const app = (await import(new URL('./server-app.js', import.meta.url).href)) as typeof ServerApp;
// The terminal shows a few lines of status; the JSON log goes to <data dir>/logs/benchdesk.log.
app.main({ appToken: true, ui: true, logFile: true });
