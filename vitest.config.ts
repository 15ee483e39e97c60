import { defineConfig } from 'vitest/config';

/**
 * Most test files wait on loopback servers and child processes more than they compute, so three
 * run at once on two cores (vitest's default is one fewer than the cores: one, here), and a worker
 * runs file after file in one process with the modules it has already loaded (`isolate: false`):
 * loading vitest, zod and the product's modules again for each of 250 files cost about as much
 * CPU as the tests themselves. Each file still gets fresh state: it starts its own servers and
 * stores, and closes them.
 *
 * Files that need a fresh module graph run isolated beside them: those that measure the process
 * (the heap the adaptive memory mode watches), and those that replace a module (`vi.mock`), which
 * only works where the module has not been loaded yet.
 *
 * The files that assert a latency or a memory bound (`/healthz` within 1 s during a big import or
 * a runaway pattern, RSS growth under a bloating backend, kubectl's own timeouts) run afterwards,
 * one at a time, on a quiet machine: what they measure is the server, not the other tests.
 */
const ISOLATED = ['src-main/memory-mode.test.ts', 'src-main/api/auth.test.ts', 'src-renderer/pages/estimate/EstimatePage.test.tsx'];

const QUIET = [
  'test/robustness/big-snapshot.test.ts',
  'test/robustness/backend-bloat.test.ts',
  'test/suites/score-route.test.ts',
  'test/suites/score-pool.test.ts',
  'test/snapshots/kubectl.test.ts',
  'test/snapshots/record.test.ts',
  'test/serving/generator.test.ts',
  'test/security/connection-cap.test.ts',
  'src-main/snapshots/credential-text.test.ts',
];

const ALL = ['shared/**/*.test.ts', 'src-main/**/*.test.ts', 'test/**/*.test.ts', 'src-renderer/**/*.test.{ts,tsx}'];
const NEVER = ['e2e/**', 'node_modules/**', 'dist/**'];

export default defineConfig({
  test: {
    exclude: NEVER,
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    projects: [
      { extends: true, test: { name: 'parallel', include: ALL, exclude: [...NEVER, ...QUIET, ...ISOLATED], maxWorkers: 3, isolate: false, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'isolated', include: ISOLATED, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'quiet', include: QUIET, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
