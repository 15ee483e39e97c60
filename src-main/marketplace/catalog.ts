import { CatalogEntrySchema, type CatalogEntry } from '../../shared/models';

/**
 * The marketplace model catalog: how much GPU memory (MB, all GPUs together) and disk (GB) a
 * model needs on a rented machine. It sizes offer searches and the rented disk.
 */

/** The peer's disk rule: the weights with 15% slack, plus 32 GB for the image and OS. */
export function requiredDiskGb(vramMb: number): number {
  return Math.ceil((vramMb / 1024) * 1.15) + 32;
}

function entry(name: string, vram_mb: number, family: string, notes: string): CatalogEntry {
  // The download size is the one the notes state ("4.9 GB download"): one figure, written once.
  const download = /([\d.]+) GB download/.exec(notes)?.[1];
  return { name, vram_mb, required_disk_gb: requiredDiskGb(vram_mb), ...(download ? { download_gb: Number(download) } : {}), family, notes };
}

/**
 * What pulling the model downloads (GB): the catalog's figure, or for an entry without one its memory
 * need (an upper bound: the weights are smaller than what they take in use).
 */
export function modelDownloadGb(model: CatalogEntry): number {
  return model.download_gb ?? Math.round((model.vram_mb / 1024) * 10) / 10;
}

/**
 * Figures for Ollama's default tags (Q4_K_M, or MXFP4 for gpt-oss), then a few Hugging Face ids for a rented vLLM: the download size plus the KV
 * cache at Ollama's default 4k context and CUDA overhead, rounded up. A longer context needs more.
 * The first eight are the peer's list (its figures, which are generous for the small models).
 */
export const BUILTIN_CATALOG: readonly CatalogEntry[] = Object.freeze([
  entry('llama3.1:405b', 260000, 'llama', 'Peer catalog. Q4_K_M, 243 GB download; needs a multi-GPU node (e.g. 4×80 GB). Tool calling.'),
  entry('mixtral:8x22b', 95000, 'mixtral', 'Peer catalog. Mixture of experts, 80 GB download. Tool calling.'),
  entry('command-r-plus:104b', 75000, 'command-r', 'Peer catalog. 59 GB download; Cohere licence (non-commercial). Tool calling.'),
  entry('qwen2.5-coder:72b', 55000, 'qwen2', 'Peer catalog (Ollama publishes qwen2.5-coder up to 32b; use qwen2.5:72b for this size, 47 GB download).'),
  entry('llama3.1:70b', 50000, 'llama', 'Peer catalog. 43 GB download; fits one 80 GB or two 24 GB+ GPUs. Tool calling.'),
  entry('mixtral:8x7b', 32000, 'mixtral', 'Peer catalog. Mixture of experts, 26 GB download. Tool calling.'),
  entry('command-r:35b', 28000, 'command-r', 'Peer catalog. 19 GB download; large KV cache per token. Tool calling.'),
  entry('llama3.1:8b', 8000, 'llama', 'Peer catalog. 4.9 GB download; ~6.5 GB in use at 4k context. Tool calling.'),

  entry('llama3.2:3b', 4000, 'llama', '2.0 GB download; small and fast, weak at multi-step tool use. Tool calling.'),
  entry('llama3.3:70b', 48000, 'llama', '43 GB download; one 48 GB card is tight, 80 GB is comfortable. Tool calling.'),
  entry('qwen2.5:7b', 6500, 'qwen2', '4.7 GB download; 128k context model (4k by default). Tool calling.'),
  entry('qwen2.5:14b', 11500, 'qwen2', '9.0 GB download. Tool calling.'),
  entry('qwen2.5:32b', 23500, 'qwen2', '20 GB download; just fits a 24 GB card at default context. Tool calling.'),
  entry('qwen2.5:72b', 52000, 'qwen2', '47 GB download. Tool calling.'),
  entry('qwen2.5-coder:7b', 6500, 'qwen2', '4.7 GB download; code-tuned. Tool calling.'),
  entry('qwen2.5-coder:32b', 23500, 'qwen2', '20 GB download; code-tuned. Tool calling.'),
  entry('qwen3:8b', 7000, 'qwen3', '5.2 GB download; thinking and non-thinking modes. Tool calling.'),
  entry('qwen3:14b', 12000, 'qwen3', '9.3 GB download. Tool calling.'),
  entry('qwen3:30b', 22000, 'qwen3moe', '19 GB download; mixture of experts (3B active), fast for its size. Tool calling.'),
  entry('qwen3:32b', 23500, 'qwen3', '20 GB download; a 24 GB card only at default context. Tool calling.'),
  entry('gemma3:4b', 5500, 'gemma3', '3.3 GB download incl. vision encoder. No tool calling in Ollama.'),
  entry('gemma3:12b', 11000, 'gemma3', '8.1 GB download incl. vision encoder. No tool calling in Ollama.'),
  entry('gemma3:27b', 21000, 'gemma3', '17 GB download incl. vision encoder; fits a 24 GB card. No tool calling in Ollama.'),
  entry('mistral:7b', 6000, 'llama', '4.1 GB download (Mistral 7B v0.3). Tool calling.'),
  entry('mistral-nemo:12b', 10000, 'llama', '7.1 GB download; 128k context model (4k by default). Tool calling.'),
  entry('mistral-small:24b', 17000, 'llama', '14 GB download (Mistral Small 3). Tool calling.'),
  entry('deepseek-r1:8b', 7000, 'qwen3', '5.2 GB download; reasoning model (Qwen3 distill), long answers.'),
  entry('deepseek-r1:14b', 11500, 'qwen2', '9.0 GB download; reasoning model (Qwen2.5 distill), long answers.'),
  entry('deepseek-r1:32b', 23500, 'qwen2', '20 GB download; reasoning model (Qwen2.5 distill).'),
  entry('deepseek-r1:70b', 48000, 'llama', '43 GB download; reasoning model (Llama 3.3 distill).'),
  entry('gpt-oss:20b', 16000, 'gptoss', '14 GB download (MXFP4); fits a 16 GB card. Reasoning levels. Tool calling.'),
  entry('gpt-oss:120b', 70000, 'gptoss', '65 GB download (MXFP4); one 80 GB GPU. Reasoning levels. Tool calling.'),
  entry('phi4:14b', 11500, 'phi3', '9.1 GB download; 16k context model. No tool calling in Ollama.'),

  // For a rented vLLM (backend_api "openai"): Hugging Face ids, the weights in bf16 as vLLM loads
  // them by default (downloaded by vLLM at start), plus room for the KV cache.
  entry('Qwen/Qwen2.5-0.5B-Instruct', 4000, 'qwen2', 'vLLM (Hugging Face id). 0.99 GB download (bf16); a quick, cheap check of a vLLM machine.'),
  entry('Qwen/Qwen2.5-7B-Instruct', 20000, 'qwen2', 'vLLM (Hugging Face id). 15.2 GB download (bf16); fits a 24 GB card at a shorter max-model-len. Tool calling.'),
  entry('Qwen/Qwen3-8B', 22000, 'qwen3', 'vLLM (Hugging Face id). 16.4 GB download (bf16); a 24 GB card at a shorter max-model-len. Tool calling.'),
]);

