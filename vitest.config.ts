import { defineConfig } from 'vitest/config';

/**
 * Most test files wait on loopback servers and child processes more than they compute, so three
 * run at once on two cores (vitest's default is one fewer than the cores: one, here). The files
 * that assert a latency or a memory bound (`/healthz` within 1 s during a big import or a
 * runaway pattern, RSS growth under a bloating backend, kubectl's own timeouts) run afterwards,
 * one at a time, on a quiet machine: what they measure is the server, not the other tests.
 */
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

export default defineConfig({
  test: {
    exclude: ['e2e/**', 'node_modules/**', 'dist/**'],
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    projects: [
      { extends: true, test: { name: 'parallel', include: ALL, exclude: ['e2e/**', 'node_modules/**', 'dist/**', ...QUIET], maxWorkers: 3, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'quiet', include: QUIET, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
