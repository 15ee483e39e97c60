import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as shared from '../shared';
import * as ollamaWire from '../src-main/llm/ollama-wire';
import * as vastWire from '../src-main/marketplace/vast-wire';
import { ROOT, requireBuilt } from './support';

/** Every key of every object schema reachable from `schema`. */
function keysOf(schema: unknown, into = new Set<string>(), seen = new Set<unknown>()): Set<string> {
  if (!(schema instanceof z.ZodType) || seen.has(schema)) return into;
  seen.add(schema);
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> } })._zod.def;
  if (def.type === 'object') {
    for (const [key, inner] of Object.entries(def.shape as Record<string, unknown>)) {
      into.add(key);
      keysOf(inner, into, seen);
    }
  }
  for (const field of ['innerType', 'element', 'valueType', 'in', 'out', 'left', 'right']) keysOf(def[field], into, seen);
  for (const option of (def.options as unknown[] | undefined) ?? []) keysOf(option, into, seen);
  return into;
}

function keysOfModule(module: Record<string, unknown>): Set<string> {
  const keys = new Set<string>();
  for (const value of Object.values(module)) keysOf(value, keys);
  return keys;
}

describe('the renderer bundle', () => {
  it("contains none of the marketplace's or llmserver's wire field names (those schemas stay in main)", async () => {
    requireBuilt(['dist/renderer/index.html']);
    const productKeys = keysOfModule(shared as Record<string, unknown>);
    const wireOnly = [...keysOfModule(vastWire as Record<string, unknown>), ...keysOfModule(ollamaWire as Record<string, unknown>)]
      // Distinctive names only (an underscore or a digit): plain words like `id` are everywhere in any bundle.
      .filter((key) => !productKeys.has(key) && /[_0-9]/.test(key));
    expect(wireOnly.length).toBeGreaterThan(5);
    const assets = path.join(ROOT, 'dist', 'renderer', 'assets');
    const files = (await readdir(assets)).filter((f) => f.endsWith('.js'));
    expect(files.length).toBeGreaterThan(0);
    const code = (await Promise.all(files.map((f) => readFile(path.join(assets, f), 'utf8')))).join('\n');
    const found = wireOnly.filter((key) => new RegExp(`\\b${key}\\b`).test(code));
    expect(found).toEqual([]);
  });
});
