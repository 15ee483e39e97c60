#!/usr/bin/env node
// `npm start` (through scripts/with-node.mjs): builds everything, then opens the desktop app. Where
// Electron cannot start (no binary and none can be downloaded, or no display) it says why in one
// line and runs the same app in the browser instead: the headless server with the browser UI on
// 127.0.0.1:8080, signed in with the app's own token, its URL printed. Ctrl-C stops either.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildAll } from './lib/build-all.mjs';
import { exitLike, runThrough } from './lib/run-through.mjs';
import { chooseStartMode, downloadFailure, fallbackSentence, findElectronBinary } from './lib/start-mode.mjs';

const root = path.resolve(import.meta.dirname, '..');
const electronDir = path.join(root, 'node_modules', 'electron');
const fs = { existsSync, readFileSync };

// Quiet: one line of status, the build's output only when it fails.
buildAll(root, { quiet: true });

let mode = chooseStartMode({ platform: process.platform, env: process.env, binary: findElectronBinary(electronDir, process.env, fs) });
/** @type {string | undefined} */
let detail;
if (mode.mode === 'download') {
  // What `electron .` does on first use, without its stack trace when it fails.
  process.stderr.write('benchdesk: downloading the Electron binary (once, about 100 MB)…\n');
  const res = spawnSync(process.execPath, [path.join(electronDir, 'install.js')], { cwd: electronDir, encoding: 'utf8' });
  const binary = findElectronBinary(electronDir, process.env, fs);
  if (res.status === 0 && binary.state === 'present') {
    mode = { mode: 'electron', binary: binary.path };
  } else {
    detail = downloadFailure(`${res.error?.message ?? ''}\n${res.stderr ?? ''}\n${res.stdout ?? ''}`);
    mode = { mode: 'browser', reason: 'download-failed' };
  }
}

if (mode.mode === 'electron') {
  const result = await runThrough(mode.binary, [root, ...process.argv.slice(2)], { cwd: root });
  if (!result.error) exitLike(result);
  detail = result.error.message;
  mode = { mode: 'browser', reason: 'spawn-failed' };
}

if (mode.mode === 'browser') {
  process.stderr.write(`${fallbackSentence(mode.reason, detail)}\n`);
  await import(pathToFileURL(path.join(root, 'dist', 'main', 'browser-app.js')).href);
}
