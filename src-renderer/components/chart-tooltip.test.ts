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
