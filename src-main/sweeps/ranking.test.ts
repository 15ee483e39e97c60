import { describe, expect, it } from 'vitest';
import type { SweepCell, SweepRecord } from '../../shared/sweeps';
import { buildReport, paretoFront, rankCells } from './ranking';
import { CSV_COLUMNS, reportCsv, reportMarkdown } from './report-format';
import { planMachine } from './planner';
import { costPerCorrect, readServingResult, readSuiteResult, ResultShapeError, usdPerMillionTokens } from './job-results';
import type { MarketplaceOffer } from '../marketplace/vast-wire';

const cell = (over: Partial<SweepCell>): SweepCell => ({ model: 'm', gpu: 'g', status: 'succeeded', job_ids: [], cost_usd: 0, ...over });

describe('ranking', () => {
  it('ranks by accuracy, then cost per correct answer; unscored and unfinished cells are not ranked', () => {
    const cells = [
      cell({ model: 'a', accuracy: 0.8, cost_usd: 1, cost_per_correct_usd: 0.125 }),
      cell({ model: 'b', accuracy: 0.9, cost_usd: 3, cost_per_correct_usd: 0.33 }),
      cell({ model: 'c', accuracy: 0.8, cost_usd: 0.5, cost_per_correct_usd: 0.0625 }),
      cell({ model: 'd', status: 'failed' }),
      cell({ model: 'e', accuracy: 0, cost_usd: 0.1 }),
      cell({ model: 'f', status: 'skipped' }),
    ];
    expect(rankCells(cells, 'accuracy')).toEqual([1, 2, 0, 4]);
  });

  it('a serving-only sweep ranks by $ per million output tokens, then throughput', () => {
    const cells = [
      cell({ model: 'a', usd_per_million_output_tokens: 2, output_tokens_per_s: 50 }),
      cell({ model: 'b', usd_per_million_output_tokens: 1, output_tokens_per_s: 20 }),
      cell({ model: 'c', usd_per_million_output_tokens: 1, output_tokens_per_s: 40 }),
      cell({ model: 'd', status: 'budget_exceeded' }),
    ];
    expect(rankCells(cells, 'serving')).toEqual([2, 1, 0]);
  });

  it('the Pareto front keeps the cells no other beats on both accuracy and cost, cheapest first', () => {
    const cells = [
      cell({ accuracy: 0.9, cost_usd: 3 }),
      cell({ accuracy: 0.8, cost_usd: 1 }),
      cell({ accuracy: 0.7, cost_usd: 2 }), // dominated by the second
      cell({ accuracy: 0.9, cost_usd: 4 }), // dominated by the first
      cell({ accuracy: 0.95, cost_usd: 10 }),
      cell({ accuracy: 1, cost_usd: 0.1, status: 'failed' }),
    ];
    expect(paretoFront(cells)).toEqual([1, 0, 4]);
  });
});

function sweep(cells: SweepCell[], request: Partial<SweepRecord['request']> = { suite_id: 'starter' }): SweepRecord {
  return {
    sweep_id: 'sw-test',
    tenant_id: 'default',
    name: 'A | B',
    status: 'succeeded',
    message: '',
    created_at: '2026-01-01T00:00:00.000Z',
    started_at: null,
    finished_at: null,
    updated_at: '2026-01-01T01:00:00.000Z',
    request: { name: 'x', models: [], gpus: [], agent: 'builtin', repeat: 1, min_dph: 0, reliability: 0.99, max_total_cost_usd: 5, machines_at_once: 1, ...request },
    spend_usd: 1.5,
    max_total_cost_usd: 5,
    cells,
    machines: [],
    earlier_machines: [],
    ranking: [],
    error: null,
    error_code: null,
  };
}

