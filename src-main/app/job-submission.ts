import { createHash } from 'node:crypto';
import type { JobAccepted, JobKind, JobRecord, JobRequestByKind } from '../../shared';
import { EngineClosedError, type JobEngine } from '../engine/engine';
import type { JobStore } from '../store/types';
import { ProblemError } from './problem-error';

/**
 * Submitting a validated job, once per Idempotency-Key: a retry with the same key and body answers
 * the job of the first request (`replayed`), a different body with the same key is a 422, and a
 * duplicate that arrives while the first is still being stored is a 409.
 */

export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

/** RFC 8941 sf-string form (quoted) is what the draft specifies; bare values are accepted for curl users. */
export function normalizeIdempotencyKey(raw: string): string {
  const trimmed = raw.trim();
  const unquoted = trimmed.length >= 2 && trimmed.startsWith('"') && trimmed.endsWith('"') ? trimmed.slice(1, -1) : trimmed;
  if (unquoted.length < 1 || unquoted.length > 255 || !/^[\x21-\x7e]+$/.test(unquoted)) {
    throw new ProblemError(400, 'bad_request', 'Idempotency-Key must be 1-255 printable ASCII characters without spaces');
  }
  return unquoted;
}

/** Stable JSON (sorted keys) so the same request always has the same fingerprint. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function fingerprint(request: unknown): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex');
}

export type JobSubmitter = <K extends JobKind>(
  tenantId: string,
  kind: K,
  request: JobRequestByKind[K],
  rawKey: string | undefined,
) => Promise<{ accepted: JobAccepted; replayed: boolean }>;

export function createJobSubmitter({ engine, store, now }: { engine: JobEngine; store: JobStore; now: () => number }): JobSubmitter {
  /** First requests still being stored, per (tenant, kind, key): a concurrent duplicate gets 409. */
  const inFlight = new Set<string>();

  async function submit<K extends JobKind>(
    tenantId: string,
    kind: K,
    request: JobRequestByKind[K],
    idempotency?: { tenant_id: string; kind: JobKind; key: string; fingerprint: string },
  ): Promise<JobRecord> {
    try {
      return await engine.submit(tenantId, kind, request, idempotency);
    } catch (err) {
      if (err instanceof EngineClosedError) throw new ProblemError(503, 'shutting_down', err.message);
      throw err;
    }
  }

  return async (tenantId, kind, request, rawKey) => {
    if (rawKey === undefined) {
      const job = await submit(tenantId, kind, request);
      return { accepted: { job_id: job.job_id, status: 'accepted' }, replayed: false };
    }
    const key = normalizeIdempotencyKey(rawKey);
    const print = fingerprint(request);
    const scope = `${tenantId}\u0000${kind}\u0000${key}`;
    if (inFlight.has(scope)) {
      throw new ProblemError(409, 'idempotency_in_flight', 'a request with this Idempotency-Key is still being processed; retry shortly');
    }
    inFlight.add(scope);
    try {
      const existing = await store.getIdempotency(tenantId, kind, key);
      if (existing && now() - Date.parse(existing.created_at) < IDEMPOTENCY_RETENTION_MS) {
        if (existing.fingerprint !== print) {
          throw new ProblemError(422, 'idempotency_key_reused', 'this Idempotency-Key was already used with a different request body');
        }
        return { accepted: { job_id: existing.job_id, status: 'accepted' }, replayed: true };
      }
      const job = await submit(tenantId, kind, request, { tenant_id: tenantId, kind, key, fingerprint: print });
      return { accepted: { job_id: job.job_id, status: 'accepted' }, replayed: false };
    } finally {
      inFlight.delete(scope);
    }
  };
}
