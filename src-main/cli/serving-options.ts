import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { InvalidArgumentError } from '@commander-js/extra-typings';
import type { RequestRate, ServingDataset } from '../../shared';
import type { Connection } from './connection';
import { err, note } from './output';

/** Parsers and helpers of `run-serving-benchmark`'s workload options (design §13b). */

/** `--concurrency 1,2,4,8` → [1, 2, 4, 8]: whole numbers ≥ 1, comma-separated. */
export function parseConcurrency(value: string): number[] {
  const parts = value.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => !/^\d+$/.test(p) || Number(p) < 1)) {
    throw new InvalidArgumentError('must be comma-separated whole numbers ≥ 1 (requests in flight per level), e.g. 1,2,4,8');
  }
  return parts.map(Number);
}

/** `--request-rate 1,4,inf` → [1, 4, "inf"]: requests per second (> 0) or inf, comma-separated. */
export function parseRequestRates(value: string): RequestRate[] {
  const parts = value.split(',').map((p) => p.trim().toLowerCase());
  if (parts.length === 0 || parts.some((p) => p !== 'inf' && !(/^\d+(\.\d+)?$/.test(p) && Number(p) > 0))) {
    throw new InvalidArgumentError('must be comma-separated requests per second (> 0) or inf (all at once), e.g. 0.5,2,8,inf');
  }
  return parts.map((p) => (p === 'inf' ? 'inf' : Number(p)));
}

/** A positive number (decimals allowed): --burstiness, --duration, SLO bounds. */
export function parsePositiveNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a number > 0');
  return n;
}

/** A ratio in [0, 1]: --range-ratio. */
export function parseRatio(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('must be a number from 0 to 1');
  return n;
}

/** `--dataset random|shipped|<file.json|file.jsonl>`: a file path is made absolute (the server reads it). */
export function parseDataset(value: string): ServingDataset {
  const v = value.trim();
  if (v === 'random') return { kind: 'random', range_ratio: 0 };
  if (v === 'shipped') return { kind: 'shipped' };
  if (/\.jsonl?$/i.test(v)) return { kind: 'file', path: path.resolve(v) };
  throw new InvalidArgumentError('must be random, shipped, or a .json (ShareGPT) / .jsonl ({"prompt", "output_tokens"} per line) file');
}

/** `--export-requests FILE`: after the job, its per-request records into FILE (CSV for .csv, else JSONL). */
export function requestExporter(file: string): (conn: Connection, jobId: string) => Promise<void> {
  const format = /\.csv$/i.test(file) ? 'csv' : 'jsonl';
  return async (conn, jobId) => {
    try {
      const text = await conn.client.getJobRequests({ job_id: jobId, format });
      await writeFile(file, text, { mode: 0o600 });
      const rows = text.split('\n').filter(Boolean).length - (format === 'csv' ? 1 : 0);
      note(err.dim(`${rows} request record${rows === 1 ? '' : 's'} written to ${file} (${format})`));
    } catch (error) {
      note(err.yellow(`could not export the request records to ${file}: ${error instanceof Error ? error.message : String(error)}`));
    }
  };
}
