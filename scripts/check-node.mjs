#!/usr/bin/env node
// Run first by `npm start`, `npm run serve` and `npm test`: on a Node older than package.json's
// engines.node, say which Node is needed and how to get it, instead of a crash deep in a
// dependency. Plain ES2015 on purpose: it must parse on any Node still in use.
'use strict';

var MIN = [22, 12];
var parts = process.versions.node.split('.').map(Number);
if (parts[0] < MIN[0] || (parts[0] === MIN[0] && parts[1] < MIN[1])) {
  var what = process.argv[2] || 'benchdesk';
  process.stderr.write(
    what + ' needs Node.js >= ' + MIN.join('.') + ' (Node 24 recommended); this is Node ' + process.versions.node + '.\n' +
      'Get it with nvm:   nvm install 24 && nvm use 24   (the repository has an .nvmrc)\n' +
      'or without installing anything, through npm:   npx -y node@24 <script> ...\n' +
      'or download it from https://nodejs.org/ ; then run `npm install` again.\n',
  );
  process.exit(1);
}
