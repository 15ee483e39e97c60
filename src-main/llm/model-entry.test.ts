import { describe, expect, it } from 'vitest';
import { OllamaPsResponseSchema, OllamaTagsResponseSchema } from './ollama-wire';
import { isPartiallyOffloaded, psModelToEntry, tagsModelToEntry } from './model-entry';

const details = { parent_model: '', format: 'gguf', family: 'llama', families: ['llama'], parameter_size: '8.0B', quantization_level: 'Q4_K_M' };

describe('/api/tags → ModelEntry', () => {
  it('flattens details and keeps Ollama strings as sent', () => {
    const wire = OllamaTagsResponseSchema.parse({
      models: [{
        name: 'llama3.1:8b', model: 'llama3.1:8b', modified_at: '2025-05-04T17:37:44.706015396-07:00', size: 4920753328,
        digest: '46e0c10c039e019119339687c3c1757cc81b9da49709a3b3924863ba87ca666e', details, extra_future_field: true,
      }],
    });
    expect(wire.models.map(tagsModelToEntry)).toEqual([{
      name: 'llama3.1:8b', size: 4920753328, family: 'llama', parameter_size: '8.0B', quantization: 'Q4_K_M',
      modified_at: '2025-05-04T17:37:44.706015396-07:00', digest: '46e0c10c039e019119339687c3c1757cc81b9da49709a3b3924863ba87ca666e',
    }]);
  });

  it('accepts an empty or null list and entries without details', () => {
    expect(OllamaTagsResponseSchema.parse({ models: [] }).models).toEqual([]);
    expect(OllamaTagsResponseSchema.parse({ models: null }).models).toEqual([]);
    const [entry] = OllamaTagsResponseSchema.parse({ models: [{ name: 'x' }] }).models.map(tagsModelToEntry);
    expect(entry).toEqual({ name: 'x', size: null, family: null, parameter_size: null, quantization: null, modified_at: null, digest: null });
  });

  it('rejects a payload without models', () => {
    expect(OllamaTagsResponseSchema.safeParse({}).success).toBe(false);
    expect(OllamaTagsResponseSchema.safeParse({ models: [{ size: 1 }] }).success).toBe(false);
  });
});

describe('/api/ps → ModelEntry', () => {
  it('keeps size_vram, expires_at and context_length', () => {
    const wire = OllamaPsResponseSchema.parse({
      models: [{
        name: 'llama3.1:8b', model: 'llama3.1:8b', size: 6654289920, digest: '46e0', details,
        expires_at: '2026-08-21T14:38:31.83753-07:00', size_vram: 6654289920, context_length: 4096,
      }],
    });
    const [entry] = wire.models.map(psModelToEntry);
    expect(entry).toEqual({
      name: 'llama3.1:8b', size: 6654289920, family: 'llama', parameter_size: '8.0B', quantization: 'Q4_K_M', digest: '46e0',
      size_vram: 6654289920, expires_at: '2026-08-21T14:38:31.83753-07:00', context_length: 4096,
    });
    expect(entry && isPartiallyOffloaded(entry)).toBe(false);
  });

  it('flags partial CPU offload', () => {
    expect(isPartiallyOffloaded({ name: 'x', size: 100, size_vram: 60 })).toBe(true);
    expect(isPartiallyOffloaded({ name: 'x', size: 100, size_vram: 0 })).toBe(true);
    expect(isPartiallyOffloaded({ name: 'x', size: 100 })).toBe(false);
  });
});
