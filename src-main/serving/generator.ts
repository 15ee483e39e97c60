import type { ServingLevel } from '../../shared';
import type { LlmChat } from '../llm/chat-types';
import { runLevel } from './load';
import { CHARS_PER_TOKEN, promptOfTokens } from './prompt';
import { timedChat } from './request';
import { summarizeLevel } from './summary';

/**
 * The serving load generator: the levels one after another against one llmserver, each level's
 * figures handed to `onLevel` as soon as it ends. Cancelling `signal` aborts every request in
 * flight at once and rejects.
 */
export type ServingPlan = {
  model: string;
  concurrency: readonly number[];
  requestsPerLevel: number;
  promptTokens: number;
  outputTokens: number;
  warmupRequests: number;
  /** The rented machine's $/h (prices each level per million tokens); null on an existing backend. */
  dphTotal: number | null;
};

export type ServingHooks = {
  onLevelStart?: (concurrency: number, index: number) => void | Promise<void>;
  onLevel?: (level: ServingLevel, index: number) => void | Promise<void>;
  now?: () => number;
};

export async function runServingLoad(client: LlmChat, plan: ServingPlan, signal: AbortSignal, hooks: ServingHooks = {}): Promise<ServingLevel[]> {
  const now = hooks.now ?? (() => performance.now());
  const levels: ServingLevel[] = [];
  let firstIndex = 1;
  for (const [index, concurrency] of plan.concurrency.entries()) {
    await hooks.onLevelStart?.(concurrency, index);
    const run = await runLevel(
      { concurrency, requests: plan.requestsPerLevel, warmup: plan.warmupRequests, firstIndex },
      (i, s) => {
        // Numbered across levels: no two requests of a run share a prompt.
        const prompt = promptOfTokens(plan.promptTokens, i);
        return timedChat(client, { model: plan.model, prompt, outputTokens: plan.outputTokens, promptTokensEstimate: Math.round(prompt.length / CHARS_PER_TOKEN), signal: s, now });
      },
      signal,
      now,
    );
    firstIndex += plan.requestsPerLevel + plan.warmupRequests;
    const level = summarizeLevel(run, plan.dphTotal);
    levels.push(level);
    await hooks.onLevel?.(level, index);
  }
  return levels;
}
