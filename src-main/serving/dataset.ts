import type { ServingBenchmarkRequest, ServingDataset } from '../../shared';
import { shippedCorpus } from './corpus';
import { readDatasetFile } from './dataset-file';
import { CHARS_PER_TOKEN, promptOfTokens } from './prompt';
import { lengthAround, seededRandom } from './random';

/**
 * The workload's prompts (design §13b `dataset`): request i of a run gets `at(i)`. Random lengths
 * are drawn per request from the seed, so any request can be built on its own (the generator asks
 * for bodies as it goes); the shipped corpus and files are shuffled once by the seed and cycled.
 */

export type PromptItem = {
  prompt: string;
  /** Tokens the request asks for. */
  outputTokens: number;
  /** The prompt's length in tokens, estimated (4 characters each) until the server counts it. */
  promptTokens: number;
};

export interface PromptSource {
  at(index: number): PromptItem;
  /** The longest prompt and the most tokens asked (estimates): what the context must hold. */
  longest(): { promptTokens: number; outputTokens: number; total: number };
  /** For people: "random, 256 ± 0% input tokens, 128 output". */
  readonly description: string;
}

const estimate = (text: string): number => Math.ceil(text.length / CHARS_PER_TOKEN);

/** vLLM's random dataset: lengths uniform around the asked ones (range_ratio), numbered prompts so none share a prefix. */
export function randomSource(options: { inputTokens: number; outputTokens: number; rangeRatio: number; seed: number }): PromptSource {
  const { inputTokens, outputTokens, rangeRatio, seed } = options;
  const top = (n: number) => Math.max(1, Math.round(n * (1 + rangeRatio)));
  return {
    at(index) {
      const random = seededRandom((seed * 1_000_003 + index) >>> 0);
      const prompt = promptOfTokens(lengthAround(random, inputTokens, rangeRatio), index);
      return { prompt, outputTokens: lengthAround(random, outputTokens, rangeRatio), promptTokens: estimate(prompt) };
    },
    longest: () => ({ promptTokens: top(inputTokens), outputTokens: top(outputTokens), total: top(inputTokens) + top(outputTokens) }),
    description: `random: ${inputTokens}${rangeRatio > 0 ? ` ± ${Math.round(rangeRatio * 100)}%` : ''} input tokens, ${outputTokens}${rangeRatio > 0 ? ` ± ${Math.round(rangeRatio * 100)}%` : ''} output tokens`,
  };
}

/** A fixed list of prompts, shuffled by the seed and cycled; `defaultOutput` where an entry does not say. */
export function listSource(entries: readonly { prompt: string; outputTokens: number | null }[], defaultOutput: number, seed: number, description: string): PromptSource {
  const random = seededRandom(seed);
  const items: PromptItem[] = entries.map((e) => ({ prompt: e.prompt, outputTokens: e.outputTokens ?? defaultOutput, promptTokens: estimate(e.prompt) }));
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j] as PromptItem, items[i] as PromptItem];
  }
  let longest = { promptTokens: 0, outputTokens: 0, total: 0 };
  for (const item of items) {
    const total = item.promptTokens + item.outputTokens;
    if (total > longest.total) longest = { promptTokens: item.promptTokens, outputTokens: item.outputTokens, total };
  }
  return { at: (index) => items[index % items.length] as PromptItem, longest: () => longest, description };
}

/** The request's dataset as a prompt source (a file is read and validated here: DatasetFileError). */
export async function loadPromptSource(request: Pick<ServingBenchmarkRequest, 'dataset' | 'prompt_tokens' | 'output_tokens' | 'seed'>): Promise<PromptSource> {
  const dataset: ServingDataset = request.dataset;
  const seed = request.seed ?? 0;
  switch (dataset.kind) {
    case 'random':
      return randomSource({ inputTokens: dataset.input_tokens ?? request.prompt_tokens, outputTokens: dataset.output_tokens ?? request.output_tokens, rangeRatio: dataset.range_ratio, seed });
    case 'shipped':
      return listSource(shippedCorpus(), request.output_tokens, seed, 'the shipped corpus (16 prompts of varied length)');
    case 'file': {
      const entries = await readDatasetFile(dataset.path);
      return listSource(entries, request.output_tokens, seed, `${entries.length} prompts from ${dataset.path}`);
    }
  }
}