describe('report formats', () => {
  const cells = [
    cell({ model: 'qwen2.5:7b', gpu: 'RTX 3090', accuracy: 0.5, passed: 5, total: 10, cost_usd: 0.05, cost_per_correct_usd: 0.01, tags: { pods: { passed: 2, total: 4, accuracy: 0.5 } } }),
    cell({ model: 'llama3.1:8b', gpu: 'RTX 3090', accuracy: 0.8, passed: 8, total: 10, cost_usd: 0.06, cost_per_correct_usd: 0.0075, tags: { pods: { passed: 4, total: 4, accuracy: 1 } } }),
    cell({ model: 'llama3.1:70b', gpu: 'RTX 3090', status: 'skipped', reason: 'needs 49 GB, has 24 GB, a|b' }),
  ];

  it('Markdown: a title, the ranked table with units, unranked cells with their reason, per-tag accuracy, the Pareto front', () => {
    const md = reportMarkdown(buildReport(sweep(cells)));
    const lines = md.split('\n');
    expect(lines[0]).toBe('## Sweep: A \\| B');
    expect(md).toContain('| # | Model | GPU | Accuracy | Correct | Cost | $ / correct | Pareto | Note |');
    expect(md).toContain('| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    expect(md).toContain('| 1 | llama3.1:8b | RTX 3090 | 80.0 % | 8/10 | $0.0600 | $0.0075 | ★ |  |');
    expect(md).toContain('| – | llama3.1:70b | RTX 3090 | – | – | $0.0000 | – |  | skipped: needs 49 GB, has 24 GB, a\\|b |');
    expect(md).toContain('### Accuracy per tag');
    expect(md).toContain('| pods | 50.0 % (2/4) | 100.0 % (4/4) |');
    expect(md).toContain('- llama3.1:8b @ RTX 3090: 80.0 % for $0.0600');
    // Every table row has as many cells as its header.
    for (const table of md.split('\n\n').filter((b) => b.startsWith('|'))) {
      const widths = table.split('\n').map((row) => row.split(/(?<!\\)\|/).length);
      expect(new Set(widths).size).toBe(1);
    }
  });

  it('CSV: units in the column names, quoted fields, one row per cell', () => {
    const csv = reportCsv(buildReport(sweep(cells)));
    const rows = csv.trimEnd().split('\r\n');
    expect(rows[0]).toBe(CSV_COLUMNS.join(','));
    expect(rows[0]).toContain('cost_usd');
    expect(rows[0]).toContain('ttft_p50_ms');
    expect(rows[1]).toBe('1,llama3.1:8b,RTX 3090,succeeded,,0.8,8,10,0.06,0.0075,,,,true');
    expect(rows[3]).toBe(',llama3.1:70b,RTX 3090,skipped,"needs 49 GB, has 24 GB, a|b",,,,0,,,,,false');
  });

  it('a serving-only report ranks by $ / 1M output tokens', () => {
    const report = buildReport(sweep([cell({ model: 'a', output_tokens_per_s: 100, ttft_p50_ms: 80, usd_per_million_output_tokens: 0.5 })], { suite_id: undefined }));
    expect(report.ranked_by).toBe('serving');
    expect(reportMarkdown(report)).toContain('| 1 | a | g | $0.5000 | 100.0 | 80 | $0.0000 |  |');
  });
});

describe('planner', () => {
  const offer = (id: number, gpu: string, ram: number, dph: number, over: Partial<MarketplaceOffer> = {}) =>
    ({ id, gpu_name: gpu, gpu_ram: ram, num_gpus: 1, dph_total: dph, reliability2: 0.999, direct_port_count: 1, rentable: true, ...over }) as MarketplaceOffer;
  const catalog = (m: string) => ({ 'a:8b': { name: 'a:8b', vram_mb: 8000, required_disk_gb: 42, download_gb: 5 }, 'b:70b': { name: 'b:70b', vram_mb: 50_000, required_disk_gb: 80, download_gb: 43 } })[m];
  const criteria = { minDph: 0, maxDph: 5, minReliability: 0.9 };

  it('sizes the machine for the largest model that fits, disk for every model; skips the rest with the reason', () => {
    const plan = planMachine('RTX 4090', ['a:8b', 'b:70b', 'c:1b'], catalog, [offer(1, 'RTX 4090', 24_564, 0.3), offer(2, 'RTX 4090', 24_564, 0.25), offer(3, 'A100', 81_920, 1)], criteria);
    expect(plan.models).toEqual(['a:8b']);
    expect(plan.sizing).toMatchObject({ name: 'a:8b', vram_mb: 8000 });
    expect(plan.cheapestDph).toBe(0.25);
    expect(plan.skipped).toEqual([
      { model: 'b:70b', reason: 'b:70b needs 49 GB of GPU memory; the largest RTX 4090 offer has 24 GB' },
      { model: 'c:1b', reason: 'c:1b is not in the marketplace catalog, so its memory need is unknown' },
    ]);
  });

  it('nothing to rent when no offer of the GPU is usable (no direct port, over the price)', () => {
    const plan = planMachine('L4', ['a:8b'], catalog, [offer(1, 'L4', 24_000, 9), offer(2, 'L4', 24_000, 0.1, { direct_port_count: 0 })], criteria);
    expect(plan.sizing).toBeNull();
    expect(plan.skipped[0]?.reason).toMatch(/no L4 offer fits/);
  });

  it('two models on one machine: the disk holds both downloads', () => {
    const plan = planMachine('A100', ['a:8b', 'b:70b'], catalog, [offer(3, 'A100', 81_920, 1)], criteria);
    expect(plan.sizing?.vram_mb).toBe(50_000);
    expect(plan.sizing?.required_disk_gb).toBe(Math.ceil(48 * 1.15) + 32);
  });
});

describe('job results', () => {
  it('reads the suite figures and the tags; a result without them is a clear error', () => {
    const figures = readSuiteResult({ summary: { accuracy: 0.5, passed: 1, total: 2 }, scenarios: [{ scenario_id: 'x', passed: true }, { scenario_id: 'y', passed: false }], other: 1 }, (id) => (id === 'x' ? ['oom'] : ['oom', 'pending']));
    expect(figures).toEqual({ accuracy: 0.5, passed: 1, total: 2, tags: { oom: { passed: 1, total: 2, accuracy: 0.5 }, pending: { passed: 0, total: 1, accuracy: 0 } } });
    expect(() => readSuiteResult({ answer: 'x' })).toThrow(ResultShapeError);
  });

  it('the best serving level is the highest throughput, with its TTFT', () => {
    expect(readServingResult({ levels: [{ concurrency: 1, output_tokens_per_s: 10, ttft_ms: { p50: 5 } }, { concurrency: 8, output_tokens_per_s: 70, ttft_ms: { p50: 30 } }] })).toEqual({ output_tokens_per_s: 70, ttft_p50_ms: 30, concurrency: 8 });
  });

  it('money: $/1M tokens and $ per correct answer', () => {
    expect(usdPerMillionTokens(0.36, 100)).toBe(1);
    expect(usdPerMillionTokens(0.36, 0)).toBeUndefined();
    expect(costPerCorrect(0.3, 3)).toBe(0.1);
    expect(costPerCorrect(0.3, 0)).toBeUndefined();
  });
});
