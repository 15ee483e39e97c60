import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startBenchdesk, type BenchdeskOptions } from '../../src-main/composition/start';

/**
 * The desktop app's composition in plain Node, for tests that run it as its own process: exactly the
 * call src-main/electron/main.ts makes (startBenchdesk with `electron: true` and the app's marketplace
 * key: the stored one at start, and a way to save a new one), with Electron's safeStorage replaced by
 * a plain file in the data dir. TEST_TUNING (JSON) shortens the sweep and polling; TEST_THROW_IN_TIMER
 * makes a timer throw and a promise reject after the start, as a bug in a background task would.
 */

const dataDir = process.env.BENCHDESK_DATA_DIR ?? '';
const keyFile = path.join(dataDir, 'test-app-key');
const stored = await readFile(keyFile, 'utf8').then(
  (s) => s,
  () => undefined,
);
const tuning = JSON.parse(process.env.TEST_TUNING ?? '{}') as Partial<BenchdeskOptions>;

const bd = await startBenchdesk({
  dataDir,
  env: process.env,
  electron: true,
  port: 0,
  appMarketplaceKey: {
    key: stored,
    persist: async (key) => {
      if (key === null) await rm(keyFile, { force: true });
      else await writeFile(keyFile, key, { mode: 0o600 });
    },
  },
  ...tuning,
});
process.stdout.write(`LISTENING ${bd.apiUrl}\n`);

if (process.env.TEST_THROW_IN_TIMER) {
  setTimeout(() => {
    throw new Error('boom in a timer');
  }, 50);
  setTimeout(() => {
    void Promise.reject(new Error('boom in a promise'));
  }, 60);
}

process.once('SIGTERM', () => {
  void bd.close().finally(() => process.exit(0));
});
