import { describe, expect, it } from 'vitest';
import { CHARS_PER_TOKEN, promptOfTokens } from './prompt';

describe('promptOfTokens', () => {
  it.each([16, 256, 2048, 8000])('cuts the shipped text to about %i tokens (4 characters each)', (tokens) => {
    const prompt = promptOfTokens(tokens, 1);
    const estimate = prompt.length / CHARS_PER_TOKEN;
    expect(estimate).toBeLessThanOrEqual(tokens);
    expect(estimate).toBeGreaterThan(tokens * 0.95 - 3);
  });

  it('ends on a whole word and numbers each request so prompts share no prefix', () => {
    const a = promptOfTokens(256, 1);
    const b = promptOfTokens(256, 2);
    expect(a).not.toBe(b);
    expect(a.startsWith('Request 1.')).toBe(true);
    expect(a.endsWith(' ')).toBe(false);
  });
});
