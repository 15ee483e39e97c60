import fc from 'fast-check';
import { deref, type Document, type Json } from './openapi-document';

/**
 * Values from the JSON Schemas of an OpenAPI document, as Schemathesis makes them: valid ones
 * (fast-check arbitraries built from the schema) and invalid ones (a valid value broken in one
 * place the schema forbids). Covers the keywords the document uses; callers check the result
 * with a validator, since if/then/else and `not` are left to rejection.
 */

export type Context = {
  doc: Document;
  /** Values for `format: uri` (servers the test controls: a URL anywhere else would leave loopback). */
  uris: readonly string[];
};

const MAX_DEPTH = 6;

function types(schema: Json): string[] {
  if (Array.isArray(schema.type)) return schema.type as string[];
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties || schema.required) return ['object'];
  if (schema.items) return ['array'];
  return [];
}

function stringArbitrary(schema: Json, ctx: Context): fc.Arbitrary<string> {
  const minLength = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const maxLength = typeof schema.maxLength === 'number' ? Math.min(schema.maxLength, 64) : 24;
  if (schema.format === 'uri') return fc.constantFrom(...ctx.uris);
  if (schema.format === 'date-time') return fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
  if (typeof schema.pattern === 'string') {
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .filter((s) => s.length >= minLength && s.length <= (typeof schema.maxLength === 'number' ? schema.maxLength : Infinity) && s.length <= 200);
  }
  // Printable text with a non-space character: fields are trimmed by the server.
  return fc.string({ minLength: Math.max(1, minLength), maxLength: Math.max(maxLength, minLength, 1), unit: 'grapheme-ascii' }).filter((s) => s.trim().length >= Math.max(1, minLength));
}

function numberArbitrary(schema: Json, integer: boolean): fc.Arbitrary<number> {
  const exclusiveMin = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : undefined;
  const exclusiveMax = typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum : undefined;
  let min = typeof schema.minimum === 'number' ? schema.minimum : exclusiveMin ?? -1000;
  let max = typeof schema.maximum === 'number' ? schema.maximum : exclusiveMax ?? 100_000;
  // Keep to the interesting range: huge bounds (MAX_SAFE_INTEGER) mostly give noise.
  if (max - min > 1_000_000) max = min + 1_000_000;
  if (integer) {
    min = Math.ceil(exclusiveMin !== undefined && exclusiveMin >= min ? exclusiveMin + 1 : min);
    max = Math.floor(exclusiveMax !== undefined && exclusiveMax <= max ? exclusiveMax - 1 : max);
    return fc.integer({ min, max });
  }
  return fc
    .double({ min, max, noNaN: true, noDefaultInfinity: true })
    .filter((n) => (exclusiveMin === undefined || n > exclusiveMin) && (exclusiveMax === undefined || n < exclusiveMax))
    .map((n) => Math.round(n * 1000) / 1000)
    .filter((n) => n >= min && n <= max && (exclusiveMin === undefined || n > exclusiveMin));
}

/** An arbitrary of values the schema accepts (mostly: `not`, `if` are checked by the caller). */
export function valid(schema: unknown, ctx: Context, depth = 0): fc.Arbitrary<unknown> {
  const s = deref<Json>(ctx.doc, schema) ?? {};
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const variants = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (variants) return fc.oneof(...variants.map((v) => valid(v, ctx, depth + 1)));
  const kinds = types(s);
  if (kinds.length === 0) return fc.constant({});
  return fc.oneof(...kinds.map((kind) => validOfType(kind, s, ctx, depth)));
}

function validOfType(kind: string, s: Json, ctx: Context, depth: number): fc.Arbitrary<unknown> {
  switch (kind) {
    case 'string':
      return stringArbitrary(s, ctx);
    case 'integer':
      return numberArbitrary(s, true);
    case 'number':
      return numberArbitrary(s, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      if (depth > MAX_DEPTH) return fc.constant([]);
      const maxLength = typeof s.maxItems === 'number' ? Math.min(s.maxItems, 3) : 3;
      return fc.array(valid(s.items ?? {}, ctx, depth + 1), { minLength: typeof s.minItems === 'number' ? s.minItems : 0, maxLength });
    }
    case 'object': {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      const required = new Set((s.required ?? []) as string[]);
      if (depth > MAX_DEPTH) return fc.constant({});
      const model = Object.fromEntries(Object.entries(properties).map(([name, p]) => [name, valid(p, ctx, depth + 1)]));
      return fc.record(model, { requiredKeys: Object.keys(properties).filter((name) => required.has(name)) });
    }
    default:
      return fc.constant(null);
  }
}

/** A value of the wrong JSON type for `schema`. */
function wrongType(s: Json): unknown[] {
  const kinds = new Set(types(s));
  const candidates: unknown[] = [];
  if (!kinds.has('string')) candidates.push('not-a-number');
  if (!kinds.has('integer') && !kinds.has('number')) candidates.push(12345);
  if (!kinds.has('boolean')) candidates.push(true);
  if (!kinds.has('object')) candidates.push({ unexpected: 1 });
  if (!kinds.has('array')) candidates.push([1, 2]);
  if (!kinds.has('null')) candidates.push(null);
  return candidates;
}

/** Values `schema` refuses for one field: wrong types, out of range, too long, off the enum or pattern. */
export function invalidFor(schema: unknown, ctx: Context): unknown[] {
  const s = deref<Json>(ctx.doc, schema) ?? {};
  const out = wrongType(s);
  if (typeof s.minimum === 'number') out.push(s.minimum - 1);
  if (typeof s.exclusiveMinimum === 'number') out.push(s.exclusiveMinimum);
  if (typeof s.maximum === 'number' && s.maximum < Number.MAX_SAFE_INTEGER) out.push(s.maximum + 1);
  if (types(s).includes('integer')) out.push(1.5);
  if (typeof s.maxLength === 'number' && s.maxLength < 10_000) out.push('x'.repeat(s.maxLength + 1));
  if (typeof s.minLength === 'number' && s.minLength > 0) out.push('');
  if (Array.isArray(s.enum)) out.push('no-such-value');
  if (typeof s.pattern === 'string') out.push('has space!', 'ü');
  return out;
}

/** A body the schema refuses: valid `base`, then one field broken, one required field dropped, or one field too many. */
export function invalidBodies(schema: unknown, base: Record<string, unknown>, ctx: Context): { body: unknown; what: string }[] {
  const s = deref<Json>(ctx.doc, schema) ?? {};
  const out: { body: unknown; what: string }[] = [];
  const properties = (s.properties ?? {}) as Record<string, unknown>;
  for (const [name, property] of Object.entries(properties)) {
    for (const value of invalidFor(property, ctx)) out.push({ body: { ...base, [name]: value }, what: `${name}=${JSON.stringify(value).slice(0, 40)}` });
  }
  for (const name of (s.required ?? []) as string[]) {
    const { [name]: _dropped, ...rest } = base;
    out.push({ body: rest, what: `without ${name}` });
  }
  if (s.additionalProperties === false) out.push({ body: { ...base, not_a_field: 1 }, what: 'an unknown field' });
  out.push({ body: [base], what: 'an array, not an object' });
  return out;
}
