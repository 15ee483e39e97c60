import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadYaml } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';

/**
 * electron-builder cannot run here (it downloads Electron and its tools), so this checks what can
 * be checked without it: the config's targets and fuses, and that every icon it names exists with
 * the size the platforms want.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');
type BuilderConfig = {
  files: string[];
  asar: boolean;
  electronFuses: Record<string, boolean>;
  linux: { target: string[]; icon: string };
  mac: { target: string[]; icon: string };
  win: { target: string[]; icon: string };
};
const config = loadYaml<BuilderConfig>(readFileSync(path.join(ROOT, 'electron-builder.yml'), 'utf8'));

/** Width and height from a PNG's IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
  const buf = readFileSync(file);
  expect(buf.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

describe('electron-builder.yml', () => {
  it('builds AppImage and deb, dmg, and an nsis installer', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.mac.target).toContain('dmg');
    expect(config.win.target).toEqual(['nsis']);
  });

  it('sets the fuses: no run-as-node, encrypted cookies, ASAR integrity, app only from the ASAR', () => {
    expect(config.asar).toBe(true);
    expect(config.electronFuses).toMatchObject({
      runAsNode: false,
      enableCookieEncryption: true,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
    });
    // The renderer's module scripts load from file://: this fuse must not be turned off.
    expect(config.electronFuses.grantFileProtocolExtraPrivileges).toBeUndefined();
  });

  it('every icon exists: a 512x512 PNG, Linux sizes, .icns and .ico; run-time icons are packed', () => {
    expect(pngSize(path.join(ROOT, 'build', 'icon.png'))).toEqual({ width: 512, height: 512 });
    for (const size of [16, 32, 48, 64, 128, 256, 512]) {
      expect(pngSize(path.join(ROOT, config.linux.icon, `${size}x${size}.png`))).toEqual({ width: size, height: size });
    }
    const icns = readFileSync(path.join(ROOT, config.mac.icon));
    expect(icns.subarray(0, 4).toString('latin1')).toBe('icns');
    expect(icns.readUInt32BE(4)).toBe(icns.length);
    const ico = readFileSync(path.join(ROOT, config.win.icon));
    expect([ico.readUInt16LE(0), ico.readUInt16LE(2)]).toEqual([0, 1]);
    expect(ico.readUInt16LE(4)).toBeGreaterThanOrEqual(4);

    expect(config.files).toContain('assets/**');
    for (const asset of ['icon.png', 'tray.png', 'trayTemplate.png', 'trayTemplate@2x.png', 'overlay-running.png']) {
      expect(existsSync(path.join(ROOT, 'assets', asset))).toBe(true);
    }
    expect(pngSize(path.join(ROOT, 'assets', 'trayTemplate@2x.png'))).toEqual({ width: 32, height: 32 });
  });
});
