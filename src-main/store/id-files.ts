import { randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import type { z } from 'zod';
import { isErrno } from './atomic-file';

/**
 * Folders of one JSON file per record, named by its id (`suites/`, `sweeps/`, `snapshots/`): the
 * pieces their stores share — which files are records, reading one against its schema, and loading
 * the folder once, on first use.
 */

const ID_FILE = /^([a-z0-9][a-z0-9-]{0,63})\.json$/;

/** The id a file name carries (`<id>.json`), or null for any other file. */
export function idOfFile(name: string): string | null {
  return ID_FILE.exec(name)?.[1] ?? null;
}

/**
 * A new record id from a name the user gave: its words in lower case joined by dashes (at most 40
 * characters, `fallback` when nothing is left), then a random suffix (`oom-in-prod-3f9a1c`).
 */
export function newRecordId(name: string, fallback: string): string {
  const words = name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `${words || fallback}-${randomBytes(3).toString('hex')}`;
}

/** The names in a folder; none while it does not exist yet (nothing was ever stored). */
export async function namesIn(dir: string): Promise<string[]> {
  try {
    return await fsp.readdir(dir);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return [];
    throw err;
  }
}

/** A record file read against its schema: the record, or why it does not read (to set the file aside). */
export async function readRecordFile<T>(file: string, schema: z.ZodType<T>, idOf: (record: T) => string, id: string): Promise<{ record: T } | { reason: string }> {
  try {
    const parsed = schema.safeParse(JSON.parse(await fsp.readFile(file, 'utf8')));
    if (!parsed.success) return { reason: parsed.error.issues[0]?.message ?? 'invalid' };
    const own = idOf(parsed.data);
    return own === id ? { record: parsed.data } : { reason: `its id is ${own}` };
  } catch (err) {
    return { reason: err instanceof SyntaxError ? 'not JSON' : String(err) };
  }
}

/** Loads once, on first use; calls made while it loads wait for the same load. */
export class LoadOnce<T> {
  #value: T | undefined;
  #loading: Promise<T> | undefined;

  constructor(private readonly loader: () => Promise<T>) {}

  get(): Promise<T> {
    if (this.#value !== undefined) return Promise.resolve(this.#value);
    this.#loading ??= this.loader().then((value) => {
      this.#value = value;
      return value;
    });
    return this.#loading;
  }

  /** The loaded value, without loading (undefined before the first load ends). */
  peek(): T | undefined {
    return this.#value;
  }
}
