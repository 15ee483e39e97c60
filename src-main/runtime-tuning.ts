import { startAdaptiveMemoryMode } from './memory-mode';

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
  // V8's optimize-for-size while the live heap is small, not while it is large (memory-mode.ts).
  startAdaptiveMemoryMode();
}
