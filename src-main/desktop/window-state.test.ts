import { describe, expect, it } from 'vitest';
import { DEFAULT_WINDOW_SIZE, MIN_WINDOW_SIZE, restoreWindow, sameWindowState, windowStateToSave } from './window-state';

const LAPTOP = { x: 0, y: 0, width: 1920, height: 1050 };
const RIGHT = { x: 1920, y: 0, width: 2560, height: 1400 };

describe('restoreWindow', () => {
  it('keeps a saved window that is on a display', () => {
    const r = restoreWindow({ x: 100, y: 80, width: 1400, height: 900, maximized: false }, [LAPTOP]);
    expect(r).toEqual({ bounds: { x: 100, y: 80, width: 1400, height: 900 }, maximized: false, fullscreen: false });
  });

  it('nothing saved, or garbage → the default size, centred by Electron (no x/y)', () => {
    for (const saved of [undefined, null, 'x', { x: 1 }, { x: 0, y: 0, width: -5, height: 10, maximized: false }]) {
      expect(restoreWindow(saved, [LAPTOP])).toEqual({ bounds: { ...DEFAULT_WINDOW_SIZE }, maximized: false, fullscreen: false });
    }
  });

  it('a window on an unplugged monitor comes back centred on the primary display, keeping its size and maximized flag', () => {
    const saved = { x: 2200, y: 100, width: 1600, height: 1000, maximized: true };
    expect(restoreWindow(saved, [LAPTOP, RIGHT]).bounds).toEqual({ x: 2200, y: 100, width: 1600, height: 1000 });
    expect(restoreWindow(saved, [LAPTOP])).toEqual({ bounds: { width: 1600, height: 1000 }, maximized: true, fullscreen: false });
  });

  it('a window larger than the display now is shrunk to it and moved inside', () => {
    const small = { x: 0, y: 0, width: 1366, height: 728 };
    const r = restoreWindow({ x: 300, y: 200, width: 2400, height: 1300, maximized: false }, [small]);
    expect(r.bounds).toEqual({ x: 0, y: 0, width: 1366, height: 728 });
  });

  it('a window hanging off an edge is pulled back so it is fully visible', () => {
    const r = restoreWindow({ x: 1700, y: -40, width: 1000, height: 700, maximized: false }, [LAPTOP]);
    expect(r.bounds).toEqual({ x: 920, y: 0, width: 1000, height: 700 });
  });

  it('a sliver of overlap does not count as visible', () => {
    const r = restoreWindow({ x: 1900, y: 100, width: 1000, height: 700, maximized: false }, [LAPTOP]);
    expect(r.bounds).toEqual({ width: 1000, height: 700 });
  });

  it('picks the display the window mostly covered, and respects its offset work area', () => {
    const top = { x: 0, y: 25, width: 1920, height: 1055 }; // macOS menu bar
    const r = restoreWindow({ x: 1800, y: 10, width: 1200, height: 800, maximized: false }, [top, RIGHT]);
    expect(r.bounds).toEqual({ x: 1920, y: 10, width: 1200, height: 800 });
    const r2 = restoreWindow({ x: 10, y: 0, width: 1200, height: 800, maximized: false }, [top]);
    expect(r2.bounds).toEqual({ x: 10, y: 25, width: 1200, height: 800 });
  });

  it('never below the minimum size unless the display is smaller', () => {
    const r = restoreWindow({ x: 10, y: 10, width: 300, height: 200, maximized: false }, [LAPTOP]);
    expect(r.bounds).toMatchObject({ width: MIN_WINDOW_SIZE.width, height: MIN_WINDOW_SIZE.height });
    const tiny = { x: 0, y: 0, width: 800, height: 500 };
    expect(restoreWindow({ x: 0, y: 0, width: 300, height: 200, maximized: false }, [tiny]).bounds).toMatchObject({ width: 800, height: 500 });
  });
});

describe('windowStateToSave / sameWindowState', () => {
  it('rounds, keeps the flags, and detects no-op writes', () => {
    const s = windowStateToSave({ x: 10.4, y: 20.6, width: 1000.2, height: 700.7 }, { maximized: true, fullscreen: false });
    expect(s).toEqual({ x: 10, y: 21, width: 1000, height: 701, maximized: true, fullscreen: false });
    expect(sameWindowState(s, { ...s })).toBe(true);
    expect(sameWindowState(s, { ...s, maximized: false })).toBe(false);
    expect(sameWindowState(undefined, s)).toBe(false);
  });
});
