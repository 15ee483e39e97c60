import { createReadStream, createWriteStream, type ReadStream, type WriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { SERVING_REQUEST_COLUMNS, ServingRequestRecordSchema, type ServingRequestRecord } from '../../shared';
import { jobShardDir } from '../store/layout';

/**
 * A serving job's per-request records (design §13b): one JSON line per measured request, next to
 * the job's record (`jobs/<shard>/<job_id>.requests.jsonl`), written as the levels run and read
 * back as JSONL or CSV by `GET /v1/jobs/{id}/requests`.
 */

export function requestLogPath(dataDir: string, jobId: string): string {
  return path.join(jobShardDir(dataDir, jobId), `${jobId}.requests.jsonl`);
}

export type RequestLogWriter = {
  write(record: ServingRequestRecord): void;
  close(): Promise<void>;
};

/** Starts the file afresh (a job run again after a restart measures again). */
export async function openRequestLog(file: string): Promise<RequestLogWriter> {
  await mkdir(path.dirname(file), { recursive: true });
  const stream: WriteStream = createWriteStream(file, { flags: 'w', mode: 0o600 });
  let failure: Error | null = null;
  // A full disk loses the export, never the job: the result's figures do not come from this file.
  stream.on('error', (error) => (failure ??= error));
  return {
    write(record) {
      if (failure === null) stream.write(`${JSON.stringify(record)}\n`);
    },
    close: () => new Promise<void>((resolve) => stream.end(() => resolve())),
  };
}

/** A CSV cell: quoted when it must be, and a text starting like a formula (= + - @, tab, CR) made inert with a leading '. */
export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * The records as `jsonl` or `csv` (columns in SERVING_REQUEST_COLUMNS order); null when the job
 * wrote none (not a serving job, or none ran yet). Lines that do not parse (a torn last line after
 * a crash) are skipped.
 */
export async function readRequestLog(file: string, format: 'jsonl' | 'csv'): Promise<string | null> {
  const stream: ReadStream = createReadStream(file, { encoding: 'utf8' });
  try {
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const out: string[] = format === 'csv' ? [SERVING_REQUEST_COLUMNS.join(',')] : [];
  for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
    if (line.trim() === '') continue;
    let parsed;
    try {
      parsed = ServingRequestRecordSchema.safeParse(JSON.parse(line));
    } catch {
      continue;
    }
    if (!parsed.success) continue;
    const record = parsed.data;
    out.push(format === 'csv' ? SERVING_REQUEST_COLUMNS.map((c) => csvCell(record[c])).join(',') : JSON.stringify(record));
  }
  return out.length > 0 ? `${out.join('\n')}\n` : emptyRequestLog(format);
}

/** No records: an empty JSONL, or a CSV of its header alone. */
export function emptyRequestLog(format: 'jsonl' | 'csv'): string {
  return format === 'csv' ? `${SERVING_REQUEST_COLUMNS.join(',')}\n` : '';
}
