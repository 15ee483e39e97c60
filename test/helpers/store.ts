import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { StoredRequestSchemas, type JobRecord, type JobStatus } from '../../shared';
import type { LogFields, StoreLogger } from '../../src-main/store/types';

/** Helpers for tests of the job store (test/store, test/robustness). */
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
    kind: 'benchmark',
    status: 'queued' as JobStatus,
    message: 'accepted',
    created_at: created,
    started_at: null,
    finished_at: null,
    updated_at: created,
    request: structuredClone(REQUESTS[overrides.kind ?? 'benchmark']),
    progress: null,
    result: null,
    error: null,
    error_code: null,
    resources: null,
    ...overrides,
  } as JobRecord;
}

// Stored requests as the engine writes them (defaults applied, backend_type normalised).
const BACKEND = { backend_url: 'http://127.0.0.1:11434', backend_type: 'llmserver' } as const;
const REQUESTS = {
  benchmark: StoredRequestSchemas.benchmark.parse({ ...BACKEND, model: 'llama3', question: 'why is the pod crashing?', marketplace: false }),
  'agentic-agent': StoredRequestSchemas['agentic-agent'].parse({ ...BACKEND, model: 'llama3', question: 'why is the pod crashing?', agent: 'builtin' }),
  'llm-instance': StoredRequestSchemas['llm-instance'].parse({ ...BACKEND, marketplace: false }),
  suite: StoredRequestSchemas.suite.parse({ ...BACKEND, suite_id: 'starter', model: 'llama3' }),
  'serving-benchmark': StoredRequestSchemas['serving-benchmark'].parse({ ...BACKEND, model: 'llama3', marketplace: false }),
};
