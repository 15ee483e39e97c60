import { ConfigError } from '../app/config';
import { startBenchdesk } from '../composition/start';
import { DataDirLockedError } from '../store/types';

export type ServeOptions = { host?: string; port?: number; dataDir?: string };

/** Runs the headless API server until SIGINT/SIGTERM, then shuts down gracefully. */
export async function runServe(options: ServeOptions): Promise<void> {
  let bd: Awaited<ReturnType<typeof startBenchdesk>>;
  try {
    bd = await startBenchdesk({
      ...(options.host ? { host: options.host } : {}),
      ...(options.port !== undefined ? { port: options.port } : {}),
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    });
  } catch (err) {
    if (err instanceof DataDirLockedError) {
      throw new Error(`${err.message}. Is the desktop app or another \`benchdesk serve\` running? Use its API, or set BENCHDESK_DATA_DIR to another folder.`, { cause: err });
    }
    if (err instanceof ConfigError) throw new Error(`configuration error: ${err.message}`, { cause: err });
    throw err;
  }
  console.log(`benchdesk API listening on ${bd.apiUrl} (data: ${bd.config.dataDir}, auth: ${bd.auth.mode})`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    bd.log.info('shutting down', { signal });
    bd.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`benchdesk: shutdown failed: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}
