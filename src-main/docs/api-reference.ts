import { z } from 'zod';
import {
  JOB_KINDS,
  JOB_KIND_DOCS,
  JOB_KIND_ALIASES,
  JOB_REQUEST_SCHEMAS,
  JOB_RESULT_SCHEMAS,
  JOB_STATUSES,
  JOB_TRANSITIONS,
  JobEventSchema,
  JobRecordSchema,
  NON_OPERATION_ROUTES,
  OPERATIONS,
  OPERATION_NAMES,
  ProblemSchema,
  JobStreamItemSchema,
  StreamResetSchema,
  WHOLE_NUMBER_PARAMS,
  pathFields,
  type OperationDef,
  type OperationName,
} from '../../shared';

/**
 * Renders the API reference (docs/api.md) from the operation table and the shared schemas, so the
 * document cannot drift from the code: a test regenerates it and compares.
 */

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  additionalProperties?: boolean | JsonSchema;
};

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
    // Whole-number parameters arrive as text: say what they are, not "number or string".
    override: (ctx) => {
      const bounds = WHOLE_NUMBER_PARAMS.get(ctx.zodSchema as unknown as z.ZodType);
      if (!bounds) return;
      delete ctx.jsonSchema.anyOf;
      Object.assign(ctx.jsonSchema, { type: 'integer', minimum: bounds.min, maximum: bounds.max });
    },
  }) as JsonSchema;
}

function typeOf(s: JsonSchema): string {
  if (s.const !== undefined) return `\`${JSON.stringify(s.const)}\``;
  if (s.enum) return s.enum.map((v) => `\`${String(v)}\``).join(' · ');
  const variants = s.anyOf ?? s.oneOf;
  if (variants) return [...new Set(variants.map(typeOf))].join(' or ');
  if (s.type === 'array') return `${s.items ? typeOf(s.items) : 'any'}[]`;
  if (Array.isArray(s.type)) return s.type.join(' or ');
  if (s.type === 'object' && !s.properties) return 'object';
  if (s.type === 'object') return 'object';
  if (s.format === 'date-time') return 'RFC 3339 time';
  return s.type ?? 'any';
}

function constraints(s: JsonSchema): string {
  const parts: string[] = [];
  if (s.minimum !== undefined && s.minimum > -9007199254740991) parts.push(`≥ ${s.minimum}`);
  if (s.maximum !== undefined && s.maximum < 9007199254740991) parts.push(`≤ ${s.maximum}`);
  if (s.maxLength !== undefined) parts.push(`≤ ${s.maxLength} chars`);
  if (s.default !== undefined) parts.push(`default \`${JSON.stringify(s.default)}\``);
  if (s.description) parts.push(s.description);
  return parts.join('; ');
}

/** The properties of an object schema, merged across union variants (a field in some variants only is optional). */
function propertiesOf(s: JsonSchema): { name: string; schema: JsonSchema; required: boolean }[] {
  const variants = s.anyOf ?? s.oneOf ?? s.allOf;
  if (variants && !s.properties) {
    const merged = new Map<string, { schemas: JsonSchema[]; requiredIn: number }>();
    const objects = variants.filter((v) => v.properties);
    for (const v of objects) {
      for (const [name, prop] of Object.entries(v.properties ?? {})) {
        const entry = merged.get(name) ?? { schemas: [], requiredIn: 0 };
        entry.schemas.push(prop);
        if (v.required?.includes(name)) entry.requiredIn += 1;
        merged.set(name, entry);
      }
    }
    return [...merged].map(([name, e]) => ({
      name,
      schema: e.schemas.length === 1 ? (e.schemas[0] as JsonSchema) : { anyOf: e.schemas },
      required: e.requiredIn === objects.length,
    }));
  }
  return Object.entries(s.properties ?? {}).map(([name, schema]) => ({ name, schema, required: s.required?.includes(name) ?? false }));
}

/** The object inside a nullable object or an array of objects, to list its fields too. */
function nestedObject(s: JsonSchema): JsonSchema | null {
  if (s.properties) return s;
  if (s.type === 'array' && s.items) return nestedObject(s.items);
  const variants = s.anyOf ?? s.oneOf;
  const objects = variants?.filter((v) => v.properties || v.anyOf || v.oneOf) ?? [];
  return objects.length === 1 ? nestedObject(objects[0] as JsonSchema) : null;
}

