import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { arrivalOffsets, requestsForDuration } from './arrivals';
import { listSource, loadPromptSource, randomSource } from './dataset';
import { DatasetFileError, readDatasetFile } from './dataset-file';
import { gamma, seededRandom } from './random';

const dir = await mkdtemp(path.join(os.tmpdir(), 'bd-dataset-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('arrival schedules (request-rate levels)', () => {
  it('draws gamma gaps with the asked mean, and scales them so n requests span n / rate seconds', () => {
    const offsets = arrivalOffsets(200, 4, 1, 7);
    expect(offsets[0]).toBe(0);
    expect(offsets.every((t, i) => i === 0 || t >= (offsets[i - 1] ?? 0))).toBe(true);
    // n ÷ (last start − first start) = the asked rate, exactly.
    expect(200 / ((offsets.at(-1) ?? 0) / 1000)).toBeCloseTo(4, 9);
    // The same seed gives the same schedule; another seed another one.
    expect(arrivalOffsets(200, 4, 1, 7)).toEqual(offsets);
    expect(arrivalOffsets(200, 4, 1, 8)).not.toEqual(offsets);
  });

  it('is burstier with a lower gamma shape (a larger spread of gaps), and all at once for "inf"', () => {
    const spread = (burstiness: number) => {
      const o = arrivalOffsets(2000, 10, burstiness, 1);
      const gaps = o.slice(1).map((t, i) => t - (o[i] ?? 0));
      const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
      return Math.sqrt(gaps.reduce((a, g) => a + (g - mean) ** 2, 0) / gaps.length) / mean;
    };
    // The coefficient of variation of gamma gaps is 1/sqrt(shape).
    expect(spread(1)).toBeGreaterThan(0.9);
    expect(spread(1)).toBeLessThan(1.1);
    expect(spread(0.25)).toBeGreaterThan(1.7);
    expect(arrivalOffsets(5, 'inf', 1, 0)).toEqual([0, 0, 0, 0, 0]);
    expect(requestsForDuration(2.5, 10)).toBe(25);
  });

  it('samples gamma with the right mean', () => {
    const random = seededRandom(3);
    let sum = 0;
    for (let i = 0; i < 20_000; i++) sum += gamma(random, 2, 1.5);
    expect(sum / 20_000).toBeCloseTo(3, 1);
  });
});

describe('datasets', () => {
  it('random: lengths within the range ratio, the same request always the same prompt, none sharing a prefix', () => {
    const source = randomSource({ inputTokens: 200, outputTokens: 100, rangeRatio: 0.5, seed: 1 });
    const items = Array.from({ length: 200 }, (_, i) => source.at(i));
    expect(items.every((x) => x.outputTokens >= 50 && x.outputTokens <= 150)).toBe(true);
    expect(items.every((x) => x.promptTokens >= 45 && x.promptTokens <= 301)).toBe(true);
    expect(new Set(items.map((x) => x.outputTokens)).size).toBeGreaterThan(20);
    expect(source.at(5)).toEqual(items[5]);
    expect(items[0]?.prompt.startsWith('Request 0.')).toBe(true);
    expect(source.longest()).toEqual({ promptTokens: 300, outputTokens: 150, total: 450 });
  });

  it('the shipped corpus: prompts of varied length, each with its own output tokens', async () => {
    const source = await loadPromptSource({ dataset: { kind: 'shipped' }, prompt_tokens: 256, output_tokens: 128, seed: 0 });
    const items = Array.from({ length: 16 }, (_, i) => source.at(i));
    const lengths = items.map((x) => x.promptTokens);
    expect(Math.min(...lengths)).toBeLessThan(30);
    expect(Math.max(...lengths)).toBeGreaterThan(1500);
    expect(new Set(items.map((x) => x.outputTokens)).size).toBeGreaterThan(8);
    // It cycles.
    expect(source.at(16)).toEqual(items[0]);
  });

  it('a list source shuffles by the seed and uses the default output where an entry has none', () => {
    const source = listSource([{ prompt: 'a', outputTokens: null }, { prompt: 'bb', outputTokens: 7 }], 64, 0, 'two');
    const items = [source.at(0), source.at(1)];
    expect(items.map((x) => x.outputTokens).sort()).toEqual([64, 7].sort());
  });

  it('reads a ShareGPT JSON file (first human turn; the answer’s length as the tokens asked) and skips conversations without one', async () => {
    const file = path.join(dir, 'sharegpt.json');
    await writeFile(file, JSON.stringify([
      { id: 'x', conversations: [{ from: 'human', value: 'What is a tide?' }, { from: 'gpt', value: 'a'.repeat(400) }] },
      { conversations: [{ from: 'gpt', value: 'Hello' }] },
      { conversations: [{ from: 'user', value: 'Hi' }] },
    ]));
    expect(await readDatasetFile(file)).toEqual([{ prompt: 'What is a tide?', outputTokens: 100 }, { prompt: 'Hi', outputTokens: null }]);
  });

  it('reads JSONL of {prompt, output_tokens?}, and names the line that is wrong without quoting the file', async () => {
    const good = path.join(dir, 'good.jsonl');
    await writeFile(good, '{"prompt":"one","output_tokens":12}\n\n{"prompt":"two"}\n');
    expect(await readDatasetFile(good)).toEqual([{ prompt: 'one', outputTokens: 12 }, { prompt: 'two', outputTokens: null }]);
    const bad = path.join(dir, 'bad.jsonl');
    await writeFile(bad, '{"prompt":"one"}\n{"prompt":"","secret":"hunter22"}\n');
    const error = await readDatasetFile(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatasetFileError);
    expect(String(error)).toMatch(/line 2: prompt: is empty/);
    expect(String(error)).not.toMatch(/hunter22/);
    const notJson = path.join(dir, 'not.jsonl');
    await writeFile(notJson, 'root:x:0:0\n');
    await expect(readDatasetFile(notJson)).rejects.toThrow(/line 1 is not JSON/);
    await expect(readDatasetFile(path.join(dir, 'missing.jsonl'))).rejects.toThrow(/no file at/);
    const empty = path.join(dir, 'empty.json');
    await writeFile(empty, '[]');
    await expect(readDatasetFile(empty)).rejects.toThrow(/holds no prompt/);
  });
});
