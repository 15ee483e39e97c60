import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { JobKind, JobRecord, JobStatus } from '../../shared';
import type { LogFields, StoreLogger } from './types';

/** Test-only helpers (imported by *.test.ts and the bench; nothing in the store imports this). */
export type LogLine = { level: 'info' | 'warn'; msg: string; fields: LogFields | undefined };

export function memoryLogger(): StoreLogger & { lines: LogLine[]; warnings(): string[] } {
  const lines: LogLine[] = [];
  return {
    lines,
    info: (msg, fields) => void lines.push({ level: 'info', msg, fields }),
    warn: (msg, fields) => void lines.push({ level: 'warn', msg, fields }),
    warnings: () => lines.filter((l) => l.level === 'warn').map((l) => l.msg),
  };
}

export async function tempDataDir(prefix = 'benchdesk-store-'): Promise<string> {
  return fsp.mkdtemp(path.join(os.tmpdir(), prefix));
}

let counter = 0;

export function makeJob(overrides: Partial<JobRecord> = {}): JobRecord {
  counter++;
  const created = overrides.created_at ?? new Date(Date.UTC(2030, 0, 1) + counter * 1000).toISOString();
  return {
    job_id: `job-${process.pid}-${counter}`,
    tenant_id: 'default',
    kind: 'benchmark' as JobKind,
    status: 'queued' as JobStatus,
    message: 'accepted',
    created_at: created,
    started_at: null,
    finished_at: null,
    updated_at: created,
    request: { model: 'llama3', question: 'why is the pod crashing?', marketplace: false },
    progress: null,
    result: null,
    error: null,
    error_code: null,
    resources: null,
    ...overrides,
  };
}
