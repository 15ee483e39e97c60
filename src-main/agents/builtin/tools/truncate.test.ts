import { describe, expect, it } from 'vitest';
import { truncateHead, truncateTail } from './truncate';

const text = Array.from({ length: 500 }, (_, i) => `line ${i} ${'x'.repeat(30)}`).join('\n');

describe('tool output bounds', () => {
  it('keeps short text as is', () => {
    expect(truncateHead('a\nb', 100)).toBe('a\nb');
    expect(truncateTail('a\nb', 100)).toBe('a\nb');
  });
  it('truncateHead keeps whole leading lines and says what was cut', () => {
    const out = truncateHead(text, 2000);
    expect(out.length).toBeLessThanOrEqual(2000);
    expect(out.startsWith('line 0 ')).toBe(true);
    expect(out).toMatch(/\n… \[truncated: \d+ more characters not shown; narrow the query/);
  });
  it('truncateTail keeps the newest lines', () => {
    const out = truncateTail(text, 2000);
    expect(out.length).toBeLessThanOrEqual(2000);
    expect(out.endsWith('line 499 ' + 'x'.repeat(30))).toBe(true);
    expect(out).toMatch(/^\[truncated: the first \d+ characters are not shown\]\nline \d+ /);
  });
});
