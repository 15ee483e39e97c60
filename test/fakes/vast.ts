import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { FAKE_VAST_KEY, OLLAMA_TEMPLATE_HASH, defaultOffers, defaultTemplates, makeOffer, priceOffer } from './vast-catalog';
import { isVisible, listV1, renderInstance, settleDestroy } from './vast-instances';
import { BadRequest, RATE_LIMIT_BODIES, json, jsonParam, matches, searchOffers, send, templateEnvPairs } from './vast-query';
import type { EndpointName, FakeInstance, FakeVast, FakeVastKnobs, FakeVastOptions, FakeVastState, RateLimitVariant, RecordedCall } from './vast-types';

export * from './vast-catalog';
export type * from './vast-types';

/**
 * A faithful local Vast.ai (reference external-apis.md §A and §E.A) for tests: operator-object
 * offer search (templates' filters included), renting, a poll-driven instance state machine,
 * destroy, templates, users/current, auth and rate-limit behaviour (with Vast's penalty), with
 * knobs for the failures the real service shows. It records every call.
 */

const DEFAULT_KNOBS: FakeVastKnobs = {
  trailingWhitespace: false,
  goneAs: 'null',
  pollsPerPhase: { scheduling: 1, created: 1, loading: 1 },
  portsDelayPolls: 0,
  outcome: 'running',
  ollamaPort: 41234,
  openaiPort: 41800,
  takenOnRent: [],
  unavailableOnRent: [],
  rateLimit: null,
  failNext: null,
  latencyMs: 0,
  rateLimits: {},
  malformed: {},
  rentAnswerOverride: null,
  destroyIgnored: false,
  rentAnswerLost: false,
  rentVisibleAfterMs: 0,
  rentRefused: null,
  bootHiccup: null,
  destroyLagMs: 0,
  rentAnswerDelayMs: 0,
  v0ListDeprecated: true,
  v1PageSize: 25,
  destroyAnswer: 'ok',
  malformedOffers: [],
};

/** What the handlers of one fake share. */
type Ctx = {
  state: FakeVastState;
  knobs: FakeVastKnobs;
  render: (inst: FakeInstance) => Record<string, unknown>;
  calls: RecordedCall[];
  /** Per endpoint: when it last accepted a call, and until when a 429's penalty holds it. */
  pacing: Map<EndpointName, { acceptedAt: number; blockedUntil: number }>;
  rateLimitCycle: number;
};

function endpointOf(method: string, path: string): EndpointName | null {
  if (method === 'POST' && path === '/api/v0/bundles') return 'bundles';
  if (method === 'PUT' && /^\/api\/v0\/asks\/\d+$/.test(path)) return 'asks';
  if (/^\/api\/v0\/instances\/\d+$/.test(path)) return method === 'GET' ? 'show' : method === 'DELETE' ? 'destroy' : method === 'PUT' ? 'manage' : null;
  if (method === 'GET' && path === '/api/v0/instances') return 'list';
  if (method === 'GET' && path === '/api/v1/instances') return 'list_v1';
  if (method === 'GET' && path === '/api/v0/template') return 'template';
  if (method === 'GET' && path === '/api/v0/users/current') return 'user';
  return null;
}


function takeFromKnob<T extends { count: number; endpoints?: EndpointName[] }>(knob: T | null, endpoint: EndpointName): T | null {
  if (!knob || knob.count <= 0) return null;
  if (knob.endpoints && !knob.endpoints.includes(endpoint)) return null;
  knob.count--;
  return knob;
}


