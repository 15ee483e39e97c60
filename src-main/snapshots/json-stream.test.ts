import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonDepthError, JsonStreamReader, JsonSyntaxError, type JsonPath } from './json-stream';

/** Feeds `text` in pieces cut at `cuts`; answers the handed-over values and the passed-through text. */
function read(text: string, split: (path: JsonPath) => boolean, cuts: number[] = [], maxDepth = 64) {
  const values: { path: JsonPath; value: unknown }[] = [];
  let out = '';
  const reader = new JsonStreamReader({
    maxDepth,
    split: (path) => split(path),
    onValue: (path, raw) => {
      values.push({ path: [...path], value: JSON.parse(raw) });
    },
    onSkeleton: (t) => {
      out += t;
    },
  });
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    reader.write(text.slice(from, cut));
    from = cut;
  }
  reader.write(text.slice(from));
  reader.end();
  return { values, out };
}

/** Puts the handed-over values back where they were: the same tree as JSON.parse. */
function rebuild(values: { path: JsonPath; value: unknown }[], skeleton: unknown): unknown {
  if (values.length === 1 && values[0]?.path.length === 0) return values[0].value;
  for (const { path, value } of values) {
    let node = skeleton as Record<string | number, unknown>;
    for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
    node[path[path.length - 1] as string | number] = value;
  }
  return skeleton;
}

describe('JsonStreamReader', () => {
  it('hands over the chosen values, passes the rest through unchanged, whatever the chunk boundaries', () => {
    fc.assert(
      // A "__proto__" key is refused on purpose (tested below): the generated documents have none.
      fc.property(fc.jsonValue({ maxDepth: 5 }).filter((v) => !JSON.stringify(v).includes('"__proto__"')), fc.array(fc.nat(), { maxLength: 8 }), fc.nat(3), (value, rawCuts, level) => {
        const text = JSON.stringify(value, null, rawCuts.length % 2 === 0 ? undefined : 1);
        const cuts = rawCuts.map((c) => c % (text.length + 1));
        const { values, out } = read(text, (path) => path.length >= level, cuts);
        // The output is the input, byte for byte, and the values are the parsed pieces.
        expect(out).toBe(text);
        const skeleton = JSON.parse(text) as unknown;
        expect(rebuild(values, structuredClone(skeleton))).toEqual(skeleton);
      }),
      { numRuns: 300 },
    );
  });

  it('names paths: keys and array indexes', () => {
    const { values } = read('{"objects":{"pods":[{"a":1},{"b":"x"}],"nodes":[]},"name":"n","logs":[1]}', (p) => p.length === 3 || (p.length === 1 && p[0] !== 'objects'));
    expect(values).toEqual([
      { path: ['objects', 'pods', 0], value: { a: 1 } },
      { path: ['objects', 'pods', 1], value: { b: 'x' } },
      { path: ['name'], value: 'n' },
      { path: ['logs'], value: [1] },
    ]);
  });

  it('refuses malformed JSON with where it broke', () => {
    for (const text of ['{"a":1,}', '{"a" 1}', '[1,]', '{"a":1}}', '{"a":1', '', '{a:1}', '[01x]', '{"a":[1 2]}', '"open']) {
      expect(() => read(text, (p) => p.length >= 2), text).toThrow(text === '[01x]' ? SyntaxError : JsonSyntaxError);
    }
  });

  it('refuses nesting deeper than the bound, in the skeleton or inside a value, naming the path (no recursion)', () => {
    const deep = `{"objects":{"pods":[${'['.repeat(2_000)}${']'.repeat(2_000)}]}}`;
    let caught: unknown;
    try {
      read(deep, (p) => p.length === 3, [], 512);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(JsonDepthError);
    expect((caught as JsonDepthError).path).toEqual(['objects', 'pods', 0]);
    expect(() => read(`${'['.repeat(100_000)}${']'.repeat(100_000)}`, () => false, [], 512)).toThrow(JsonDepthError);
  });

  it('refuses a __proto__ key in the skeleton', () => {
    expect(() => read('{"__proto__":{"polluted":true}}', () => false)).toThrow(/__proto__/);
  });
});
