// Worker threads of the app: one self-contained CommonJS script each (dependencies bundled in),
// started from its text with `eval` (src-main/workers/worker-code.ts) so they run from dist/main,
// the packaged app's asar and test bundles alike. Add a worker here: `npm run build` and the CLI
// test bundle both build it.
import path from 'node:path';

/** name → entry (relative to the repository root); built to `<outdir>/<name>.cjs`. */
export const WORKERS = { 'score-worker': 'src-main/suites/score-worker.ts' };

/** @param {typeof import('esbuild').build} build @param {string} root @param {string} outdir */
export async function buildWorkers(build, root, outdir) {
  for (const [name, entry] of Object.entries(WORKERS)) {
    await build({
      entryPoints: [path.join(root, entry)],
      outfile: path.join(outdir, `${name}.cjs`),
      bundle: true,
      platform: 'node',
      target: 'node22',
      format: 'cjs',
      minify: true,
      logLevel: 'warning',
    });
  }
}
