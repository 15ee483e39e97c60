import { describe, expect, it } from 'vitest';
import { EXPORT_COLUMNS, questionsOf, toCsv, toJson, toMarkdown, type CompareRow } from './compare-model';

const row = (over: Partial<CompareRow>): CompareRow => ({
  job_id: 'j1',
  finished_at: '2026-11-22T10:00:00Z',
  question: 'Why?',
  model: 'llama3.1:8b',
  agent: 'builtin',
  gpu_name: 'RTX 3090',
  num_gpus: 2,
  dph_total_usd_per_h: 0.33,
  provision_ms: 1000,
  warmup_ms: 200,
  analysis_ms: 3000,
  teardown_ms: 100,
  total_ms: 4300,
  tokens_per_second: 42.5,
  prompt_tokens: 100,
  completion_tokens: 20,
  steps: 3,
  tool_calls: 2,
  cost_usd: 0.0004,
  answer: 'ok',
  ...over,
});

describe('compare exports', () => {
  it('CSV quotes commas, quotes and line breaks (RFC 4180) and leaves nulls empty', () => {
    const csv = toCsv([row({ answer: 'a, "b"\nc', gpu_name: null, num_gpus: null })]);
    const [header, line] = csv.split('\r\n');
    expect(header).toBe(EXPORT_COLUMNS.join(','));
    expect(line).toContain(',"a, ""b""');
    expect(csv).toContain('c"\r\n');
    expect(line?.split(',')[5]).toBe('');
  });

  it('Markdown escapes pipes in cells and lists every answer', () => {
    const md = toMarkdown([row({ model: 'a|b' }), row({ job_id: 'j2', answer: 'second' })], '2026-11-22T10:00:00Z');
    expect(md).toContain('a\\|b');
    expect(md.split('\n').filter((l) => l.startsWith('| '))).toHaveLength(4);
    expect(md).toContain('### j2 (llama3.1:8b)');
    expect(md).toContain('second');
  });

  it('JSON round-trips the rows', () => {
    const rows = [row({}), row({ job_id: 'j2' })];
    expect(JSON.parse(toJson(rows, 'now')).runs).toEqual(rows);
  });

  it('questionsOf counts runs per question, most first', () => {
    expect(questionsOf([row({}), row({ job_id: 'b' }), row({ job_id: 'c', question: 'Other' })])).toEqual([
      { question: 'Why?', runs: 2 },
      { question: 'Other', runs: 1 },
    ]);
  });
});
