import { describe, expect, it } from 'vitest';
import { planContext, PromptTooLongError } from './preflight';
import { requestBody } from './request-body';
import { toOutcome } from './request';
import { csvCell } from './request-log';

const longest = { promptTokens: 3000, outputTokens: 128, total: 3128 };

describe('planContext (refusal before start, Ollama num_ctx)', () => {
  it('sends Ollama the longest prompt + output + a margin, rounded up to 256, at most the model’s context', () => {
    // 3128 + 313 = 3441 → 3584
    expect(planContext({ api: 'ollama', model: 'm', longest, contextLength: 8192, numCtx: undefined })).toEqual({ numCtx: 3584, needed: 3441 });
    expect(planContext({ api: 'ollama', model: 'm', longest, contextLength: 3500, numCtx: undefined }).numCtx).toBe(3500);
    expect(planContext({ api: 'openai', model: 'm', longest, contextLength: 4096, numCtx: undefined }).numCtx).toBeNull();
  });

  it('refuses a prompt the model cannot hold, naming the numbers, on either API', () => {
    expect(() => planContext({ api: 'ollama', model: 'tinyllama', longest, contextLength: 2048, numCtx: undefined })).toThrow(PromptTooLongError);
    expect(() => planContext({ api: 'ollama', model: 'tinyllama', longest, contextLength: 2048, numCtx: undefined })).toThrow(/about 3000 tokens.*3441 tokens; model tinyllama holds at most 2048/);
    expect(() => planContext({ api: 'openai', model: 'q', longest, contextLength: 2048, numCtx: undefined })).toThrow(/max_model_len/);
    expect(() => planContext({ api: 'ollama', model: 'm', longest, contextLength: 8192, numCtx: 2048 })).toThrow(/num_ctx is 2048/);
    // Unknown context: no check.
    expect(planContext({ api: 'openai', model: 'q', longest, contextLength: null, numCtx: undefined }).needed).toBe(3441);
  });
});

describe('request bodies', () => {
  const item = { prompt: 'Hello', outputTokens: 64, promptTokens: 2 };
  const base = { model: 'm', numCtx: 512, ignoreEos: true, minTokens: 32, temperature: 0, seed: 5 };
  it('Ollama: /api/chat with num_predict, num_ctx and sampling in options', () => {
    expect(JSON.parse(requestBody({ ...base, api: 'ollama', endpoint: 'chat', engine: 'ollama' }, item))).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
      options: { num_predict: 64, num_ctx: 512, temperature: 0, seed: 5 },
    });
  });
  it('vLLM: max_tokens, include_usage, ignore_eos and min_tokens; engines that do not honour them get neither', () => {
    expect(JSON.parse(requestBody({ ...base, api: 'openai', endpoint: 'chat', engine: 'vllm' }, item))).toEqual({
      model: 'm',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 64,
      ignore_eos: true,
      min_tokens: 32,
      temperature: 0,
      seed: 5,
    });
    const tgi = JSON.parse(requestBody({ ...base, api: 'openai', endpoint: 'completions', engine: 'tgi' }, item)) as Record<string, unknown>;
    expect(tgi).toMatchObject({ prompt: 'Hello', max_tokens: 64 });
    expect(tgi).not.toHaveProperty('ignore_eos');
    expect(tgi).not.toHaveProperty('min_tokens');
  });
});

describe('toOutcome', () => {
  const record = { level: 1, seq: 0, startedAtMs: 5, ttftMs: 10, e2eMs: 110, itlMs: [5, 5], textChunks: 3, askedTokens: 128, promptTokens: 9, finishReason: 'stop', error: null };
  it('takes the server’s output tokens: Ollama eval_count, OpenAI usage.completion_tokens, else one per chunk', () => {
    expect(toOutcome({ ...record, final: { done: true, eval_count: 51, eval_duration: 1e9, prompt_eval_count: 20 } })).toMatchObject({ ok: true, outputTokens: 51, promptTokens: 20, evalCount: 51, tpotMs: 2 });
    expect(toOutcome({ ...record, final: { prompt_tokens: 30, completion_tokens: 101, total_tokens: 131 } })).toMatchObject({ ok: true, outputTokens: 101, promptTokens: 30, evalCount: null, tpotMs: 1 });
    expect(toOutcome({ ...record, final: null })).toMatchObject({ ok: true, outputTokens: 3, promptTokens: 9 });
  });
  it('refuses a final chunk the API does not document, and keeps failures as failures', () => {
    expect(toOutcome({ ...record, final: { completion_tokens: 'many' } })).toMatchObject({ ok: false });
    expect(toOutcome({ ...record, error: 'HTTP 500: boom', final: null })).toEqual({ ok: false, error: 'HTTP 500: boom', startedAtMs: 5, ttftMs: 10 });
  });
});

describe('csvCell', () => {
  it('neutralises cells that a spreadsheet would run as a formula, and quotes what must be', () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('-x')).toBe("'-x");
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell(-3)).toBe('-3');
    expect(csvCell(null)).toBe('');
  });
});
