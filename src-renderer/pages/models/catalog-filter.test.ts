import { describe, expect, it } from 'vitest';
import { matchesCatalogFilter } from './ModelsPage';

const qwen = { name: 'qwen2.5:7b', vram_mb: 6500, required_disk_gb: 40, family: 'qwen2', notes: 'Tool calling.' };
const r1 = { name: 'deepseek-r1:8b', vram_mb: 7000, required_disk_gb: 40, family: 'qwen3', notes: 'reasoning model (Qwen3 distill)' };

describe('catalog filter', () => {
  it('matches every word against name, family and notes, case-insensitively', () => {
    expect(matchesCatalogFilter(qwen, 'QWEN tool', '', 0)).toBe(true);
    expect(matchesCatalogFilter(r1, 'qwen3 distill', '', 0)).toBe(true);
    expect(matchesCatalogFilter(qwen, 'qwen reasoning', '', 0)).toBe(false);
  });
  it('filters by family and by the VRAM a model needs (GB)', () => {
    expect(matchesCatalogFilter(qwen, '', 'qwen3', 0)).toBe(false);
    expect(matchesCatalogFilter(r1, '', 'qwen3', 0)).toBe(true);
    expect(matchesCatalogFilter(qwen, '', '', 7)).toBe(false);
    expect(matchesCatalogFilter(qwen, '', '', 6)).toBe(true);
  });
});
