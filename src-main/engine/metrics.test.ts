import { describe, expect, it } from 'vitest';
import type { JobEvent } from '../../shared';
import { percentile, summarizeEvents } from './metrics';

let seq = 0;
function ev(event: string, status: JobEvent['status'], duration_ms: number | null, job_id = 'j1'): JobEvent {
  seq += 1;
  return { seq, job_id, event, status, message: null, duration_ms, error_type: null, labels: {}, recorded_at: '2025-01-01T00:00:00.000Z' };
}

describe('percentile (nearest rank)', () => {
  it('is 0 for no samples and the only value for one', () => {
    expect(percentile([], 95)).toBe(0);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([7], 0)).toBe(7);
  });

  it('picks the ceil(p/100*n)-th smallest value', () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(hundred, 95)).toBe(95);
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 100)).toBe(100);
    expect(percentile(hundred, 99.5)).toBe(100);
    const twenty = Array.from({ length: 20 }, (_, i) => (i + 1) * 10);
    expect(percentile(twenty, 95)).toBe(190); // ceil(19) = 19th
    const ten = Array.from({ length: 10 }, (_, i) => i + 1);
    expect(percentile(ten, 95)).toBe(10); // ceil(9.5) = 10th
    expect(percentile([1, 2, 3], 95)).toBe(3);
  });
});

describe('summarizeEvents', () => {
  it('aggregates only ok/error outcomes, per event name, sorted by name', async () => {
    const durations = Array.from({ length: 20 }, (_, i) => i + 1); // 1..20 ms
    const events: JobEvent[] = [
      ev('job.queued', 'info', null),
      ...durations.flatMap((d, i) => [ev('llmserver.warmup', 'started', null), ev('llmserver.warmup', i === 0 ? 'error' : 'ok', d)]),
      ev('agent.ask', 'ok', 12.345),
      ev('agent.ask', 'error', null),
    ];
    const rows = await summarizeEvents(events);
    expect(rows.map((r) => r.event)).toEqual(['agent.ask', 'llmserver.warmup']);
    const warm = rows[1];
    expect(warm).toEqual({ event: 'llmserver.warmup', total: 20, ok: 19, error: 1, avg_ms: 10.5, min_ms: 1, max_ms: 20, p95_ms: 19 });
    // a missing duration counts as 0 ms; values are rounded to 0.1 ms
    expect(rows[0]).toEqual({ event: 'agent.ask', total: 2, ok: 1, error: 1, avg_ms: 6.2, min_ms: 0, max_ms: 12.3, p95_ms: 12.3 });
  });

  it('accepts an async iterable and returns [] for no outcomes', async () => {
    async function* gen(): AsyncGenerator<JobEvent> {
      yield ev('job.running', 'info', null);
      yield ev('phase.provision', 'started', null);
    }
    expect(await summarizeEvents(gen())).toEqual([]);
    async function* gen2(): AsyncGenerator<JobEvent> {
      for (const d of [5, 1, 3]) yield ev('phase.provision', 'ok', d);
    }
    expect(await summarizeEvents(gen2())).toEqual([
      { event: 'phase.provision', total: 3, ok: 3, error: 0, avg_ms: 3, min_ms: 1, max_ms: 5, p95_ms: 5 },
    ]);
  });
});
