import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['shared/**/*.test.ts', 'src-main/**/*.test.ts', 'test/**/*.test.ts', 'src-renderer/**/*.test.{ts,tsx}'],
    exclude: ['e2e/**', 'node_modules/**', 'dist/**'],
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
