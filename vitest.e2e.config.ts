import { defineConfig } from 'vitest/config';

/**
 * The browser e2e files wait on Chromium and the server far more than they compute, so two run at
 * once (three were no faster on two cores), each with its own server, fakes, data dir and browser on ports from the OS.
 *
 * `npm start` and `npm run serve` (npm-start.e2e.test.ts) rebuild dist/ as a newcomer's first run
 * does, which would pull the renderer's files from under the other files' servers: that file runs
 * alone, after them.
 */
const ALONE = ['e2e/npm-start.e2e.test.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'e2e', include: ['e2e/**/*.e2e.test.ts'], exclude: ALONE, maxWorkers: 2, isolate: false, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'e2e-alone', include: ALONE, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