function rowsOf(s: JsonSchema, prefix: string, depth: number): string[] {
  return propertiesOf(s).flatMap((p) => {
    const name = `${prefix}${p.name}`;
    const row = `| \`${name}\` | ${typeOf(p.schema).replaceAll('|', '\\|')} | ${p.required ? 'yes' : 'no'} | ${constraints(p.schema).replaceAll('|', '\\|').replaceAll('\n', ' ')} |`;
    const inner = depth < 2 ? nestedObject(p.schema) : null;
    const suffix = p.schema.type === 'array' ? '[].' : '.';
    return inner ? [row, ...rowsOf(inner, `${name}${suffix}`, depth + 1)] : [row];
  });
}

function fieldTable(schema: z.ZodType, io: 'input' | 'output'): string {
  const rows = rowsOf(jsonSchema(schema, io), '', 0);
  if (rows.length === 0) return '_none_\n';
  return ['| field | type | required | notes |', '|---|---|---|---|', ...rows, ''].join('\n');
}

function routeLines(name: OperationName): string[] {
  const op: OperationDef = OPERATIONS[name];
  if (name === 'createJob') {
    return [
      ...JOB_KINDS.map((kind) => `\`POST /v1/jobs/${kind}\``),
      ...JOB_KIND_ALIASES.map((a) => `\`POST ${a.path}\` (deprecated alias of \`${a.successor}\`)`),
    ];
  }
  const accept = op.stream ? ' with `Accept: text/event-stream`' : '';
  return [`\`${op.method} ${op.path}\`${accept}`, ...(op.aliases ?? []).map((a) => `\`${op.method} ${a}\` (deprecated alias)`)];
}

/** How the headers an operation reads are spelled on the wire. */
const HEADER_NAMES: Record<string, string> = { 'idempotency-key': 'Idempotency-Key', 'last-event-id': 'Last-Event-ID' };

function operationSection(name: OperationName): string {
  const op: OperationDef = OPERATIONS[name];
  const lines: string[] = [`### \`${name}\``, '', op.summary, '', op.description, '', ...routeLines(name).map((r) => `- ${r}`), ''];
  lines.push(
    `Success: **${op.status}**${op.stream ? ', a Server-Sent Events stream: `id:` is the event `seq`, `Last-Event-ID` resumes, `: heartbeat` comments keep it open; an `event: reset` message says events were lost to the client (fetch again)' : ''}.`,
    '',
  );
  if (op.public) lines.push('Public: answered without credentials.', '');
  if (op.appTenantOnly) lines.push("Only the app's own tenant (`default`) may call it; any other tenant gets **403** `forbidden_tenant`.", '');
  const headers = Object.values(op.headers ?? {});
  if (headers.length > 0) lines.push(`Headers read: ${headers.map((h) => `\`${HEADER_NAMES[h] ?? h}\``).join(', ')} (optional).`, '');
  const errors = Object.entries(op.errors ?? {});
  if (errors.length > 0) lines.push('Errors of this operation (besides the ones every route can answer):', '', ...errors.map(([code, why]) => `- **${code}**: ${why}`), '');
  if (name === 'createJob') {
    lines.push('`Idempotency-Key`: 1–255 printable ASCII characters without spaces. Answers carry `Location` and, for a replay, `Idempotent-Replayed: true`.', '');
    for (const kind of JOB_KINDS) {
      lines.push(`Body for \`${kind}\`:`, '', fieldTable(JOB_REQUEST_SCHEMAS[kind], 'input'));
      const kindDocs = JOB_KIND_DOCS[kind];
      if (kindDocs) lines.push(kindDocs.description, '', ...Object.entries(kindDocs.errors ?? {}).map(([code, why]) => `- **${code}**: ${why}`), '');
    }
    lines.push(
      '`llm-instance`, `benchmark` and `serving-benchmark`: with `marketplace: true`, `template_hash`, `max_dph` (above 0 and at least `min_dph`) and `model` are required and `backend_url` must be absent; otherwise `backend_url` is required. `agent` names an agent the server knows (the OpenAPI document lists them).',
      '',
    );
  } else {
    const shape = op.input instanceof z.ZodObject ? (op.input.shape as Record<string, z.ZodType>) : {};
    const part = (fields: readonly string[]) => z.object(Object.fromEntries(fields.filter((f) => f in shape).map((f) => [f, shape[f] as z.ZodType])));
    if (op.body !== undefined) lines.push('Body:', '', fieldTable(op.docs?.body ?? (op.body === '*' ? op.input : (shape[op.body] ?? op.input)), 'input'));
    if (op.query) lines.push('Query:', '', fieldTable(op.docs?.querystring ?? part(op.query), 'input'));
    const inPath = pathFields(name);
    if (inPath.length > 0) lines.push('Path:', '', fieldTable(part(inPath), 'input'));
    if (op.body === undefined && !op.query && inPath.length === 0) lines.push('Input: _none_', '');
  }
  if (op.stream && op.output === JobStreamItemSchema) {
    lines.push('Each event (`data` of a message without an `event:` line):', '', fieldTable(JobEventSchema, 'output'));
    lines.push('A reset (`event: reset`): see [Jobs](#jobs).', '');
  } else {
    lines.push(op.stream ? 'Each event:' : 'Response:', '', fieldTable(op.output, 'output'));
  }
  return lines.join('\n');
}

