import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseStartMode, downloadFailure, fallbackSentence, findElectronBinary, hasDisplay } from '../../scripts/lib/start-mode.mjs';

/** What `npm start` opens (scripts/start.mjs): the desktop window, or the same app in the browser. */

const DIR = '/app/node_modules/electron';

/** A file system holding exactly `files` (path → content). */
function fsWith(files: Record<string, string>) {
  return {
    existsSync: (file: string) => file in files,
    readFileSync: (file: string) => {
      const content = files[file];
      if (content === undefined) throw new Error(`ENOENT ${file}`);
      return content;
    },
  };
}

const installed = fsWith({ [`${DIR}/package.json`]: '{}', [`${DIR}/path.txt`]: 'electron', [`${DIR}/dist/electron`]: '' });
const notDownloaded = fsWith({ [`${DIR}/package.json`]: '{}' });

describe('finding the Electron binary without loading electron', () => {
  it('reads path.txt as electron/index.js does', () => {
    expect(findElectronBinary(DIR, {}, installed)).toEqual({ state: 'present', path: `${DIR}/dist/electron` });
    expect(findElectronBinary(DIR, {}, notDownloaded)).toEqual({ state: 'absent' });
    // path.txt names a binary that is gone.
    expect(findElectronBinary(DIR, {}, fsWith({ [`${DIR}/package.json`]: '{}', [`${DIR}/path.txt`]: 'electron' }))).toEqual({ state: 'absent', path: `${DIR}/dist/electron` });
    expect(findElectronBinary(DIR, {}, fsWith({}))).toEqual({ state: 'no-package' });
  });

  it('honours ELECTRON_OVERRIDE_DIST_PATH', () => {
    expect(findElectronBinary(DIR, { ELECTRON_OVERRIDE_DIST_PATH: '/nowhere' }, installed)).toEqual({ state: 'absent', path: path.join('/nowhere', 'electron') });
    const custom = fsWith({ [`${DIR}/package.json`]: '{}', '/opt/electron/electron': '' });
    expect(findElectronBinary(DIR, { ELECTRON_OVERRIDE_DIST_PATH: '/opt/electron' }, custom)).toEqual({ state: 'present', path: '/opt/electron/electron' });
  });
});

describe('choosing between the window and the browser', () => {
  const display = { DISPLAY: ':0' };

  it('opens the window when the binary is there and a display is', () => {
    expect(chooseStartMode({ platform: 'linux', env: display, binary: { state: 'present', path: '/e' } })).toEqual({ mode: 'electron', binary: '/e' });
    expect(chooseStartMode({ platform: 'linux', env: { WAYLAND_DISPLAY: 'wayland-0' }, binary: { state: 'present', path: '/e' } }).mode).toBe('electron');
    // macOS and Windows always have a desktop.
    expect(chooseStartMode({ platform: 'darwin', env: {}, binary: { state: 'present', path: '/e' } }).mode).toBe('electron');
    expect(chooseStartMode({ platform: 'win32', env: {}, binary: { state: 'present', path: '/e' } }).mode).toBe('electron');
  });

  it('falls back to the browser when there is no display (a server, ssh, a container)', () => {
    expect(hasDisplay('linux', {})).toBe(false);
    expect(hasDisplay('linux', { DISPLAY: ' ' })).toBe(false);
    expect(chooseStartMode({ platform: 'linux', env: {}, binary: { state: 'present', path: '/e' } })).toEqual({ mode: 'browser', reason: 'no-display' });
    expect(chooseStartMode({ platform: 'freebsd', env: {}, binary: { state: 'present', path: '/e' } })).toEqual({ mode: 'browser', reason: 'no-display' });
  });

  it('downloads a missing binary first, as `electron .` does, when a download is allowed and worth it', () => {
    expect(chooseStartMode({ platform: 'linux', env: display, binary: { state: 'absent' } })).toEqual({ mode: 'download' });
    expect(chooseStartMode({ platform: 'darwin', env: { ELECTRON_SKIP_BINARY_DOWNLOAD: '0' }, binary: { state: 'absent' } })).toEqual({ mode: 'download' });
  });

  it('falls back without downloading when ELECTRON_SKIP_BINARY_DOWNLOAD is set, or when no window could open anyway', () => {
    expect(chooseStartMode({ platform: 'linux', env: { ...display, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' }, binary: { state: 'absent' } })).toEqual({ mode: 'browser', reason: 'no-binary' });
    expect(chooseStartMode({ platform: 'linux', env: { ELECTRON_SKIP_BINARY_DOWNLOAD: 'true' }, binary: { state: 'absent' } })).toEqual({ mode: 'browser', reason: 'no-binary' });
    expect(chooseStartMode({ platform: 'linux', env: {}, binary: { state: 'absent' } })).toEqual({ mode: 'browser', reason: 'no-binary-no-display' });
    expect(chooseStartMode({ platform: 'linux', env: display, binary: { state: 'no-package' } })).toEqual({ mode: 'browser', reason: 'no-package' });
  });
});

describe('the sentence npm start prints before it falls back', () => {
  it('is one line: what is missing, how to get it, what happens instead; never a stack trace', () => {
    const reasons = ['no-display', 'no-binary', 'no-binary-no-display', 'download-failed', 'no-package', 'spawn-failed'] as const;
    for (const reason of reasons) {
      const sentence = fallbackSentence(reason, 'fetch failed');
      expect(sentence).not.toContain('\n');
      expect(sentence).toMatch(/^benchdesk: /);
      expect(sentence).toMatch(/starting the same app in your browser instead\.$/);
    }
    expect(fallbackSentence('no-binary')).toMatch(/Electron binary is not installed and ELECTRON_SKIP_BINARY_DOWNLOAD is set.*`npx install-electron` fetches it/);
    expect(fallbackSentence('no-display')).toMatch(/no display \(DISPLAY and WAYLAND_DISPLAY are unset\)/);
    expect(fallbackSentence('download-failed', 'fetch failed')).toMatch(/could not be downloaded \(fetch failed\).*`npx install-electron`/);
  });

  it('says why a download failed in a few words, from what electron install.js printed', () => {
    expect(downloadFailure('TypeError: fetch failed\n    at node:internal/deps/undici:1:1\n')).toBe('fetch failed');
    expect(downloadFailure('\nError: getaddrinfo ENOTFOUND github.com\n    at x')).toBe('getaddrinfo ENOTFOUND github.com');
    expect(downloadFailure('')).toBe('no reason given');
  });
});
