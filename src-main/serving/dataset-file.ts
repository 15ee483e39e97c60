import { open } from 'node:fs/promises';
import { z } from 'zod';
import { SERVING_LIMITS } from '../../shared';
import { CHARS_PER_TOKEN } from './prompt';

/**
 * A dataset file (`dataset: {kind: "file", path}`), read on the server: a ShareGPT JSON document
 * (`[{conversations: [{from: "human", value}, {from: "gpt", value}, …]}]`, as `vllm bench serve
 * --dataset-name sharegpt` reads it) or JSONL of `{prompt, output_tokens?}` (one per line, as its
 * custom dataset), or a JSON array of those. Validated with zod; an error names the entry or line
 * and what is wrong, never the file's text (the path may point at anything on the server).
 */

export const MAX_DATASET_FILE_BYTES = 64 * 1024 * 1024;
const MAX_ENTRIES = 1_000_000;

export class DatasetFileError extends Error {
  override name = 'DatasetFileError';
}

const PromptEntrySchema = z
  .object({
    prompt: z.string().min(1, 'is empty').max(4_000_000),
    output_tokens: z.number().int().min(1).max(SERVING_LIMITS.output_tokens).optional(),
  })
  .loose();

const ShareGptEntrySchema = z
  .object({
    conversations: z.array(z.object({ from: z.string(), value: z.string() }).loose()).min(1),
  })
  .loose();

export type DatasetEntry = { prompt: string; outputTokens: number | null };

async function readCapped(path: string): Promise<string> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new DatasetFileError(code === 'ENOENT' ? `no file at ${path}` : `cannot read ${path} (${code ?? 'error'})`);
  }
  try {
    const { size } = await handle.stat();
    if (size > MAX_DATASET_FILE_BYTES) throw new DatasetFileError(`${path} is ${Math.round(size / 1e6)} MB; a dataset file may have at most ${MAX_DATASET_FILE_BYTES / (1024 * 1024)} MiB`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

const issueOf = (error: z.ZodError): string => {
  const issue = error.issues[0];
  return `${issue?.path.length ? `${issue.path.join('.')}: ` : ''}${issue?.message ?? 'invalid'}`;
};

/** A ShareGPT conversation's first human turn, and its answer's length as the tokens to ask for. */
function fromShareGpt(entry: z.infer<typeof ShareGptEntrySchema>): DatasetEntry | null {
  const turns = entry.conversations;
  const at = turns.findIndex((t) => t.from === 'human' || t.from === 'user');
  const prompt = at >= 0 ? turns[at]?.value : undefined;
  if (!prompt) return null;
  const answer = turns[at + 1]?.value;
  const outputTokens = answer ? Math.min(SERVING_LIMITS.output_tokens, Math.max(1, Math.ceil(answer.length / CHARS_PER_TOKEN))) : null;
  return { prompt, outputTokens };
}

function fromJson(text: string, path: string): DatasetEntry[] {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new DatasetFileError(`${path} is not JSON (a .json dataset is a ShareGPT array; use .jsonl for one {prompt} per line)`);
  }
  if (!Array.isArray(document)) throw new DatasetFileError(`${path}: expected an array of ShareGPT conversations or of {prompt, output_tokens?}`);
  const entries: DatasetEntry[] = [];
  for (const [i, item] of document.entries()) {
    const asPrompt = PromptEntrySchema.safeParse(item);
    if (asPrompt.success) {
      entries.push({ prompt: asPrompt.data.prompt, outputTokens: asPrompt.data.output_tokens ?? null });
      continue;
    }
    const asShareGpt = ShareGptEntrySchema.safeParse(item);
    if (!asShareGpt.success) throw new DatasetFileError(`${path}: entry ${i} is neither a ShareGPT conversation nor {prompt, output_tokens?} (${issueOf(asShareGpt.error)})`);
    const entry = fromShareGpt(asShareGpt.data);
    // ShareGPT dumps hold conversations that start with the model; vLLM skips them too.
    if (entry) entries.push(entry);
  }
  return entries;
}

function fromJsonl(text: string, path: string): DatasetEntry[] {
  const entries: DatasetEntry[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    let item: unknown;
    try {
      item = JSON.parse(line);
    } catch {
      throw new DatasetFileError(`${path}: line ${i + 1} is not JSON`);
    }
    const parsed = PromptEntrySchema.safeParse(item);
    if (!parsed.success) throw new DatasetFileError(`${path}: line ${i + 1}: ${issueOf(parsed.error)} (each line is {"prompt": "...", "output_tokens": 128})`);
    entries.push({ prompt: parsed.data.prompt, outputTokens: parsed.data.output_tokens ?? null });
    if (entries.length > MAX_ENTRIES) throw new DatasetFileError(`${path} has more than ${MAX_ENTRIES} entries`);
  }
  return entries;
}

/** The file's prompts, in file order; at least one. */
export async function readDatasetFile(path: string): Promise<DatasetEntry[]> {
  const text = await readCapped(path);
  const entries = /\.jsonl$/i.test(path) ? fromJsonl(text, path) : fromJson(text, path);
  if (entries.length === 0) throw new DatasetFileError(`${path} holds no prompt`);
  return entries.slice(0, MAX_ENTRIES);
}