export function renderApiReference(): string {
  const transitions = JOB_STATUSES.map((s) => `| \`${s}\` | ${JOB_TRANSITIONS[s].map((t) => `\`${t}\``).join(', ') || '—'} |`);
  return [
    '# benchdesk API reference',
    '',
    '<!-- Generated from shared/operations.ts and the shared schemas by `npm run docs:api`; a test fails when it is out of date. -->',
    '',
    'The local API listens on `http://127.0.0.1:8080` (`BENCHDESK_HOST`, `BENCHDESK_PORT`). Every operation below is also a method of the typed client (`shared/client`), an IPC channel of the desktop app and a method of the in-process client: the same input gives the same answer and the same errors on each.',
    '',
    '## Authentication and tenants',
    '',
    '- Credentials: `Authorization: Bearer <token>` or `X-API-Key: <token>`. Tenant: `X-Tenant-ID` (default `default`); the (tenant, token) pair must match a configured one (`SERVICE_API_TOKENS="tenant:token,…"`; the desktop app creates its own token in `<data dir>/api-token`).',
    '- 10 failed attempts from one address within 60 s block it for the rest of that window: `401` with `code: "auth_blocked"` and `Retry-After`.',
    '- With no token configured and auth not disabled, only `/healthz` answers; everything else is `404` saying how to configure auth.',
    "- Another tenant's job is indistinguishable from a missing one (`404`).",
    '',
    '## Errors',
    '',
    'Every error is `application/problem+json`:',
    '',
    fieldTable(ProblemSchema, 'output'),
    '| status | when |',
    '|---|---|',
    '| 400 | malformed JSON, a body that is not an object, a bad header |',
    '| 401 | missing or wrong credentials (`WWW-Authenticate: Bearer`), or the address is blocked (`auth_blocked`) |',
    "| 403 | a browser request from another origin or site (`forbidden_origin`); a tenant other than `default` changing settings, setting or testing the marketplace key, or showing or rotating the app token (`forbidden_tenant`) |",
    '| 404 | unknown route or job |',
    '| 405 | wrong method, a method this server does not know included (`Allow` lists the right ones) |',
    "| 406 | a stream-only route (`/v1/events`) asked for without `Accept: text/event-stream` |",
    '| 408 | the request (headers and body) did not arrive in time |',
    '| 409 | the same Idempotency-Key is still in flight; a job that already ended cannot be cancelled |',
    '| 413 | body over 1 MiB |',
    '| 415 | a POST body that is not JSON |',
    '| 422 | validation failed (`errors: [{path, message}]`), an Idempotency-Key reused with another body, or a resume position (`after`, `Last-Event-ID`) this server never handed out (`unknown_event_id`) |',
    '| 431 | the request headers are too large |',
    '| 502 | the marketplace or llmserver answered with an error or could not be reached |',
    '| 503 | the server is shutting down, or every connection this machine may open is in use by authenticated clients (`too_many_connections`) |',
    '| 507 | the data dir is out of space (`/healthz` then says `degraded`) |',
    '',
    '## Jobs',
    '',
    `Kinds: ${JOB_KINDS.map((k) => `\`${k}\``).join(', ')}. Statuses and their allowed transitions:`,
    '',
    '| status | may become |',
    '|---|---|',
    ...transitions,
    '',
    'A job record:',
    '',
    fieldTable(JobRecordSchema, 'output'),
    'A job event (`seq` is global and monotonic; a timed step emits `started`, then `ok` or `error` with `duration_ms`):',
    '',
    fieldTable(JobEventSchema, 'output'),
    'A stream reset (`event: reset` on a stream; an item of the typed client\'s streams): the events after `after` are no longer held by the server, so what the client shows may be stale; the stream goes on after `seq`.',
    '',
    fieldTable(StreamResetSchema, 'output'),
    '### Results by kind',
    '',
    '`result` is set when a job succeeded; its shape depends on `kind`.',
    '',
    ...JOB_KINDS.flatMap((kind) => [`\`${kind}\`:`, '', fieldTable(JOB_RESULT_SCHEMAS[kind], 'output')]),
    '## Operations',
    '',
    ...OPERATION_NAMES.map(operationSection),
    '## Other routes',
    '',
    ...NON_OPERATION_ROUTES.map((r) => `- \`${r.method} ${r.path}\`: ${r.why}`),
    '',
  ].join('\n');
}
