import type { ModelEntry } from '../../shared/models';
import type { OllamaPsModel, OllamaTagsModel } from './ollama-wire';

/** The fields /api/tags and /api/ps entries share, with `details` flattened. */
function commonFields(m: OllamaTagsModel | OllamaPsModel): ModelEntry {
  return {
    name: m.name,
    size: m.size ?? null,
    family: m.details?.family || null,
    parameter_size: m.details?.parameter_size || null,
    quantization: m.details?.quantization_level || null,
    digest: m.digest ?? null,
  };
}

/** /api/tags entry → the API's ModelEntry (Ollama's names kept). */
export function tagsModelToEntry(m: OllamaTagsModel): ModelEntry {
  return { ...commonFields(m), modified_at: m.modified_at ?? null };
}

/** /api/ps entry → ModelEntry with the running fields (VRAM use, expiry, context window). */
export function psModelToEntry(m: OllamaPsModel): ModelEntry {
  return {
    ...commonFields(m),
    size_vram: m.size_vram ?? null,
    expires_at: m.expires_at ?? null,
    context_length: m.context_length ?? null,
  };
}

/** True when part of a loaded model sits in CPU memory (slow); the engine flags the run degraded. */
export function isPartiallyOffloaded(entry: ModelEntry): boolean {
  return typeof entry.size === 'number' && typeof entry.size_vram === 'number' && entry.size_vram < entry.size;
}
