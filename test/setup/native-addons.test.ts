import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * `npm install` on an old Node must leave a tree that works under the Node the npm scripts then
 * fetch (scripts/with-node.mjs). That holds while no dependency compiles a native addon against the
 * Node running the install: no binding.gyp (node-gyp builds against that Node's headers), and every
 * prebuilt `.node` file is a Node-API addon, whose ABI is the same for every Node version (an addon
 * built for one V8 registers itself with node_module_register / node_register_module_v<ABI>).
 */

const NODE_MODULES = path.resolve(import.meta.dirname, '..', '..', 'node_modules');

function walk(dir: string, found: { gyp: string[]; addons: string[] }): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== '.cache') walk(full, found);
    } else if (entry.name === 'binding.gyp') {
      found.gyp.push(path.relative(NODE_MODULES, full));
    } else if (entry.name.endsWith('.node')) {
      found.addons.push(full);
    }
  }
}

describe('the installed tree does not depend on the Node that installed it', () => {
  const found = { gyp: [] as string[], addons: [] as string[] };
  walk(NODE_MODULES, found);

  it('has nothing for node-gyp to compile', () => {
    expect(found.gyp).toEqual([]);
  });

  it('has only Node-API addons', () => {
    // The tree has some (rolldown, lightningcss, Electron's unzipper): the check below looks at them.
    expect(found.addons.length).toBeGreaterThan(0);
    const versionBound = found.addons.filter((file) => {
      const binary = readFileSync(file).toString('latin1');
      const nodeApi = binary.includes('napi_register_module_v1') || binary.includes('napi_module_register');
      const v8Abi = binary.includes('node_module_register') || /node_register_module_v\d+/.test(binary);
      return !nodeApi || v8Abi;
    });
    expect(versionBound.map((file) => path.relative(NODE_MODULES, file))).toEqual([]);
  });
});
