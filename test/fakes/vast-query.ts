import type http from 'node:http';
import { priceOffer, type FakeOffer, type FakeTemplate } from './vast-catalog';
import type { RateLimitVariant, RecordedCall } from './vast-types';

/**
 * The fake Vast.ai's query language (reference §A.2): operator objects over row fields (an
 * unknown field or operator is a 400, as the real service answers), multi-key order, the
 * search's control keys, and the answers' encodings.
 */

export class BadRequest extends Error {}

/** A JSON-encoded query parameter (`select_filters`), 400 when it is not a JSON object. */
export function jsonParam(raw: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(raw);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through to the 400
  }
  throw new BadRequest('select_filters must be a JSON object');
}

const OPERATORS = new Set(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'notin']);
/** Computed instance fields the v1 list refuses to filter on (400). */
export const NOT_FILTERABLE = new Set(['dph_total', 'search', 'instance']);
/** Keys of a search body that are not filters; `template_id` is the SDK's (the template's hosts only). */
const CONTROL_KEYS = new Set(['order', 'limit', 'type', 'allocated_storage', 'template_id']);

/** Field lookup with the server's pseudo-fields (`verified` is derived from `verification`). */
function fieldOf(row: Record<string, unknown>, field: string): { known: boolean; value: unknown } {
  if (field === 'verified' && !('verified' in row) && 'verification' in row) return { known: true, value: row.verification === 'verified' };
  return { known: field in row, value: row[field] };
}

export function matches(row: Record<string, unknown>, filters: Record<string, unknown>): boolean {
  for (const [field, spec] of Object.entries(filters)) {
    if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) throw new BadRequest(`filter for ${field} must be an operator object`);
    const { known, value } = fieldOf(row, field);
    if (!known) throw new BadRequest(`unknown field ${field}`);
    for (const [op, arg] of Object.entries(spec as Record<string, unknown>)) {
      if (!OPERATORS.has(op)) throw new BadRequest(`unknown operator ${op} for ${field}`);
      if (!applyOp(op, value, arg, field)) return false;
    }
  }
  return true;
}

function applyOp(op: string, value: unknown, arg: unknown, field: string): boolean {
  switch (op) {
    case 'eq':
      return value === arg;
    case 'neq':
      return value !== arg;
    case 'in':
    case 'notin': {
      if (!Array.isArray(arg)) throw new BadRequest(`${op} for ${field} needs a list`);
      return op === 'in' ? arg.includes(value) : !arg.includes(value);
    }
    default: {
      if (typeof arg !== 'number') throw new BadRequest(`${op} for ${field} needs a number`);
      if (typeof value !== 'number') return false;
      if (op === 'gt') return value > arg;
      if (op === 'gte') return value >= arg;
      if (op === 'lt') return value < arg;
      return value <= arg;
    }
  }
}

export function sortRows(rows: Record<string, unknown>[], order: unknown): void {
  if (order === undefined) return;
  if (!Array.isArray(order)) throw new BadRequest('order must be a list of [field, direction]');
  const keys = order.map((pair) => {
    if (!Array.isArray(pair) || typeof pair[0] !== 'string' || (pair[1] !== 'asc' && pair[1] !== 'desc')) {
      throw new BadRequest('order entries are [field, "asc"|"desc"]');
    }
    return { field: pair[0], dir: pair[1] === 'asc' ? 1 : -1 };
  });
  rows.sort((a, b) => {
    for (const { field, dir } of keys) {
      const x = a[field];
      const y = b[field];
      if (x === y) continue;
      if (x === null || x === undefined) return 1;
      if (y === null || y === undefined) return -1;
      return (x < y ? -1 : 1) * dir;
    }
    return 0;
  });
}

/** Docker flags of a template env string → [key, value] pairs, ports as `-p H:C` → "1". */
export function templateEnvPairs(env: string): [string, string][] {
  const tokens = env.match(/(?:[^\s"]+|"[^"]*")+/g) ?? [];
  const pairs: [string, string][] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    const v = tokens[i + 1];
    if (v === undefined) break;
    if (t === '-e') {
      const clean = v.replace(/"/g, '');
      const eq = clean.indexOf('=');
      if (eq > 0) pairs.push([clean.slice(0, eq), clean.slice(eq + 1)]);
      i++;
    } else if (t === '-p') {
      pairs.push([`-p ${v}`, '1']);
      i++;
    }
  }
  return pairs;
}

export function json(res: http.ServerResponse, call: RecordedCall, status: number, body: unknown): void {
  send(res, call, status, JSON.stringify(body), 'application/json');
}

export function send(res: http.ServerResponse, call: RecordedCall, status: number, text: string, type: string): void {
  call.status = status;
  call.answeredAt = Date.now();
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

export const RATE_LIMIT_BODIES: Record<RateLimitVariant, { text: string; type: string }> = {
  text: { text: 'API requests too frequent endpoint threshold=2.0', type: 'text/plain' },
  detail: { text: JSON.stringify({ detail: 'API requests too frequent endpoint threshold=4.5' }), type: 'application/json' },
  json: { text: JSON.stringify({ success: false, error: 'rate_limit_exceeded', msg: 'API requests too frequent endpoint threshold=3.0' }), type: 'application/json' },
};

/**
 * `POST /bundles/`: the filters over the catalogue priced at `allocated_storage`, ordered and
 * limited. `template_id` (the SDK's) applies that template's `extra_filters` too: hosts that
 * cannot run its image are left out.
 */
export function searchOffers(offers: Iterable<FakeOffer>, templates: readonly FakeTemplate[], body: unknown): Record<string, unknown>[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new BadRequest('body must be a JSON object');
  const q = body as Record<string, unknown>;
  const filters: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(q)) if (!CONTROL_KEYS.has(k)) filters[k] = v;
  const allocated = q.allocated_storage === undefined ? 5 : q.allocated_storage;
  if (typeof allocated !== 'number' || allocated < 0) throw new BadRequest('allocated_storage must be a number of GB');
  if (q.type !== undefined && !['on-demand', 'ondemand', 'bid', 'reserved'].includes(String(q.type))) throw new BadRequest(`unknown type ${String(q.type)}`);
  const limit = q.limit === undefined ? 64 : q.limit;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) throw new BadRequest('limit must be a positive integer');
  let templateFilters: Record<string, unknown> = {};
  if (q.template_id !== undefined) {
    const template = templates.find((t) => t.id === q.template_id);
    if (!template) throw new BadRequest(`template_id ${JSON.stringify(q.template_id)} is not a template`);
    templateFilters = (template.extra_filters as Record<string, unknown> | undefined) ?? {};
  }
  const rows = [...offers].map((o) => priceOffer(o, allocated)).filter((o) => matches(o, filters) && matches(o, templateFilters));
  sortRows(rows, q.order);
  return rows.slice(0, limit);
}
