import { describe, expect, it } from 'vitest';
import type { ChatRequest, ChatResult, LlmChat } from '../llm/chat-types';
import { judgeAnswer, JudgeOutputError, judgePrompt, parseJudgeOutput } from './judge';

function scripted(replies: string[]): LlmChat & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    requests,
    async chat(request): Promise<ChatResult> {
      requests.push(structuredClone({ ...request, signal: undefined }));
      const content = replies[requests.length - 1] ?? '';
      return { message: { role: 'assistant', content }, model: request.model, metrics: { prompt_eval_count: 100, eval_count: 10 } };
    },
  };
}

describe('parseJudgeOutput', () => {
  it('takes the JSON object, also inside a code fence or prose', () => {
    expect(parseJudgeOutput('{"score": 1, "passed": true, "reasoning": "ok"}')).toEqual({ score: 1, passed: true, reasoning: 'ok' });
    expect(parseJudgeOutput('```json\n{"score": 0.5, "passed": false, "reasoning": "half"}\n```')).toMatchObject({ score: 0.5 });
    expect(parseJudgeOutput('Verdict: {"score": 0, "passed": false, "reasoning": "no"} — done')).toMatchObject({ score: 0 });
  });
  it('says what is wrong otherwise', () => {
    expect(parseJudgeOutput('looks fine')).toEqual({ error: 'no JSON object in the reply' });
    expect(parseJudgeOutput('{"score": 2, "passed": "yes", "reasoning": "x"}')).toMatchObject({ error: expect.stringMatching(/score.*passed/s) });
    expect(parseJudgeOutput('{score: 1}')).toMatchObject({ error: expect.stringMatching(/^not JSON/) });
  });
});

describe('judgeAnswer', () => {
  const params = { model: 'judge', question: 'why?', expected: [{ finding: 'the password is wrong', any_of: ['password'] }], answer: 'bad password' };

  it('sends the fixed rubric and the findings; answers on the first valid reply', async () => {
    const llm = scripted(['{"score": 1, "passed": true, "reasoning": "found it"}']);
    const { output, usage } = await judgeAnswer(llm, params);
    expect(output).toEqual({ score: 1, passed: true, reasoning: 'found it' });
    expect(usage).toMatchObject({ attempts: 1, prompt_tokens: 100, completion_tokens: 10 });
    expect(llm.requests[0]?.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('Answer with one JSON object') });
    expect(llm.requests[0]?.messages[1]?.content).toBe(judgePrompt('why?', params.expected, 'bad password'));
  });

  it('retries once in the same conversation, then gives up with the usage counted', async () => {
    const retried = scripted(['sure!', '{"score": 0.5, "passed": false, "reasoning": "half"}']);
    expect((await judgeAnswer(retried, params)).usage).toMatchObject({ attempts: 2, prompt_tokens: 200 });
    expect(retried.requests[1]?.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    const hopeless = scripted(['no', 'still no', 'never asked']);
    const err = await judgeAnswer(hopeless, params).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JudgeOutputError);
    expect((err as JudgeOutputError).usage.attempts).toBe(2);
    expect(hopeless.requests).toHaveLength(2);
  });
});
