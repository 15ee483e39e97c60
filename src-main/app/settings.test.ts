import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildCatalog, resolveCatalogModel } from '../marketplace/catalog';
import { SettingsStore } from './settings';

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

describe('settings.json', () => {
  it("accepts the README's extra_catalog_models example (no required_disk_gb) and the catalog computes the disk", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'benchdesk-settings-'));
    dirs.push(dir);
    await writeFile(path.join(dir, 'settings.json'), JSON.stringify({ extra_catalog_models: [{ name: 'my-model:7b', vram_mb: 6000 }] }));
    const settings = new SettingsStore(dir).read();
    const catalog = buildCatalog(settings.extra_catalog_models);
    expect(catalog.issues).toEqual([]);
    const entry = resolveCatalogModel('my-model:7b', catalog);
    expect(entry).toMatchObject({ name: 'my-model:7b', vram_mb: 6000 });
    expect(entry?.required_disk_gb).toBeGreaterThan(0);
  });

  it('still refuses an entry without vram_mb, naming the field', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'benchdesk-settings-'));
    dirs.push(dir);
    await writeFile(path.join(dir, 'settings.json'), JSON.stringify({ extra_catalog_models: [{ name: 'my-model:7b' }] }));
    expect(() => new SettingsStore(dir).read()).toThrow(/extra_catalog_models\.0\.vram_mb/);
  });
});
