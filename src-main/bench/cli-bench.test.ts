import { describe, expect, it } from 'vitest';
import { parseChildTimes } from './cli-bench';

describe('parseChildTimes', () => {
  it("adds the children's user and system time from sh's `times` (its last line)", () => {
    expect(parseChildTimes('0m0.004s 0m0.001s\n0m0.312s 0m0.058s\n')).toBe(370);
    expect(parseChildTimes('0m0.000s 0m0.000s\n1m2.500s 0m0.500s')).toBe(63_000);
  });

  it('says it cannot read anything else', () => {
    expect(parseChildTimes('')).toBeNull();
    expect(parseChildTimes('Usage: benchdesk')).toBeNull();
  });
});
