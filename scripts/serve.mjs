#!/usr/bin/env node
// `npm run serve` (through scripts/with-node.mjs): builds, then runs the headless server in this
// process (dist/main/server.js), which serves the browser UI and prints the URL to open.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildAll } from './lib/build-all.mjs';

const root = path.resolve(import.meta.dirname, '..');
buildAll(root);
await import(pathToFileURL(path.join(root, 'dist', 'main', 'server.js')).href);
