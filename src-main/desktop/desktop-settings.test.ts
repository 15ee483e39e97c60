import { describe, expect, it } from 'vitest';
import { desktopSettingsChange, readDesktopSettings } from './desktop-settings';

const WINDOW = { x: 10, y: 20, width: 1200, height: 800, maximized: false, fullscreen: false };
const KEY = { ciphertext_b64: 'ZW5jcnlwdGVkIGJ5dGVz', hint: 'cdef', saved_at: '2026-11-22T22:00:00.000Z' };

describe('desktop keys of settings.json', () => {
  it('reads only the desktop keys; an invalid entry is dropped and reported, never thrown', () => {
    expect(readDesktopSettings({ window_state: WINDOW, marketplace_key: KEY, concurrency: 2 })).toEqual({ settings: { window_state: WINDOW, marketplace_key: KEY }, issues: [] });
    const { settings, issues } = readDesktopSettings({ window_state: { x: 'left' }, marketplace_key: KEY });
    expect(settings).toEqual({ marketplace_key: KEY });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(/^window_state: /);
    expect(readDesktopSettings(null)).toEqual({ settings: {}, issues: [] });
  });

  it('the desktop side may write only its own keys, validated; null or undefined removes one', () => {
    expect(desktopSettingsChange({ window_state: WINDOW, marketplace_key: null })).toEqual({ set: { window_state: WINDOW }, remove: ['marketplace_key'] });
    expect(desktopSettingsChange({ window_state: undefined })).toEqual({ set: {}, remove: ['window_state'] });
    expect(() => desktopSettingsChange({ concurrency: 9 })).toThrow(/not a desktop setting/);
    expect(() => desktopSettingsChange({ marketplace_key: { ...KEY, ciphertext_b64: 'not base64!' } })).toThrow();
    expect(() => desktopSettingsChange({ window_state: { ...WINDOW, width: 0 } })).toThrow();
  });
});
