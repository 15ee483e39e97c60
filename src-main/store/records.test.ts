import { describe, expect, it } from 'vitest';
import { cloneJson, deepFreeze } from './records';

describe('cloneJson', () => {
  it('copies objects and arrays, so freezing the copy leaves the original alone', () => {
    const original = { a: { b: [1, { c: 'x' }] }, n: null, u: undefined };
    const copy = deepFreeze(cloneJson(original));
    expect(copy).toEqual(original);
    expect(copy.a).not.toBe(original.a);
    expect(copy.a.b).not.toBe(original.a.b);
    expect(Object.isFrozen(original.a)).toBe(false);
    expect(Object.isFrozen(original.a.b[1])).toBe(false);
    expect('u' in copy).toBe(true);
  });

  it('keeps an own "__proto__" key as a key and never changes the prototype', () => {
    const parsed = JSON.parse('{"result":{"__proto__":{"polluted":true},"ok":1}}') as { result: Record<string, unknown> };
    const copy = cloneJson(parsed);
    expect(Object.getPrototypeOf(copy.result)).toBe(Object.prototype);
    expect(Object.keys(copy.result)).toEqual(['__proto__', 'ok']);
    expect(Object.getOwnPropertyDescriptor(copy.result, '__proto__')?.value).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(copy)).toBe(JSON.stringify(parsed));
  });
});
