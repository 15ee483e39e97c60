import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * The code of a worker thread, as one self-contained CommonJS script (its dependencies bundled
 * in), to start with `new Worker(code, { eval: true })`. Eval keeps workers working from every
 * place the app runs: the esbuild bundles in dist/main (where `npm run build` writes
 * `<name>.cjs` beside them), the packaged app's asar archive (read through Electron's fs), and
 * the TypeScript sources under vitest, where the entry is bundled on first use with esbuild (a
 * dev dependency, never loaded by a build).
 */

const cache = new Map<string, Promise<string>>();

/** Where a built worker may sit, relative to the bundle asking (dist/main/x.js, dist/bench/x.js). */
function builtCandidates(name: string, from: string): URL[] {
  return [new URL(`./${name}.cjs`, from), new URL(`../main/${name}.cjs`, from)];
}

async function readBuilt(name: string, from: string): Promise<string | null> {
  for (const url of builtCandidates(name, from)) {
    try {
      return await readFile(fileURLToPath(url), 'utf8');
    } catch {
      // next candidate
    }
  }
  return null;
}

async function bundleSource(entry: URL): Promise<string> {
  // Only under the sources (tests, dev): a build ships the .cjs.
  const esbuild = await import('esbuild');
  const out = await esbuild.build({ entryPoints: [fileURLToPath(entry)], bundle: true, platform: 'node', format: 'cjs', target: 'node22', write: false, logLevel: 'silent' });
  const file = out.outputFiles[0];
  if (!file) throw new Error(`esbuild wrote nothing for ${entry.href}`);
  return file.text;
}

/**
 * The worker `name`'s code. `from` is the caller's `import.meta.url`; `sourceEntry` the worker's
 * TypeScript entry (used when the caller itself runs from sources).
 */
export function workerCode(name: string, from: string, sourceEntry: URL): Promise<string> {
  let code = cache.get(name);
  if (!code) {
    code = (async () => {
      const fromSources = from.endsWith('.ts');
      const built = fromSources ? null : await readBuilt(name, from);
      if (built !== null) return built;
      if (!fromSources) throw new Error(`the ${name} worker is missing beside ${from}: run npm run build`);
      return bundleSource(sourceEntry);
    })();
    code.catch(() => cache.delete(name));
    cache.set(name, code);
  }
  return code;
}
