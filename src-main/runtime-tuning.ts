import v8 from 'node:v8';

/**
 * Settings of the process itself, shared by the headless server and the desktop app's main
 * process. They must apply before the store's first file operation: the server's entry calls this
 * before it imports the application (a dynamic import), the desktop entry imports a module that
 * calls it before any of its other imports.
 */
export function tuneRuntime(): void {
  // libuv's thread pool (4 threads by default) runs every file operation: with the store's
  // background file writes on it, a request's durable journal write queued behind them (p99 of a
  // durable POST 130 ms at 4 threads, 17 ms at 16). It is sized when first used.
  process.env.UV_THREADPOOL_SIZE ??= '16';
  // V8's default heap growth kept ~470 MB resident after 10k jobs ran (57 MB of it live, the rest
  // grown heap it never returned); with optimize-for-size the same run stays near 180 MB. The price
  // is CPU under heavy load: a young generation kept small means many more collections (1,000
  // concurrent benchmarks: ~1,250 scavenges and 40 full collections instead of 33 and 3, about
  // twice the CPU per job). `npm run bench` prints both.
  setMemorySaving(true);
}

/** V8's optimize-for-size mode, which the server and the desktop main process run with. */
export function setMemorySaving(on: boolean): void {
  v8.setFlagsFromString(on ? '--optimize-for-size' : '--no-optimize-for-size');
}
