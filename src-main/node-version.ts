/**
 * The Node version check of the entry points (package.json engines.node). No imports on purpose:
 * it must run before any dependency loads, because on an old Node a dependency crashes at import
 * time with a message that names neither Node nor the fix.
 */
export const MIN_NODE: readonly [number, number] = [22, 12];

export function nodeTooOld(version: string = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1]);
}

export function nodeVersionMessage(what: string, script: string, version: string = process.versions.node): string {
  return (
    `${what} needs Node.js >= ${MIN_NODE.join('.')} (Node 24 recommended); this is Node ${version}.\n` +
    'Get it with nvm:   nvm install 24 && nvm use 24\n' +
    `or run it once without installing Node, through npm:   npx -y node@24 ${script}\n` +
    'or download it from https://nodejs.org/'
  );
}
