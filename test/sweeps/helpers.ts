import { expect } from 'vitest';
import { SweepRecordSchema, isSweepFinished, type SweepRecord } from '../../shared';
import type { SweepJobEnd, SweepJobKind, SweepJobRunner } from '../../src-main/sweeps/ports';
import type { Harness } from '../workflows/harness';

/**
 * Helpers for sweep tests against the fakes: an in-test job runner (the `suite` and
 * `serving-benchmark` kinds stand in for jobs whose results the test chooses, held until
 * released) and HTTP pollers for sweeps.
 */

export type HeldJob = {
  id: string;
  kind: SweepJobKind;
  request: Record<string, unknown>;
  tag: string;
  cancelled: boolean;
  finish(end?: Partial<SweepJobEnd>): void;
};

export function suiteResult(passed: number, total: number): unknown {
  return {
    summary: { accuracy: total ? passed / total : 0, passed, total, cost_per_correct_usd: null },
    scenarios: Array.from({ length: total }, (_, i) => ({ scenario_id: `s${i}`, passed: i < passed, tags: [i % 2 ? 'network' : 'pods'] })),
  };
}

export function servingResult(tps: number): unknown {
  return { levels: [{ concurrency: 1, output_tokens_per_s: tps / 2, ttft_ms: { p50: 40 } }, { concurrency: 8, output_tokens_per_s: tps, ttft_ms: { p50: 90 } }] };
}

/** A suite result without phases gets one: the time the held job really ran (what $ per correct answer counts). */
function withOwnTime(kind: SweepJobKind, result: unknown, submittedAt: number): unknown {
  if (kind !== 'suite' || !result || typeof result !== 'object' || 'phases' in result) return result;
  return { ...result, phases: [{ name: 'analysis', status: 'ok', started_at: new Date(submittedAt).toISOString(), duration_ms: Math.max(1, Date.now() - submittedAt) }] };
}

/** Jobs that end at once with `result`, or when the test finishes them (`hold: true`). */
export function heldRunner(options: { hold?: boolean; result?: (kind: SweepJobKind, model: string) => unknown } = {}) {
  const jobs: HeldJob[] = [];
  const waiting = new Map<string, (end: SweepJobEnd) => void>();
  const ended = new Map<string, SweepJobEnd>();
  const result = options.result ?? ((kind: SweepJobKind, model: string) => (kind === 'suite' ? suiteResult(model.includes('llama') ? 8 : 5, 10) : servingResult(model.includes('llama') ? 60 : 90)));
  const runner: SweepJobRunner = {
    supports: () => true,
    async submit(_tenant, kind, request, tag) {
      const id = `held-${jobs.length + 1}`;
      const submittedAt = Date.now();
      const job: HeldJob = {
        id,
        kind,
        request,
        tag,
        cancelled: false,
        finish(end = {}) {
          const full: SweepJobEnd = { status: 'succeeded', result: withOwnTime(kind, result(kind, String(request.model)), submittedAt), error: null, error_code: null, ...end };
          ended.set(id, full);
          waiting.get(id)?.(full);
        },
      };
      jobs.push(job);
      if (!options.hold) job.finish();
      return id;
    },
    wait(jobId, signal) {
      return new Promise((resolve, reject) => {
        const done = ended.get(jobId);
        if (done) return resolve(done);
        if (signal.aborted) return reject(new Error('aborted'));
        waiting.set(jobId, resolve);
        signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      });
    },
    async findTagged(_tenant, _kind, tag) {
      return jobs.find((j) => j.tag === tag)?.id;
    },
    async cancel(_tenant, jobId) {
      const job = jobs.find((j) => j.id === jobId);
      if (job) job.cancelled = true;
    },
  };
  return { runner, jobs };
}

export async function getSweep(h: Harness, id: string): Promise<SweepRecord> {
  const res = await h.get(`/v1/sweeps/${id}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return SweepRecordSchema.parse(res.body);
}

export async function pollSweep(h: Harness, id: string, until: (s: SweepRecord) => boolean = (s) => isSweepFinished(s.status), timeoutMs = 20_000): Promise<SweepRecord> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const sweep = await getSweep(h, id);
    if (until(sweep)) return sweep;
    if (Date.now() > deadline) throw new Error(`sweep ${id} did not get there in ${timeoutMs} ms: ${sweep.status} ${JSON.stringify(sweep.cells.map((c) => c.status))} ${JSON.stringify(sweep.machines.map((m) => m.status))}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
