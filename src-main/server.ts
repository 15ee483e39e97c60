import v8 from 'node:v8';
import { fileURLToPath } from 'node:url';
import { nodeTooOld, nodeVersionMessage } from './node-version';

// Headless entry (`npm run serve`, dist/main/server.js). The server itself is a separate bundle
// (dist/main/server-app.js), loaded only after the Node check: its dependencies are imported when
// a module loads, before any of its code runs, and on an old Node they crash with an unrelated error.
if (nodeTooOld()) {
  console.error(nodeVersionMessage('the benchdesk server', fileURLToPath(import.meta.url)));
  process.exit(1);
}
// libuv's thread pool (4 threads by default) runs every file operation: with the store's
// background file writes on it, a request's durable journal write queued behind them (p99 of a durable
// POST 130 ms at 4 threads, 17 ms at 16). It is sized when first used, so this must run first.
process.env.UV_THREADPOOL_SIZE ??= '16';
// V8's default heap growth kept ~470 MB resident after 10k jobs ran (57 MB of it live, the rest
// grown heap it never returned); with optimize-for-size the same run stays near 180 MB.
v8.setFlagsFromString('--optimize-for-size');
await import(new URL('./server-app.js', import.meta.url).href);
