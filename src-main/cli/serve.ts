import { existsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, defaultDataDir, isTruthy } from '../app/config';
import { logToFile } from '../app/log-destination';
import { API_TOKEN_FILE } from '../app/settings';
import { startBenchdesk } from '../composition/start';
import { DataDirLockedError } from '../store/types';
import { defaultTenantToken, serveBanner, type ServeBannerFacts } from './serve-banner';

export type ServeOptions = {
  host?: string;
  port?: number;
  dataDir?: string;
  /**
   * Sign the browser in as the desktop app does: create (or reuse) the app's token in the data
   * dir's `api-token` file. `npm start` where Electron cannot start.
   */
  appToken?: boolean;
  /** Serve the browser UI whatever BENCHDESK_SERVE_UI says. */
  ui?: boolean;
  /** Log to `<data dir>/logs/benchdesk.log` instead of stdout (`npm start`: a few lines of status, not the JSON log). */
  logFile?: boolean;
  env?: NodeJS.ProcessEnv;
};

/** Where `npm start` logs, in the data dir. */
export const LOG_FILE = path.join('logs', 'benchdesk.log');

/** The built renderer beside this bundle (dist/main → dist/renderer). */
const RENDERER_DIR = path.resolve(import.meta.dirname, '..', 'renderer');

/**
 * Whether the browser UI is served: BENCHDESK_SERVE_UI when it is set (1/true/yes/on or not),
 * else whenever the renderer is built.
 */
export function uiDecision(setting: string | undefined, forced: boolean, built: boolean): ServeBannerFacts['ui'] {
  const wanted = forced || (setting !== undefined && setting.trim() !== '' ? isTruthy(setting) : built);
  if (!wanted) return 'off';
  return built ? 'served' : 'not-built';
}

/** A start-up failure in the user's words (the caller prints it; no stack trace). */
function explain(err: unknown, port: number | undefined): Error {
  if (err instanceof DataDirLockedError) {
    return new Error(`${err.message}. Is the desktop app or another \`benchdesk serve\` running? Use its API, or set BENCHDESK_DATA_DIR to another folder.`, { cause: err });
  }
  if (err instanceof ConfigError) return new Error(`configuration error: ${err.message}`, { cause: err });
  if (err instanceof Error && (err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    return new Error(`port ${port ?? 8080} is already in use (another benchdesk, or another program): stop it, or pick another port with BENCHDESK_PORT or --port`, { cause: err });
  }
  if (err instanceof Error && (err as NodeJS.ErrnoException).code === 'EACCES') {
    return new Error(`not allowed to listen on port ${port ?? 8080}: pick a port above 1023 with BENCHDESK_PORT or --port`, { cause: err });
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** Runs the headless API server until SIGINT/SIGTERM, then shuts down gracefully. */
export async function runServe(options: ServeOptions): Promise<void> {
  const env = options.env ?? process.env;
  const logFile = options.logFile ? path.join(path.resolve(options.dataDir ?? (env.BENCHDESK_DATA_DIR?.trim() || defaultDataDir(env))), LOG_FILE) : undefined;
  if (logFile) logToFile(logFile);
  const ui = uiDecision(env.BENCHDESK_SERVE_UI, options.ui === true, existsSync(path.join(RENDERER_DIR, 'index.html')));
  let bd: Awaited<ReturnType<typeof startBenchdesk>>;
  try {
    bd = await startBenchdesk({
      // The UI decision above is the one that counts (the composition root reads the variable too).
      env: { ...env, BENCHDESK_SERVE_UI: ui === 'served' ? '1' : '0' },
      ...(ui === 'served' ? { uiDir: RENDERER_DIR } : {}),
      ...(options.appToken ? { appToken: true } : {}),
      ...(options.host ? { host: options.host } : {}),
      ...(options.port !== undefined ? { port: options.port } : {}),
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    });
  } catch (err) {
    const port = options.port ?? (Number(env.BENCHDESK_PORT) || undefined);
    throw explain(err, port);
  }

  const envToken = defaultTenantToken(bd.config.apiTokens);
  const token: ServeBannerFacts['token'] = bd.apiToken
    ? { value: bd.apiToken, source: 'app', file: path.join(bd.config.dataDir, API_TOKEN_FILE) }
    : envToken
      ? { value: envToken, source: 'env' }
      : undefined;
  const lines = serveBanner({ apiUrl: bd.apiUrl, dataDir: bd.config.dataDir, authMode: bd.auth.mode, ui, ...(token ? { token } : {}), ...(logFile ? { logFile } : {}) });
  // console.log, not process.stdout.write: a stdout that cannot be written (a full disk, a closed
  // pipe) must not stop the server; console drops what it cannot write.
  for (const line of lines) console.log(line);

  let stopping = false;
  // `process.on`, not `once`: Ctrl-C under npm arrives more than once (from the terminal, and
  // forwarded by npm and by scripts/with-node.mjs); a second SIGINT must not kill the shutdown.
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    bd.log.info('shutting down', { signal });
    bd.close().then(
      () => {
        console.log(logFile ? `benchdesk stopped (its log: ${logFile}).` : 'benchdesk stopped.');
        process.exit(0);
      },
      (err: unknown) => {
        console.error(`benchdesk: shutdown failed: ${err instanceof Error ? err.message : String(err)}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
