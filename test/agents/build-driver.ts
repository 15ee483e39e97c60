import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
/** Inside node_modules so the bundle's external imports (zod, client-node, ollama) resolve. */
const OUT_DIR = path.join(ROOT, 'node_modules', '.cache', 'benchdesk-agents-test');

/**
 * Bundles test/agents/driver-entry.ts into one ESM file and returns the argv prefix that runs
 * it, i.e. the registry's `selfCommand`, plus a cleanup.
 */
export async function buildDriverEntry(): Promise<{ selfCommand: string[]; cleanup: () => Promise<void> }> {
  await mkdir(OUT_DIR, { recursive: true });
  const outfile = path.join(OUT_DIR, `driver-entry-${randomBytes(4).toString('hex')}.mjs`);
  await build({
    entryPoints: [path.join(import.meta.dirname, 'driver-entry.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    packages: 'external',
    logLevel: 'silent',
  });
  return { selfCommand: [process.execPath, outfile], cleanup: () => rm(outfile, { force: true }) };
}

/** PATH with the fake holmes/k8sgpt first and the node running the tests (their shebang needs it). */
export function pathWithFakeAgents(base = process.env.PATH ?? ''): string {
  return [path.join(ROOT, 'test', 'fakes', 'agent-bin'), path.dirname(process.execPath), base].join(path.delimiter);
}

/** PATH where neither holmes nor k8sgpt exist, but node does. */
export function pathWithoutAgents(): string {
  return path.dirname(process.execPath);
}
