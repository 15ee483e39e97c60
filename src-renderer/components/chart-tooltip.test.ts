import { describe, expect, it } from 'vitest';
import { nearestPoint, seriesColor } from './chart-tooltip';

describe('scatter hover', () => {
  const points = [
    { x: 10, y: 10, shown: true, html: 'a', key: 0 },
    { x: 14, y: 10, shown: false, html: 'hidden', key: 1 },
    { x: 100, y: 100, shown: true, html: 'b', key: 2 },
  ];
  it('names the point under the pointer, not one of a hidden model, nothing far away', () => {
    expect(nearestPoint(points, 13, 10)?.html).toBe('a');
    expect(nearestPoint(points, 98, 103)?.html).toBe('b');
    expect(nearestPoint(points, 50, 50)).toBeNull();
  });
  it('gives each GPU model its own colour', () => {
    expect(new Set(Array.from({ length: 10 }, (_, i) => seriesColor(i))).size).toBe(10);
  });
});

describe('hour ticks of the cost chart', () => {
  it('picks round steps, about six at most', async () => {
    const { hourTicks } = await import('../pages/estimate/EstimateCharts');
    expect(hourTicks(2)).toEqual([0, 0.5, 1, 1.5, 2]);
    expect(hourTicks(1)).toEqual([0, 0.25, 0.5, 0.75, 1]);
    expect(hourTicks(24)).toEqual([0, 6, 12, 18, 24]);
  });
});
