import { z } from 'zod';
import type { ExpectedFinding } from '../../shared';
import type { ChatMessage, LlmChat } from '../llm/chat-types';

/**
 * The optional judge of design §12: a second model reads the question, the expected findings and
 * the answer under a fixed rubric, and answers `{score, passed, reasoning}` as JSON. Its output is
 * validated; invalid JSON gets one more try with a reminder, then the verdict is an error. Its
 * time and tokens are counted apart from the agent's.
 */

export const JUDGE_RUBRIC = [
  'You grade answers of a Kubernetes troubleshooting assistant.',
  'You get the question it was asked, the findings a correct answer must contain, and its answer.',
  'Rules:',
  '- A finding counts as present when the answer states it, in any words; mentioning it only to rule it out does not count.',
  '- score is the fraction of findings present, from 0 to 1. With no findings listed, score is 1 when the answer says nothing is wrong, else 0.',
  '- passed is true only when every finding is present and the answer claims no cause that is not supported by the findings.',
  '- reasoning is one or two sentences saying what was found or missed.',
  'Answer with one JSON object and nothing else: {"score": <number>, "passed": <boolean>, "reasoning": "<text>"}',
].join('\n');

const JudgeOutputSchema = z.object({ score: z.number().min(0).max(1), passed: z.boolean(), reasoning: z.string().max(4000) });
export type JudgeOutput = z.infer<typeof JudgeOutputSchema>;

export type JudgeUsage = { duration_ms: number; prompt_tokens: number; completion_tokens: number; attempts: number };

export class JudgeOutputError extends Error {
  override name = 'JudgeOutputError';
  constructor(
    message: string,
    readonly usage: JudgeUsage,
  ) {
    super(message);
  }
}

export function judgePrompt(question: string, expected: readonly ExpectedFinding[], answer: string): string {
  const findings = expected.length === 0 ? '(none: the correct answer is that nothing is wrong)' : expected.map((f, i) => `${i + 1}. ${f.finding}`).join('\n');
  return `Question:\n${question}\n\nFindings a correct answer must contain:\n${findings}\n\nAnswer to grade:\n${answer.trim() === '' ? '(empty)' : answer}`;
}

/** The JSON object in a model's reply (models often wrap it in a code fence), or an error saying why not. */
export function parseJudgeOutput(text: string): JudgeOutput | { error: string } {
  const trimmed = text.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  const start = trimmed.indexOf('{');
  const end = trimmed.lastIndexOf('}');
  if (start < 0 || end < start) return { error: 'no JSON object in the reply' };
  let raw: unknown;
  try {
    raw = JSON.parse(trimmed.slice(start, end + 1));
  } catch (err) {
    return { error: `not JSON: ${err instanceof Error ? err.message : String(err)}` };
  }
  const parsed = JudgeOutputSchema.safeParse(raw);
  if (!parsed.success) return { error: parsed.error.issues.map((i) => `${i.path.join('.') || 'reply'}: ${i.message}`).join('; ') };
  return parsed.data;
}

export async function judgeAnswer(
  llm: LlmChat,
  params: { model: string; question: string; expected: readonly ExpectedFinding[]; answer: string; signal?: AbortSignal },
): Promise<{ output: JudgeOutput; usage: JudgeUsage }> {
  const messages: ChatMessage[] = [
    { role: 'system', content: JUDGE_RUBRIC },
    { role: 'user', content: judgePrompt(params.question, params.expected, params.answer) },
  ];
  const usage: JudgeUsage = { duration_ms: 0, prompt_tokens: 0, completion_tokens: 0, attempts: 0 };
  let lastError = '';
  for (let attempt = 0; attempt < 2; attempt++) {
    const t0 = performance.now();
    const result = await llm.chat({ model: params.model, messages, stream: false, options: { temperature: 0 }, ...(params.signal ? { signal: params.signal } : {}) });
    usage.duration_ms += performance.now() - t0;
    usage.prompt_tokens += result.metrics.prompt_eval_count ?? 0;
    usage.completion_tokens += result.metrics.eval_count ?? 0;
    usage.attempts = attempt + 1;
    const parsed = parseJudgeOutput(result.message.content);
    if (!('error' in parsed)) return { output: parsed, usage };
    lastError = parsed.error;
    // One retry, in the same conversation, saying what was wrong.
    messages.push({ role: 'assistant', content: result.message.content });
    messages.push({ role: 'user', content: `That was not valid (${lastError}). Reply with only the JSON object {"score": <0..1>, "passed": <true|false>, "reasoning": "<text>"}.` });
  }
  throw new JudgeOutputError(`the judge ${params.model} did not answer valid JSON twice: ${lastError}`, usage);
}
