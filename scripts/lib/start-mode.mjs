// What `npm start` opens: the desktop window (Electron), or, where Electron cannot start, the same
// app in the browser (the headless server with the browser UI). The decisions only, no I/O.
import path from 'node:path';
import { isTruthy } from './node-runtime.mjs';

/**
 * Where the electron package keeps its binary, read the way its own index.js reads it, but
 * without requiring it: in plain Node `require('electron')` starts a download.
 * @param {string} electronDir node_modules/electron
 * @param {Record<string, string | undefined>} env
 * @param {{ existsSync(file: string): boolean, readFileSync(file: string, encoding: 'utf8'): string }} fs
 * @returns {{ state: 'present', path: string } | { state: 'absent', path?: string } | { state: 'no-package' }}
 */
export function findElectronBinary(electronDir, env, fs) {
  if (!fs.existsSync(path.join(electronDir, 'package.json'))) return { state: 'no-package' };
  const pathFile = path.join(electronDir, 'path.txt');
  const relative = fs.existsSync(pathFile) ? fs.readFileSync(pathFile, 'utf8').trim() : '';
  const override = env.ELECTRON_OVERRIDE_DIST_PATH?.trim();
  if (override) {
    const binary = path.join(override, relative || 'electron');
    return fs.existsSync(binary) ? { state: 'present', path: binary } : { state: 'absent', path: binary };
  }
  if (!relative) return { state: 'absent' };
  const binary = path.join(electronDir, 'dist', relative);
  return fs.existsSync(binary) ? { state: 'present', path: binary } : { state: 'absent', path: binary };
}

/**
 * A window can open: macOS and Windows always have a desktop; elsewhere an X11 or Wayland display
 * must be named in the environment.
 * @param {string} platform @param {Record<string, string | undefined>} env
 */
export function hasDisplay(platform, env) {
  if (platform === 'darwin' || platform === 'win32') return true;
  return Boolean(env.DISPLAY?.trim() || env.WAYLAND_DISPLAY?.trim());
}

/**
 * @typedef {'no-display' | 'no-binary' | 'no-binary-no-display' | 'download-failed' | 'no-package' | 'spawn-failed'} BrowserReason
 * @typedef {{ mode: 'electron', binary: string }
 *   | { mode: 'download' }
 *   | { mode: 'browser', reason: BrowserReason }} StartMode
 */

/**
 * @param {{ platform: string, env: Record<string, string | undefined>, binary: ReturnType<typeof findElectronBinary> }} facts
 * @returns {StartMode}
 */
export function chooseStartMode({ platform, env, binary }) {
  const display = hasDisplay(platform, env);
  if (binary.state === 'present') return display ? { mode: 'electron', binary: binary.path } : { mode: 'browser', reason: 'no-display' };
  if (binary.state === 'no-package') return { mode: 'browser', reason: 'no-package' };
  // No binary yet. Fetching ~100 MB is pointless without a display, and unwanted when skipped.
  if (!display) return { mode: 'browser', reason: isTruthy(env.ELECTRON_SKIP_BINARY_DOWNLOAD) ? 'no-binary' : 'no-binary-no-display' };
  if (isTruthy(env.ELECTRON_SKIP_BINARY_DOWNLOAD)) return { mode: 'browser', reason: 'no-binary' };
  return { mode: 'download' };
}

const INSTEAD = 'starting the same app in your browser instead';

/**
 * The one sentence `npm start` prints before it falls back: what is missing, how to get it, and
 * what it does instead.
 * @param {BrowserReason} reason @param {string} [detail] what went wrong (download, spawn)
 */
export function fallbackSentence(reason, detail) {
  const get = '`npx install-electron` fetches it where GitHub is reachable';
  switch (reason) {
    case 'no-display':
      return `benchdesk: there is no display (DISPLAY and WAYLAND_DISPLAY are unset), so the desktop window cannot open; ${INSTEAD}.`;
    case 'no-binary':
      return `benchdesk: the Electron binary is not installed and ELECTRON_SKIP_BINARY_DOWNLOAD is set, so the desktop window cannot open (${get}); ${INSTEAD}.`;
    case 'no-binary-no-display':
      return `benchdesk: there is no display (DISPLAY and WAYLAND_DISPLAY are unset) and the Electron binary is not installed, so the desktop window cannot open; ${INSTEAD}.`;
    case 'download-failed':
      return `benchdesk: the Electron binary could not be downloaded${detail ? ` (${detail})` : ''}, so the desktop window cannot open (${get}); ${INSTEAD}.`;
    case 'no-package':
      return `benchdesk: the electron package is not installed (\`npm install\` without --omit=dev adds it), so the desktop window cannot open; ${INSTEAD}.`;
    case 'spawn-failed':
      return `benchdesk: the Electron binary could not be started${detail ? ` (${detail})` : ''}, so the desktop window cannot open; ${INSTEAD}.`;
  }
}

/**
 * Why a download failed, in a few words, from the output of electron's install.js (a stack trace
 * we do not show).
 * @param {string} output
 */
export function downloadFailure(output) {
  const line = output.split('\n').map((l) => l.trim()).find((l) => l && !l.startsWith('at ')) ?? '';
  return line.replace(/^(\w*Error|Error):\s*/, '').slice(0, 200) || 'no reason given';
}
