import type uPlot from 'uplot';

/** Colours for series named by category (GPU models): distinct in the light and the dark theme. */
const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#76b7b2', '#edc948', '#9c755f', '#ff9da7', '#8cd17d'];

export function seriesColor(i: number): string {
  return PALETTE[i % PALETTE.length] ?? '#4e79a7';
}

export type TooltipPoint = { x: number; y: number; shown: boolean; html: string; key: number };

/** Nearest shown point within `radius` CSS px of (left, top), if any (pure). */
export function nearestPoint(points: readonly TooltipPoint[], left: number, top: number, radius = 14): TooltipPoint | null {
  let best: TooltipPoint | null = null;
  let bestD = radius * radius;
  for (const p of points) {
    if (!p.shown) continue;
    const d = (p.x - left) ** 2 + (p.y - top) ** 2;
    if (d <= bestD) {
      best = p;
      bestD = d;
    }
  }
  return best;
}

/**
 * A hover card for scatter charts: uPlot's cursor snaps to an x index, which says nothing when
 * several points share an x; this finds the point under the pointer and describes it.
 */
export function attachTooltip(u: uPlot, points: () => readonly TooltipPoint[]): void {
  const tip = document.createElement('div');
  tip.className = 'chart-tooltip';
  tip.setAttribute('role', 'status');
  tip.hidden = true;
  u.over.appendChild(tip);
  u.over.addEventListener('mouseleave', () => {
    tip.hidden = true;
  });
  u.over.addEventListener('mousemove', (e) => {
    const rect = u.over.getBoundingClientRect();
    const left = e.clientX - rect.left;
    const top = e.clientY - rect.top;
    const hit = nearestPoint(points(), left, top);
    if (!hit) {
      tip.hidden = true;
      return;
    }
    tip.innerHTML = hit.html;
    tip.hidden = false;
    // Beside the point, flipped to stay inside the plot.
    const w = tip.offsetWidth;
    const h = tip.offsetHeight;
    tip.style.left = `${hit.x + 12 + w > rect.width ? hit.x - 12 - w : hit.x + 12}px`;
    tip.style.top = `${Math.max(0, Math.min(rect.height - h, hit.y - h / 2))}px`;
  });
}
