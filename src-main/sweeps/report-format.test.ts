import { describe, expect, it } from 'vitest';
import { buildReport } from './ranking';
import { cell, sweep } from './test-cells';
import { CSV_COLUMNS, escapeHtml, neutraliseFormula, reportCsv, reportMarkdown } from './report-format';

describe('report formats', () => {
  const cells = [
    cell({ model: 'qwen2.5:7b', gpu: 'RTX 3090', accuracy: 0.5, passed: 5, total: 10, cost_usd: 0.05, suite_cost_usd: 0.05, cost_per_correct_usd: 0.01, tags: { pods: { passed: 2, total: 4, accuracy: 0.5 } } }),
    cell({ model: 'llama3.1:8b', gpu: 'RTX 3090', accuracy: 0.8, passed: 8, total: 10, cost_usd: 0.06, suite_cost_usd: 0.06, cost_per_correct_usd: 0.0075, tags: { pods: { passed: 4, total: 4, accuracy: 1 } }, serving_error: 'the serving-benchmark job failed: boom' }),
    cell({ model: 'llama3.1:70b', gpu: 'RTX 3090', status: 'skipped', reason: 'needs 49 GB, has 24 GB, a|b' }),
  ];

  it('Markdown: a title, the tiered table with intervals and units, unranked cells with their reason, per-tag accuracy, the Pareto front, the manifest', () => {
    const md = reportMarkdown(buildReport(sweep(cells, { suite_id: 'starter', constraints: { min_accuracy: 0.7 } })));
    const lines = md.split('\n');
    expect(lines[0]).toBe('## Sweep: A \\| B');
    expect(md).toContain('**Answer:** llama3.1:8b on RTX 3090 is the cheapest cell that meets accuracy ≥ 70%');
    expect(md).toContain('| Tier | Model | GPU | Accuracy | 95% interval | Correct | Suite cost | $ / correct | Pareto | Note |');
    // 8/10 and 5/10 overlap: one tier, both rank 1.
    expect(md).toContain('| 1 | llama3.1:8b | RTX 3090 | 80.0 % | 49–94 % | 8/10 | $0.0600 | $0.0075 | ★ | serving failed: the serving-benchmark job failed: boom |');
    expect(md).toContain('| 1 | qwen2.5:7b | RTX 3090 | 50.0 % | 24–76 % | 5/10 |');
    expect(md).toContain('| – | llama3.1:70b | RTX 3090 | – | – | – | $0.0000 | – |  | skipped: needs 49 GB, has 24 GB, a\\|b |');
    expect(md).toContain('| pods | 50.0 % (2/4) | 100.0 % (4/4) |');
    expect(md).toContain('- llama3.1:8b @ RTX 3090: 80.0 % for $0.0600');
    expect(md).toMatch(/### Manifest\n\n- benchdesk: \d+\.\d+\.\d+/);
    for (const table of md.split('\n\n').filter((b) => b.startsWith('|'))) {
      const widths = table.split('\n').map((row) => row.split(/(?<!\\)\|/).length);
      expect(new Set(widths).size).toBe(1);
    }
  });

  it('Markdown escapes HTML: a name cannot inject markup', () => {
    const hostile = cell({ model: '<img src=x onerror=alert(1)>', gpu: '<script>x</script>', accuracy: 1, passed: 1, total: 1, cost_per_correct_usd: 1 });
    const md = reportMarkdown(buildReport({ ...sweep([hostile]), name: '<b>sweep</b>' }));
    expect(md).not.toMatch(/<(img|script|b)\b/);
    expect(md).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(md).toContain('## Sweep: &lt;b&gt;sweep&lt;/b&gt;');
    expect(escapeHtml('a & "b"')).toBe('a &amp; &quot;b&quot;');
  });

  it('CSV: units in the column names, intervals, quoted fields, one row per cell, the manifest in its columns', () => {
    const csv = reportCsv(buildReport(sweep(cells)));
    const rows = csv.trimEnd().split('\r\n');
    expect(rows[0]).toBe(CSV_COLUMNS.join(','));
    expect(rows).toHaveLength(4);
    const record = (row: string) => Object.fromEntries(CSV_COLUMNS.map((c, i) => [c, row.split(/,(?=(?:[^"]*"[^"]*")*[^"]*$)/)[i]]));
    expect(record(rows[1] ?? '')).toMatchObject({ rank_tier: '1', model: 'llama3.1:8b', accuracy_fraction: '0.8', accuracy_ci95_low_fraction: '0.4902', accuracy_ci95_high_fraction: '0.9433', passed_count: '8', cost_per_correct_usd: '0.0075', serving_error: 'the serving-benchmark job failed: boom' });
    expect(record(rows[3] ?? '')).toMatchObject({ rank_tier: '', reason: '"needs 49 GB, has 24 GB, a|b"', pareto: 'false' });
    expect(record(rows[1] ?? '').benchdesk_version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('CSV neutralises cells a spreadsheet would run as a formula', () => {
    const hostile = cell({ model: '=HYPERLINK("http://evil","x")', gpu: '+1+1', status: 'failed', reason: '@SUM(A1)' });
    const csv = reportCsv(buildReport(sweep([hostile, cell({ model: '-2', gpu: '\tcmd' })])));
    expect(csv).toContain(`"'=HYPERLINK(""http://evil"",""x"")",'+1+1,failed,'@SUM(A1)`);
    expect(csv).toContain(`'-2,'\tcmd,`);
    expect(neutraliseFormula('plain')).toBe('plain');
    for (const line of csv.split('\r\n')) for (const field of line.split(',')) expect(field).not.toMatch(/^[=+@]/);
  });

  it('a serving-only report ranks by $ / 1M output tokens', () => {
    const report = buildReport(sweep([cell({ model: 'a', output_tokens_per_s: 100, ttft_p50_ms: 80, ttft_p99_ms: 150, usd_per_million_output_tokens: 0.5 })], { suite_id: undefined }));
    expect(report.ranked_by).toBe('serving');
    expect(reportMarkdown(report)).toContain('| 1 | a | g | $0.5000 | 100.0 | 80 | 150 | $0.0000 |  |');
  });
});
