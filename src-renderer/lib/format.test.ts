import { describe, expect, it } from 'vitest';
import { elapsedMs, firstLine, formatBytes, formatCount, formatDph, formatDuration, formatGb, formatGpus, formatMb, formatPercent, formatRelative, formatUsd, formatUsdTicks } from './format';

describe('format', () => {
  it('money: two decimals from $1 up with thousands separators, two significant digits under $1', () => {
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(0.18)).toBe('$0.18');
    expect(formatUsd(0.3023)).toBe('$0.30');
    expect(formatUsd(0.05)).toBe('$0.05');
    expect(formatUsd(0.0031)).toBe('$0.0031');
    expect(formatUsd(0.004231)).toBe('$0.0042');
    expect(formatUsd(0.0999)).toBe('$0.10');
    expect(formatUsd(0.000016)).toBe('<$0.0001');
    expect(formatUsd(0.999)).toBe('$1.00');
    expect(formatUsd(12.345)).toBe('$12.35');
    expect(formatUsd(1234.5)).toBe('$1,234.50');
    expect(formatUsd(1_234_567)).toBe('$1,234,567.00');
    expect(formatUsd(-0.18)).toBe('-$0.18');
    expect(formatUsd(null)).toBe('—');
    expect(formatUsd(Number.NaN)).toBe('—');
  });

  it('rates per hour use the same money format', () => {
    expect(formatDph(0.18)).toBe('$0.18/h');
    expect(formatDph(0.3023)).toBe('$0.30/h');
    expect(formatDph(36.4)).toBe('$36.40/h');
    expect(formatDph(undefined)).toBe('—');
  });

  it('durations with their unit', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(12_345)).toBe('12.3 s');
    expect(formatDuration(59_980)).toBe('1 min 00 s');
    expect(formatDuration(245_000)).toBe('4 min 05 s');
    expect(formatDuration(7_380_000)).toBe('2 h 03 min');
    expect(formatDuration(-1)).toBe('—');
  });

  it('relative times, past and future', () => {
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(formatRelative('2026-01-01T11:59:58Z', now)).toBe('just now');
    expect(formatRelative('2026-01-01T11:59:30Z', now)).toBe('30 seconds ago');
    expect(formatRelative('2026-01-01T11:55:00Z', now)).toBe('5 minutes ago');
    expect(formatRelative('2026-01-01T09:00:00Z', now)).toBe('3 hours ago');
    expect(formatRelative('2025-12-31T12:00:00Z', now)).toBe('yesterday');
    expect(formatRelative('2026-01-01T12:10:00Z', now)).toBe('in 10 minutes');
    expect(formatRelative(null, now)).toBe('—');
  });

  it('memory and disk always in GB', () => {
    expect(formatGb(0.8)).toBe('0.8 GB');
    expect(formatGb(7.46)).toBe('7.5 GB');
    expect(formatGb(24)).toBe('24 GB');
    expect(formatGb(1024)).toBe('1,024 GB');
    expect(formatMb(24_564)).toBe('24 GB');
    expect(formatMb(800)).toBe('0.8 GB');
    expect(formatMb(143_771)).toBe('140 GB');
    expect(formatBytes(4_920_734_208)).toBe('4.6 GB');
    expect(formatBytes(null)).toBe('—');
  });

  it('counts with a unit in the right number, GPUs as "1× name"', () => {
    expect(formatCount(1, 'tool call')).toBe('1 tool call');
    expect(formatCount(2, 'tool call')).toBe('2 tool calls');
    expect(formatCount(0, 'job')).toBe('0 jobs');
    expect(formatCount(2300, 'job')).toBe('2,300 jobs');
    expect(formatCount(2, 'match')).toBe('2 matches');
    expect(formatCount(3, 'entry')).toBe('3 entries');
    expect(formatCount(1, 'offer fits', 'offers fit')).toBe('1 offer fits');
    expect(formatCount(4, 'offer fits', 'offers fit')).toBe('4 offers fit');
    expect(formatCount(12345)).toBe('12,345');
    expect(formatGpus(1, 'RTX 3090')).toBe('1× RTX 3090');
    expect(formatGpus(8, 'H200')).toBe('8× H200');
    expect(formatGpus(null, 'A100')).toBe('A100');
    expect(formatGpus(2, null)).toBe('2× GPU');
  });

  it('percentages, elapsed time and first lines', () => {
    expect(formatPercent(0.995)).toBe('99.5 %');
    expect(elapsedMs('2026-01-01T12:00:00Z', '2026-01-01T12:00:03Z')).toBe(3000);
    expect(elapsedMs('2026-01-01T12:00:00Z', null, Date.parse('2026-01-01T12:01:00Z'))).toBe(60_000);
    expect(elapsedMs(null)).toBeNull();
    expect(firstLine('connection refused\n  at foo.js:1')).toBe('connection refused');
    expect(firstLine('x'.repeat(200), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(firstLine(null)).toBe('');
  });
});

describe('formatUsdTicks', () => {
  it('writes every tick of an axis with the same decimals', () => {
    expect(formatUsdTicks([0, 0.005, 0.01, 0.015])).toEqual(['$0.000', '$0.005', '$0.010', '$0.015']);
    expect(formatUsdTicks([0, 0.5, 1, 1.5, 2])).toEqual(['$0.00', '$0.50', '$1.00', '$1.50', '$2.00']);
    expect(formatUsdTicks([0, 0.0002, 0.0004])).toEqual(['$0.0000', '$0.0002', '$0.0004']);
    expect(formatUsdTicks([1000, 2000])).toEqual(['$1,000.00', '$2,000.00']);
  });
});
