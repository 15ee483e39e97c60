import fsp from 'node:fs/promises';
import { isErrno, writeFileAtomic } from './atomic-file';
import { parseJsonl, withoutBadLines } from './jsonl';
import type { Quarantine } from './quarantine';

export type LoadedLog<T> = {
  values: T[];
  /** Good lines read (after repair). */
  lines: number;
  existed: boolean;
  /** Complete lines that were corrupt (already set aside and cut out). */
  badLines: number;
  /** Whether an unterminated tail was cut off (already set aside). */
  torn: boolean;
};

/**
 * Reads an append-only JSONL file and repairs it in place: a torn tail is saved to corrupt/ and
 * truncated away; corrupt complete lines make a copy of the whole file in corrupt/ before the file is
 * rewritten without them. The caller guarantees nobody appends meanwhile (open, or a per-file lock).
 */
export async function loadLogFile<T>(
  filePath: string,
  validate: (value: unknown) => T | undefined,
  quarantine: Quarantine,
  what: string,
): Promise<LoadedLog<T>> {
  let buf: Buffer;
  try {
    buf = await fsp.readFile(filePath);
  } catch (err) {
    if (isErrno(err, 'ENOENT')) return { values: [], lines: 0, existed: false, badLines: 0, torn: false };
    throw err;
  }
  const parsed = parseJsonl(buf, validate);
  const torn = parsed.tornTail !== null;
  if (parsed.bad.length > 0) {
    await quarantine.copyAside(filePath, `${what}: ${parsed.bad.length} corrupt line(s)${torn ? ' and a torn tail' : ''}`, {
      lines: parsed.bad.slice(0, 20).map((b) => b.line),
    });
    await writeFileAtomic(filePath, withoutBadLines(buf, parsed), { fsync: true });
  } else if (parsed.tornTail) {
    await quarantine.saveBytes(filePath, Buffer.from(parsed.tornTail), `${what}: torn last line (crash mid-append)`);
    const fh = await fsp.open(filePath, 'r+');
    try {
      await fh.truncate(parsed.goodLength);
      await fh.sync();
    } finally {
      await fh.close();
    }
  }
  return { values: parsed.values, lines: parsed.values.length, existed: true, badLines: parsed.bad.length, torn };
}
