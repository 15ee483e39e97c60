import { z } from 'zod';

/**
 * The main window's size and place, saved in settings.json (`window_state`) and restored on the
 * next start, clamped so the window is visible on the displays that exist now (a monitor may have
 * been unplugged, or the resolution lowered, since it was saved). Plain logic: the Electron side
 * passes in the displays' work areas.
 */

export const WindowStateSchema = z.object({
  x: z.number().int().min(-100_000).max(100_000),
  y: z.number().int().min(-100_000).max(100_000),
  width: z.number().int().min(1).max(100_000),
  height: z.number().int().min(1).max(100_000),
  maximized: z.boolean(),
  fullscreen: z.boolean().optional(),
});
export type WindowState = z.infer<typeof WindowStateSchema>;

export type Rect = { x: number; y: number; width: number; height: number };

export const DEFAULT_WINDOW_SIZE = { width: 1280, height: 820 } as const;
export const MIN_WINDOW_SIZE = { width: 900, height: 600 } as const;
/** How much of a saved window must overlap a display for its position to be kept. */
const MIN_VISIBLE = { width: 120, height: 60 } as const;

/** What to create the window with: bounds (x/y absent = let Electron centre it) and whether to maximize. */
export type RestoredWindow = { bounds: { x?: number; y?: number; width: number; height: number }; maximized: boolean; fullscreen: boolean };

function overlap(a: Rect, b: Rect): { width: number; height: number } {
  const width = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const height = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return { width: Math.max(0, width), height: Math.max(0, height) };
}

function clampSize(size: { width: number; height: number }, area: Rect): { width: number; height: number } {
  // Never larger than the work area; at least the minimum unless the display itself is smaller.
  const width = Math.min(Math.max(size.width, MIN_WINDOW_SIZE.width), area.width);
  const height = Math.min(Math.max(size.height, MIN_WINDOW_SIZE.height), area.height);
  return { width: Math.round(width), height: Math.round(height) };
}

function clampInto(value: number, size: number, start: number, extent: number): number {
  return Math.round(Math.min(Math.max(value, start), start + extent - size));
}

/**
 * The bounds to open the window with. `saved` is whatever the file holds (validated here: an
 * invalid entry counts as none); `workAreas` are the displays' usable areas now, `primary` first.
 */
export function restoreWindow(saved: unknown, workAreas: readonly Rect[]): RestoredWindow {
  const primary = workAreas[0];
  const parsed = WindowStateSchema.safeParse(saved);
  const fallback = (size: { width: number; height: number }, maximized = false): RestoredWindow => ({
    bounds: primary ? clampSize(size, primary) : { ...size },
    maximized,
    fullscreen: false,
  });
  if (!parsed.success) return fallback(DEFAULT_WINDOW_SIZE);
  const state = parsed.data;
  if (!primary) return { bounds: { width: state.width, height: state.height }, maximized: state.maximized, fullscreen: false };

  // The display the window overlapped most; none visible enough → centre it on the primary.
  let best: { area: Rect; visible: number } | undefined;
  for (const area of workAreas) {
    const o = overlap(state, area);
    if (o.width < MIN_VISIBLE.width || o.height < MIN_VISIBLE.height) continue;
    const visible = o.width * o.height;
    if (!best || visible > best.visible) best = { area, visible };
  }
  if (!best) return fallback({ width: state.width, height: state.height }, state.maximized);

  const size = clampSize(state, best.area);
  return {
    bounds: {
      x: clampInto(state.x, size.width, best.area.x, best.area.width),
      y: clampInto(state.y, size.height, best.area.y, best.area.height),
      ...size,
    },
    maximized: state.maximized,
    fullscreen: state.fullscreen ?? false,
  };
}

/**
 * What to save: the normal (un-maximized) bounds plus the flags, so a maximized window restores
 * maximized and un-maximizes to its previous size.
 */
export function windowStateToSave(normalBounds: Rect, flags: { maximized: boolean; fullscreen: boolean }): WindowState {
  return {
    x: Math.round(normalBounds.x),
    y: Math.round(normalBounds.y),
    width: Math.max(1, Math.round(normalBounds.width)),
    height: Math.max(1, Math.round(normalBounds.height)),
    maximized: flags.maximized,
    fullscreen: flags.fullscreen,
  };
}

/** Same place and flags: no write needed (moves and resizes fire many events). */
export function sameWindowState(a: WindowState | undefined, b: WindowState): boolean {
  return a !== undefined && a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height && a.maximized === b.maximized && (a.fullscreen ?? false) === (b.fullscreen ?? false);
}
