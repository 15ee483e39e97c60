/**
 * Line parsing for the append-only logs (index, idempotency, journal, events). A crash mid-append
 * leaves an unterminated last line (or a run of zero bytes): that "torn tail" is reported apart from
 * complete lines that fail to parse, because the first is expected and the second is corruption.
 */
export type JsonlParse<T> = {
  values: T[];
  /** Complete (newline-terminated) lines that did not parse or validate: 1-based number and byte range (newline included). */
  bad: { line: number; start: number; end: number }[];
  /** Bytes after the last newline, when there are any. */
  tornTail: Buffer | null;
  /** Byte length of the good prefix: everything up to and including the last newline. */
  goodLength: number;
};

const NL = 0x0a;

export function parseJsonl<T>(buf: Buffer, validate: (value: unknown) => T | undefined): JsonlParse<T> {
  const values: T[] = [];
  const bad: { line: number; start: number; end: number }[] = [];
  let start = 0;
  let line = 0;
  for (let nl = buf.indexOf(NL, start); nl !== -1; nl = buf.indexOf(NL, start)) {
    line++;
    const text = buf.toString('utf8', start, nl);
    const lineStart = start;
    start = nl + 1;
    if (text.trim() === '') continue;
    const value = parseLine(text, validate);
    if (value === undefined) bad.push({ line, start: lineStart, end: start });
    else values.push(value);
  }
  return { values, bad, tornTail: start < buf.length ? buf.subarray(start) : null, goodLength: start };
}

function parseLine<T>(text: string, validate: (value: unknown) => T | undefined): T | undefined {
  try {
    return validate(JSON.parse(text));
  } catch {
    return undefined;
  }
}

export function toJsonl(values: readonly unknown[]): string {
  let out = '';
  for (const v of values) out += `${JSON.stringify(v)}\n`;
  return out;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The good prefix of buf with the bad lines cut out (for rewriting a log whose middle is damaged). */
export function withoutBadLines(buf: Buffer, parsed: JsonlParse<unknown>): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (const b of parsed.bad) {
    parts.push(buf.subarray(from, b.start));
    from = b.end;
  }
  parts.push(buf.subarray(from, parsed.goodLength));
  return Buffer.concat(parts);
}