/** `PUT /asks/{id}/` (reference §A.3): checks like Vast's, the template's env merged, the knobs' failures. */
function rent(ctx: Ctx, res: http.ServerResponse, call: RecordedCall, account: string, offerId: number, body: unknown): void {
  const { state, knobs } = ctx;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return json(res, call, 400, { success: false, error: 'invalid_args', msg: 'error 400/3467: Invalid args: body must be an object', ask_id: offerId });
  const b = body as Record<string, unknown>;
  const hash = typeof b.template_hash_id === 'string' ? b.template_hash_id : null;
  if (!hash && typeof b.image !== 'string') return json(res, call, 400, { success: false, error: 'invalid_args', msg: 'error 400/3467: Invalid args: image or template_hash_id is required', ask_id: offerId });
  const template = hash ? state.templates.find((t) => t.hash_id === hash) : undefined;
  if (hash && !template) return json(res, call, 400, { success: false, error: 'invalid_args', msg: `error 400/3467: Invalid args: template ${hash} not found`, ask_id: offerId });
  const disk = b.disk === undefined ? 10 : b.disk;
  if (typeof disk !== 'number' || disk < 8) return json(res, call, 400, { success: false, error: 'invalid_args', msg: 'error 400/3467: Invalid args: disk must be at least 8 GB', ask_id: offerId });
  if (b.label !== undefined && (typeof b.label !== 'string' || b.label.length > 256)) return json(res, call, 400, { success: false, error: 'invalid_args', msg: 'label must be a string of at most 256 characters' });
  const offer = state.offers.get(offerId);
  if (knobs.unavailableOnRent.includes(offerId) && offer && b.cancel_unavail !== false) {
    state.offers.delete(offerId);
    return json(res, call, 410, { success: false, error: 'no_such_ask', msg: `error 410/3907: no_such_ask Instance type ${offerId} is no longer available.`, ask_id: offerId });
  }
  if (knobs.takenOnRent.includes(offerId)) state.offers.delete(offerId);
  const current = state.offers.get(offerId);
  if (!current || current.rented === true || current.rentable === false) {
    return json(res, call, 404, { success: false, error: 'invalid_args', msg: `error 404/3603: no_such_ask Instance type by id ${offerId} is not available.`, ask_id: offerId });
  }
  const refused = knobs.rentRefused;
  if (refused && (refused.offers === 'all' || refused.offers.includes(offerId))) {
    // Vast answers some refusals (a lack of credit) with a 200 whose `success` is false.
    return json(res, call, 200, { success: false, error: refused.error, msg: refused.msg });
  }
  // Template env first, request env wins by key (reference §A.3).
  const env = new Map<string, string>(template ? templateEnvPairs(template.env) : []);
  if (b.env && typeof b.env === 'object' && !Array.isArray(b.env)) {
    for (const [k, v] of Object.entries(b.env as Record<string, unknown>)) env.set(k, String(v));
  }
  const id = state.nextInstanceId++;
  state.offers.delete(offerId);
  state.instances.set(id, {
    id,
    // Priced as Vast bills it: the GPU plus storage of the disk it was rented with.
    offer: priceOffer(current, disk),
    label: typeof b.label === 'string' ? b.label : null,
    templateHashId: hash,
    image: template ? `${String(template.image)}:${String(template.tag)}` : String(b.image),
    disk,
    env: [...env.entries()],
    body: b,
    startDate: Date.now() / 1000,
    polls: 0,
    destroyed: false,
    intendedStatus: 'running',
    account,
    visibleFrom: Date.now() + knobs.rentVisibleAfterMs,
    destroyAcceptedAt: null,
  });
  if (knobs.rentAnswerLost) {
    // The instance exists and bills, but its id never reaches the caller.
    call.status = 0;
    res.destroy();
    return;
  }
  if (knobs.rentAnswerOverride !== null) return send(res, call, 200, knobs.rentAnswerOverride, 'application/json');
  const answer = { success: true, new_contract: id, instance_api_key: randomBytes(16).toString('hex') };
  if (knobs.rentAnswerDelayMs > 0) {
    setTimeout(() => json(res, call, 200, answer), knobs.rentAnswerDelayMs);
    return;
  }
  json(res, call, 200, answer);
}


