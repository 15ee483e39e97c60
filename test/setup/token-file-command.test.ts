import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tokenFileCommand } from '../../src-renderer/components/token-file-command';

describe("the sign-in screen's command that prints the token file (issue 34 item 11)", () => {
  it('leaves ~ outside quotes, so a shell expands it: the command prints the file', () => {
    const home = mkdtempSync(path.join(tmpdir(), 'benchdesk-home-'));
    try {
      for (const [platform, dir] of [
        ['Linux x86_64', '.config/benchdesk'],
        ['MacIntel', 'Library/Application Support/benchdesk'],
      ] as const) {
        mkdirSync(path.join(home, dir), { recursive: true });
        writeFileSync(path.join(home, dir, 'api-token'), `token-of-${platform}\n`);
        const run = spawnSync('sh', ['-c', tokenFileCommand(platform)], { env: { HOME: home, PATH: process.env.PATH ?? '' }, encoding: 'utf8' });
        expect(run.stderr, platform).toBe('');
        expect(run.stdout, platform).toBe(`token-of-${platform}\n`);
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
    expect(tokenFileCommand('Win32')).toBe('type "%APPDATA%\\benchdesk\\api-token"');
  });
});
