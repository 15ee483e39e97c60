import { describe, expect, it } from 'vitest';
import { JobRecordSchema, ServingLevelSchema, type JobRecord, type ServingLevel } from '../../../shared';
import type { SweepRecord } from '../../../shared';
import { sharedLevels, throughputSeries, toServingRow, withSweepMachine } from './serving-compare-model';

const level = (concurrency: number, tps: number, usd: number | null): ServingLevel =>
  ServingLevelSchema.parse({
  concurrency,
  requests: 8,
  failed: 0,
  first_error: null,
  duration_s: 1,
  request_throughput: 8,
  output_tokens_per_s: tps,
  total_tokens_per_s: tps * 2,
  output_tokens: 100,
  prompt_tokens: 100,
  ttft_ms: { mean: 100, p50: 100, p90: 120, p99: 130 },
  tpot_ms: { mean: 10, p50: 10, p90: 11, p99: 12 },
  itl_ms: { mean: 10, p50: 10, p90: 11, p99: 12 },
  e2e_ms: { mean: 900, p50: 900, p90: 950, p99: 990 },
  server_tokens_per_s: 100,
  usd_per_million_output_tokens: usd,
  });

function job(id: string, levels: ServingLevel[], best: { by_throughput: number | null; by_cost: number | null }, rented: boolean): JobRecord {
  const at = '2026-01-01T00:00:00Z';
  return JobRecordSchema.parse({
    job_id: id,
    tenant_id: 'default',
    kind: 'serving-benchmark',
    status: 'succeeded',
    message: 'done',
    created_at: at,
    started_at: at,
    finished_at: at,
    updated_at: at,
    request: { model: 'm', backend_url: 'http://h' },
    progress: null,
    result: {
      model: 'm',
      backend_url: 'http://h',
      prompt_tokens: 256,
      output_tokens: 128,
      requests_per_level: 8,
      warmup_requests: 2,
      levels,
      best,
      contract_id: rented ? 1 : null,
      phases: [],
      cost: { dph_total: rented ? 0.4 : 0, rented_seconds: 60, cost_usd: rented ? 0.0067 : 0 },
      instance: rented ? { id: 1, gpu_name: 'RTX 4090', num_gpus: 1, released: true } : null,
      teardown: null,
    },
    error: null,
    error_code: null,
    resources: null,
  });
}

describe('serving comparison', () => {
  it('takes a run’s fastest and cheapest levels and its machine', () => {
    const row = toServingRow(job('a', [level(1, 50, 2.2), level(4, 150, 0.74)], { by_throughput: 4, by_cost: 4 }, true));
    expect(row).toMatchObject({ model: 'm', gpu_name: 'RTX 4090', dph_total: 0.4, fastest: { concurrency: 4 }, cheapest: { concurrency: 4 } });
    expect(toServingRow(job('b', [level(1, 50, null)], { by_throughput: 1, by_cost: null }, false))).toMatchObject({ gpu_name: null, dph_total: null, cheapest: null });
  });

  it('puts runs of different levels on one axis, with gaps where a run has no figure', () => {
    const rows = [
      toServingRow(job('a', [level(1, 50, null), level(4, 150, null)], { by_throughput: 4, by_cost: null }, false)),
      toServingRow(job('b', [level(2, 90, null), level(4, 160, null)], { by_throughput: 4, by_cost: null }, false)),
    ].filter((r) => r !== null);
    const levels = sharedLevels(rows);
    expect(levels).toEqual([1, 2, 4]);
    expect(throughputSeries(rows, levels)).toEqual([
      [50, null, 150],
      [null, 90, 160],
    ]);
  });

  it("a sweep's run carries the sweep machine's GPU, $/h and instance and the sweep's $ per 1M tokens; the engine defaults to ollama", () => {
    const row = toServingRow(job('s1', [level(1, 50, null)], { by_throughput: 1, by_cost: null }, false));
    if (!row) throw new Error('no row');
    expect(row.engine).toBe('ollama');
    const sweep = {
      name: 'which 8B',
      cells: [{ model: 'm', gpu: 'RTX 4090', status: 'succeeded', job_ids: ['s1'], cost_usd: 0.1, usd_per_million_output_tokens: 1.23 }],
      machines: [],
      earlier_machines: [{ gpu: 'RTX 4090', status: 'released', machine_id: 'm1', instance_id: 7000011, num_gpus: 1, dph_total: 0.35, cost_usd: 0.1 }],
    } as unknown as SweepRecord;
    expect(withSweepMachine(row, [sweep])).toMatchObject({ gpu_name: 'RTX 4090', dph_total: 0.35, instance_id: 7000011, sweep: 'which 8B', usd_per_million: 1.23 });
    // A run that rented its own machine keeps it.
    const own = toServingRow(job('s1', [level(1, 50, 2)], { by_throughput: 1, by_cost: 1 }, true));
    if (!own) throw new Error('no row');
    expect(withSweepMachine(own, [sweep]).sweep).toBeNull();
  });
});
