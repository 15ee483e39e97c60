import { describe, expect, it } from 'vitest';
import { CatalogEntrySchema } from '../../shared/models';
import { BUILTIN_CATALOG, buildCatalog, normaliseModelName, requiredDiskGb, resolveCatalogModel } from './catalog';

function must<T>(v: T | null): T {
  if (v === null) throw new Error('expected a catalog entry');
  return v;
}

describe('catalog', () => {
  it("keeps the peer's eight entries with its figures", () => {
    const peer: [string, number, number][] = [
      ['llama3.1:405b', 260000, 324],
      ['mixtral:8x22b', 95000, 139],
      ['command-r-plus:104b', 75000, 117],
      ['qwen2.5-coder:72b', 55000, 94],
      ['llama3.1:70b', 50000, 89],
      ['mixtral:8x7b', 32000, 68],
      ['command-r:35b', 28000, 64],
      ['llama3.1:8b', 8000, 41],
    ];
    for (const [name, vram, disk] of peer) {
      expect(resolveCatalogModel(name)).toMatchObject({ name, vram_mb: vram, required_disk_gb: disk });
    }
  });

  it('computes disk as ceil(vram/1024 × 1.15) + 32', () => {
    expect(requiredDiskGb(8000)).toBe(41);
    expect(requiredDiskGb(260000)).toBe(324);
    for (const e of BUILTIN_CATALOG) expect(e.required_disk_gb).toBe(requiredDiskGb(e.vram_mb));
  });

  it('has valid, unique entries with family and notes, including current popular models', () => {
    const names = BUILTIN_CATALOG.map((e) => e.name);
    expect(new Set(names).size).toBe(names.length);
    for (const e of BUILTIN_CATALOG) {
      expect(CatalogEntrySchema.safeParse(e).success).toBe(true);
      expect(e.family).toBeTruthy();
      expect(e.notes).toBeTruthy();
    }
    for (const n of ['llama3.2:3b', 'qwen2.5:7b', 'qwen3:8b', 'qwen3:32b', 'gemma3:12b', 'gemma3:27b', 'mistral-nemo:12b', 'deepseek-r1:14b', 'gpt-oss:20b', 'phi4:14b']) {
      expect(names).toContain(n);
    }
    // Honest sizes: a 4-bit 32B model does not fit 16 GB, a 20B MXFP4 model fits 16 GB.
    expect(must(resolveCatalogModel('qwen3:32b')).vram_mb).toBeGreaterThan(16384);
    expect(must(resolveCatalogModel('gpt-oss:20b')).vram_mb).toBeLessThanOrEqual(16384);
  });

  it('treats name and name:latest (and case) the same', () => {
    expect(normaliseModelName(' Qwen3:Latest ')).toBe('qwen3');
    expect(resolveCatalogModel('qwen3')?.name).toBe('qwen3:8b');
    expect(resolveCatalogModel('qwen3:latest')?.name).toBe('qwen3:8b');
    expect(resolveCatalogModel('GPT-OSS')?.name).toBe('gpt-oss:20b');
    expect(resolveCatalogModel('gemma3:27b')?.name).toBe('gemma3:27b');
    expect(resolveCatalogModel('no-such-model')).toBeNull();
  });

  it('merges validated user entries, which override built-ins and may omit the disk', () => {
    const catalog = buildCatalog([
      { name: 'my-finetune', vram_mb: 9000, family: 'llama' },
      { name: 'qwen3:8b', vram_mb: 9999, required_disk_gb: 50, notes: 'long context' },
      { name: '', vram_mb: 1 },
      { name: 'bad', vram_mb: -5, required_disk_gb: 1 },
      'nonsense',
    ]);
    expect(resolveCatalogModel('my-finetune:latest', catalog)).toMatchObject({ vram_mb: 9000, required_disk_gb: requiredDiskGb(9000) });
    expect(resolveCatalogModel('qwen3', catalog)).toMatchObject({ vram_mb: 9999, required_disk_gb: 50 });
    expect(catalog.entries.filter((e) => e.name === 'qwen3:8b')).toHaveLength(1);
    expect(catalog.issues).toHaveLength(3);
    expect(catalog.issues[0]).toMatch(/extra_catalog_models\[2\]/);
    // Largest first, like the peer's list.
    const vram = catalog.entries.map((e) => e.vram_mb);
    expect([...vram].sort((a, b) => b - a)).toEqual(vram);
  });
});
