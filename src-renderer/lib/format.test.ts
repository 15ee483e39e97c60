import { describe, expect, it } from 'vitest';
import { elapsedMs, formatDph, formatDuration, formatMb, formatPercent, formatRelative, formatUsd } from './format';

describe('format', () => {
  it('money in dollars with sensible precision', () => {
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(0.004231)).toBe('$0.0042');
    expect(formatUsd(0.000016)).toBe('<$0.0001');
    expect(formatUsd(0.35)).toBe('$0.35');
    expect(formatUsd(12.345)).toBe('$12.35');
    expect(formatUsd(1234.5)).toBe('$1,235');
    expect(formatUsd(null)).toBe('—');
    expect(formatDph(0.3023)).toBe('$0.3023/h');
  });

  it('durations with their unit', () => {
    expect(formatDuration(850)).toBe('850 ms');
    expect(formatDuration(12_345)).toBe('12.3 s');
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

  it('memory, percentages and elapsed time', () => {
    expect(formatMb(24_564)).toBe('24 GB');
    expect(formatMb(800)).toBe('800 MB');
    expect(formatPercent(0.995)).toBe('99.5 %');
    expect(elapsedMs('2026-01-01T12:00:00Z', '2026-01-01T12:00:03Z')).toBe(3000);
    expect(elapsedMs('2026-01-01T12:00:00Z', null, Date.parse('2026-01-01T12:01:00Z'))).toBe(60_000);
    expect(elapsedMs(null)).toBeNull();
  });
});