/** One authenticated, paced call to a known endpoint. */
function route(ctx: Ctx, req: http.IncomingMessage, res: http.ServerResponse, call: RecordedCall, account: string, endpoint: EndpointName, path: string): void {
  const { state, knobs, render } = ctx;
  const method = req.method ?? 'GET';
  const id = Number(/\/(\d+)$/.exec(path)?.[1]);
  /** This account's instance, not destroyed: another account's machine does not exist for this key. */
  const now = Date.now();
  const own = (instanceId: number): FakeInstance | undefined => {
    const inst = state.instances.get(instanceId);
    return inst && isVisible(inst, account, knobs, now) ? inst : undefined;
  };
  const ownInstances = (): FakeInstance[] => [...state.instances.values()].filter((i) => isVisible(i, account, knobs, now));
  const notFound = (): void => json(res, call, 404, { success: false, error: 'not_found', msg: 'Instance not found' });
  switch (endpoint) {
    case 'bundles': {
      const offers = searchOffers(state.offers.values(), state.templates, call.body).map((o) => (knobs.malformedOffers.includes(Number(o.id)) ? { ...o, gpu_name: null, dph_total: 'cheap' } : o));
      if (knobs.malformed.bundles !== undefined) return send(res, call, 200, knobs.malformed.bundles, 'application/json');
      return json(res, call, 200, { offers });
    }
    case 'asks':
      return rent(ctx, res, call, account, id, call.body);
    case 'show': {
      const inst = own(id);
      if (!inst) {
        if (knobs.goneAs === '404') return json(res, call, 404, { success: false, error: 'no_such_instance', msg: `Instance ${id} not found` });
        return json(res, call, 200, { instances: null });
      }
      inst.polls++;
      if (knobs.malformed.show !== undefined) return send(res, call, 200, knobs.malformed.show, 'application/json');
      return json(res, call, 200, { instances: render(inst) });
    }
    case 'list': {
      if (knobs.v0ListDeprecated) {
        return json(res, call, 410, { success: false, error: 'deprecated_endpoint', msg: 'The legacy v0 /instances list endpoint is deprecated; use GET /api/v1/instances/' });
      }
      const rows = ownInstances().map(render);
      return json(res, call, 200, { instances_found: rows.length, instances: rows });
    }
    case 'list_v1':
      return listV1(res, call, ownInstances(), render, knobs.v1PageSize);
    case 'manage': {
      const inst = own(id);
      if (!inst) return json(res, call, 404, { success: false, error: 'no_such_instance', msg: `Instance ${id} not found` });
      const b = (call.body ?? {}) as Record<string, unknown>;
      if (b.state === 'stopped' || b.state === 'running') inst.intendedStatus = b.state;
      if (typeof b.label === 'string') inst.label = b.label;
      return json(res, call, 200, { success: true });
    }
    case 'destroy': {
      const inst = own(id);
      if (!inst) return notFound();
      if (knobs.destroyAnswer === 'success_false') {
        return json(res, call, 200, { success: false, error: 'destroy_failed', msg: `instance ${id} could not be destroyed right now, try again` });
      }
      if (!knobs.destroyIgnored) {
        // Asynchronous, as on the real service: accepted now, gone once the lag is over.
        inst.destroyAcceptedAt ??= now;
        settleDestroy(inst, knobs, now);
      }
      return json(res, call, 200, { success: true });
    }
    case 'template': {
      let templates = state.templates;
      const filters = call.query.select_filters;
      if (filters) templates = templates.filter((t) => matches(t, jsonParam(filters)));
      if (knobs.malformed.template !== undefined) return send(res, call, 200, knobs.malformed.template, 'application/json');
      return json(res, call, 200, { success: true, templates_found: templates.length, templates });
    }
    case 'user':
      if (method !== 'GET') return notFound();
      return json(res, call, 200, state.user);
  }
}


/** Vast's own limit (the rateLimits knob): too soon after the last accepted call, or within a penalty, is a 429. */
function paced(ctx: Ctx, endpoint: EndpointName, now: number): boolean {
  const rule = ctx.knobs.rateLimits[endpoint];
  if (!rule) return false;
  const seen = ctx.pacing.get(endpoint) ?? { acceptedAt: -Infinity, blockedUntil: -Infinity };
  ctx.pacing.set(endpoint, seen);
  if (now < seen.blockedUntil) return true;
  if (now - seen.acceptedAt < rule.intervalMs) {
    seen.blockedUntil = now + rule.penaltyMs;
    return true;
  }
  seen.acceptedAt = now;
  return false;
}