/**
 * What Ollama's untagged (`:latest`) names point at, so "qwen3" or "qwen3:latest" sizes the GPU
 * for qwen3:8b, as `ollama pull qwen3` would.
 */
const LATEST_TAGS: Readonly<Record<string, string>> = {
  'llama3.1': 'llama3.1:8b',
  'llama3.2': 'llama3.2:3b',
  'llama3.3': 'llama3.3:70b',
  mixtral: 'mixtral:8x7b',
  'command-r': 'command-r:35b',
  'command-r-plus': 'command-r-plus:104b',
  'qwen2.5': 'qwen2.5:7b',
  'qwen2.5-coder': 'qwen2.5-coder:7b',
  qwen3: 'qwen3:8b',
  gemma3: 'gemma3:4b',
  mistral: 'mistral:7b',
  'mistral-nemo': 'mistral-nemo:12b',
  'mistral-small': 'mistral-small:24b',
  'deepseek-r1': 'deepseek-r1:8b',
  'gpt-oss': 'gpt-oss:20b',
  phi4: 'phi4:14b',
};

/** Lower-case, trimmed, `:latest` dropped: `Qwen3:latest` and `qwen3` are the same model. */
export function normaliseModelName(name: string): string {
  const n = name.trim().toLowerCase();
  return n.endsWith(':latest') ? n.slice(0, -':latest'.length) : n;
}

export type Catalog = { entries: CatalogEntry[]; issues: string[] };

/**
 * The built-in catalog with the user's `extra_catalog_models` (settings.json) merged in. Each extra is validated
 * with the shared CatalogEntry schema; `required_disk_gb` may be left out and is then computed.
 * A user entry replaces a built-in of the same name. Invalid entries are skipped and reported.
 */
export function buildCatalog(extraModels: readonly unknown[] = []): Catalog {
  const byName = new Map<string, CatalogEntry>();
  for (const e of BUILTIN_CATALOG) byName.set(normaliseModelName(e.name), e);
  const issues: string[] = [];
  extraModels.forEach((raw, i) => {
    const candidate =
      raw !== null && typeof raw === 'object' && !('required_disk_gb' in raw) && 'vram_mb' in raw && typeof raw.vram_mb === 'number'
        ? { ...raw, required_disk_gb: requiredDiskGb(raw.vram_mb) }
        : raw;
    const parsed = CatalogEntrySchema.safeParse(candidate);
    if (!parsed.success) {
      const why = parsed.error.issues.map((iss) => `${iss.path.join('.') || '(entry)'}: ${iss.message}`).join('; ');
      issues.push(`extra_catalog_models[${i}] ignored: ${why}`);
      return;
    }
    byName.set(normaliseModelName(parsed.data.name), { ...parsed.data, name: parsed.data.name.trim() });
  });
  const entries = [...byName.values()].sort((a, b) => b.vram_mb - a.vram_mb || a.name.localeCompare(b.name));
  return { entries, issues };
}

const DEFAULT_CATALOG = buildCatalog();

/** The catalog entry for a model name (`name` ≡ `name:latest`, case-insensitive), or null. */
export function resolveCatalogModel(name: string, catalog: Catalog = DEFAULT_CATALOG): CatalogEntry | null {
  const wanted = normaliseModelName(name);
  const find = (n: string): CatalogEntry | undefined => catalog.entries.find((e) => normaliseModelName(e.name) === n);
  const direct = find(wanted);
  if (direct) return direct;
  const latest = wanted.includes(':') ? undefined : LATEST_TAGS[wanted];
  return (latest && find(latest)) || null;
}
