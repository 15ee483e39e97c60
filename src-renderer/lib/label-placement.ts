/**
 * Places text labels beside chart points so that no two labels overlap and no label covers a
 * point: the first free spot among eight around the point, else further up or down beside it
 * (drawn with a leader line), else the label is left out (the chart's table and its accessible
 * description still name every point). Pure, in canvas pixels.
 */

export type Rect = { x: number; y: number; w: number; h: number };
export type LabelRequest = { px: number; py: number; w: number; h: number };
export type PlacedLabel = { x: number; y: number; w: number; h: number; leader: boolean } | null;

export function overlaps(a: Rect, b: Rect): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

function inside(r: Rect, bounds: Rect): boolean {
  return r.x >= bounds.x && r.y >= bounds.y && r.x + r.w <= bounds.x + bounds.w && r.y + r.h <= bounds.y + bounds.h;
}

export function placeLabels(requests: readonly LabelRequest[], bounds: Rect, pointRadius: number, gap = 4): PlacedLabel[] {
  const markers: Rect[] = requests.map((p) => ({ x: p.px - pointRadius, y: p.py - pointRadius, w: pointRadius * 2, h: pointRadius * 2 }));
  const placed: Rect[] = [];
  const free = (r: Rect) => inside(r, bounds) && !placed.some((p) => overlaps(p, r)) && !markers.some((m) => overlaps(m, r));
  return requests.map(({ px, py, w, h }) => {
    const d = pointRadius + gap;
    const around: Rect[] = [
      { x: px + d, y: py - h / 2, w, h },
      { x: px - d - w, y: py - h / 2, w, h },
      { x: px - w / 2, y: py - d - h, w, h },
      { x: px - w / 2, y: py + d, w, h },
      { x: px + d, y: py - d - h, w, h },
      { x: px + d, y: py + d, w, h },
      { x: px - d - w, y: py - d - h, w, h },
      { x: px - d - w, y: py + d, w, h },
    ];
    const near = around.find(free);
    if (near) {
      placed.push(near);
      return { ...near, leader: false };
    }
    // Further away, beside the point, in steps of a label's height: joined to it by a line.
    for (let step = 1; step * h <= bounds.h; step++) {
      for (const dy of [-step * h, step * h]) {
        for (const x of [px + d, px - d - w]) {
          const r = { x, y: py - h / 2 + dy, w, h };
          if (free(r)) {
            placed.push(r);
            return { ...r, leader: true };
          }
        }
      }
    }
    return null;
  });
}