/** Every request: recorded, then auth, the knobs' rate limits and failures, then its route. */
async function handle(ctx: Ctx, req: http.IncomingMessage, res: http.ServerResponse, rawBody: string): Promise<void> {
  const { state, knobs, calls } = ctx;
  const url = new URL(req.url ?? '/', 'http://fake');
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const method = req.method ?? 'GET';
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  let body: unknown = undefined;
  if (rawBody) {
    try {
      body = JSON.parse(rawBody);
    } catch {
      body = undefined;
    }
  }
  const endpoint = endpointOf(method, path);
  const call: RecordedCall = { method, path: url.pathname, url: req.url ?? '', query: Object.fromEntries(url.searchParams), headers, body, rawBody, endpoint, status: null, at: Date.now(), answeredAt: null };
  calls.push(call);
  if (knobs.latencyMs > 0) await new Promise((r) => setTimeout(r, knobs.latencyMs));

  const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
  const key = state.keys.get(bearer ?? url.searchParams.get('api_key') ?? '');
  if (!key) return json(res, call, 401, { success: false, error: 'auth_error', msg: 'Invalid user key' });
  // A revoked key is answered as seen live: a 404 whose body says auth_error (reference §A.10).
  if (key.revoked) return json(res, call, 404, { success: false, error: 'auth_error', msg: 'Invalid user key' });
  if (!endpoint) return json(res, call, 404, { success: false, error: 'not_found', msg: `no route for ${method} ${url.pathname}` });
  if (rawBody && body === undefined) return json(res, call, 400, { success: false, error: 'invalid_args', msg: 'request body is not JSON' });

  const limited = takeFromKnob(knobs.rateLimit, endpoint);
  if (limited || paced(ctx, endpoint, Date.now())) {
    const variants: RateLimitVariant[] = ['text', 'detail', 'json'];
    const variant = limited && limited.variant !== 'cycle' ? limited.variant : (variants[ctx.rateLimitCycle++ % 3] as RateLimitVariant);
    const b = RATE_LIMIT_BODIES[variant];
    return send(res, call, 429, b.text, b.type);
  }
  const failing = takeFromKnob(knobs.failNext, endpoint);
  if (failing) return send(res, call, failing.status, failing.body ?? JSON.stringify({ success: false, error: 'server_error', msg: 'upstream failure' }), 'application/json');

  try {
    route(ctx, req, res, call, key.account, endpoint, path);
  } catch (err) {
    if (err instanceof BadRequest) return json(res, call, 400, { success: false, error: 'invalid_args', msg: err.message });
    return json(res, call, 500, { success: false, error: 'server_error', msg: err instanceof Error ? err.message : String(err) });
  }
}


export async function startFakeVast(options: FakeVastOptions = {}): Promise<FakeVast> {
  const mainKey = options.apiKey ?? FAKE_VAST_KEY;
  const state: FakeVastState = {
    apiKey: mainKey,
    keys: new Map([[mainKey, { account: 'main', revoked: false }]]),
    offers: new Map((options.offers ?? defaultOffers()).map((o) => [o.id, o])),
    instances: new Map(),
    templates: options.templates ?? defaultTemplates(),
    user: { id: 123456, username: 'bench', email: 'bench@example.test', credit: 25.0, balance: 0, ssh_key: 'ssh-ed25519 AAAA test' },
    nextInstanceId: 30000001,
  };
  const knobs: FakeVastKnobs = { ...structuredClone(DEFAULT_KNOBS), ...options.knobs };
  const calls: RecordedCall[] = [];
  const render = (inst: FakeInstance): Record<string, unknown> => renderInstance(inst, knobs, state.templates);
  const ctx: Ctx = { state, knobs, render, calls, pacing: new Map(), rateLimitCycle: 0 };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(ctx, req, res, Buffer.concat(chunks).toString('utf8')).catch(() => {
        if (!res.writableEnded && !res.destroyed) res.destroy();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/api/v0`,
    port,
    calls,
    state,
    knobs,
    setKnob(name, value) {
      knobs[name] = value;
    },
    callsTo(endpoint) {
      return calls.filter((c) => c.endpoint === endpoint);
    },
    addKey(key, account = 'main') {
      state.keys.set(key, { account, revoked: false });
    },
    revokeKey(key) {
      const entry = state.keys.get(key);
      if (entry) entry.revoked = true;
    },
    seedInstance(label, account = 'main') {
      const id = state.nextInstanceId++;
      const offer = makeOffer({ id: 29000000 + id % 1000000, gpu_name: 'RTX 4090', gpu_ram: 24564, dph_base: 0.3 });
      const runningFrom = knobs.pollsPerPhase.scheduling + knobs.pollsPerPhase.created + knobs.pollsPerPhase.loading + knobs.portsDelayPolls;
      state.instances.set(id, {
        id, offer, label, templateHashId: OLLAMA_TEMPLATE_HASH, image: 'vastai/ollama:0.15.2', disk: 40, env: [], body: {},
        startDate: Date.now() / 1000, polls: runningFrom + 1, destroyed: false, intendedStatus: 'running', account, visibleFrom: 0, destroyAcceptedAt: null,
      });
      return id;
    },
    liveInstances(label) {
      const now = Date.now();
      return [...state.instances.values()].filter((i) => {
        settleDestroy(i, knobs, now);
        return !i.destroyed && (label === undefined || i.label === label);
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

