import { describe, expect, it } from 'vitest';
import { overlaps, placeLabels, type LabelRequest, type Rect } from './label-placement';

const bounds: Rect = { x: 0, y: 0, w: 600, h: 240 };
const R = 5;

function noOverlap(requests: readonly LabelRequest[]) {
  const placed = placeLabels(requests, bounds, R);
  const boxes = placed.filter((p): p is NonNullable<typeof p> => p !== null);
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) expect(overlaps(boxes[i] as Rect, boxes[j] as Rect), `labels ${i} and ${j}`).toBe(false);
    const b = boxes[i] as Rect;
    expect(b.x >= 0 && b.y >= 0 && b.x + b.w <= bounds.w && b.y + b.h <= bounds.h).toBe(true);
    // No label covers a point.
    for (const p of requests) expect(overlaps(b, { x: p.px - R, y: p.py - R, w: 2 * R, h: 2 * R })).toBe(false);
  }
  return placed;
}

describe('placeLabels', () => {
  it('puts a lone label to the right of its point', () => {
    const [p] = noOverlap([{ px: 100, py: 100, w: 80, h: 14 }]);
    expect(p).toMatchObject({ x: 109, y: 93, leader: false });
  });

  it('runs with the same figures (one spot) get labels that do not overlap', () => {
    const same = Array.from({ length: 6 }, () => ({ px: 300, py: 120, w: 90, h: 14 }));
    const placed = noOverlap(same);
    expect(placed.every((p) => p !== null)).toBe(true);
    expect(placed.some((p) => p?.leader)).toBe(true);
  });

  it('a point at the right edge gets its label on the left; crowded clusters never overlap', () => {
    const [edge] = noOverlap([{ px: 595, py: 100, w: 80, h: 14 }]);
    expect(edge?.x).toBeLessThan(595);
    // A dense random cloud: whatever is placed does not overlap.
    let seed = 7;
    const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    noOverlap(Array.from({ length: 40 }, () => ({ px: 200 + rnd() * 100, py: 80 + rnd() * 60, w: 60 + rnd() * 50, h: 14 })));
  });
});
