import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A faithful local Vast.ai (reference external-apis.md §A and §E.A) for tests: operator-object
 * offer search, renting, a poll-driven instance state machine, destroy, templates, users/current,
 * auth and rate-limit behaviour, with knobs for failures. It records every call.
 */

export type EndpointName = 'bundles' | 'asks' | 'show' | 'list' | 'list_v1' | 'manage' | 'destroy' | 'template' | 'user';
export type RateLimitVariant = 'text' | 'detail' | 'json';

export type RecordedCall = {
  method: string;
  /** Path without the query, as sent (trailing slash kept). */
  path: string;
  /** Path and query as sent. */
  url: string;
  query: Record<string, string>;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body: unknown;
  rawBody: string;
  endpoint: EndpointName | null;
  /** Set when the answer is written. */
  status: number | null;
  /** When the request arrived (ms since the epoch): pacing tests measure the gaps. */
  at: number;
};

export type FakeVastKnobs = {
  /** Pad instance strings (`public_ipaddr: "127.0.0.1\n"`, ...) to prove the client trims. */
  trailingWhitespace: boolean;
  /** How a destroyed or unknown instance reads on GET /instances/{id}/. */
  goneAs: 'null' | '404';
  /** Show-polls spent in each phase before the next (null → created → loading → final). */
  pollsPerPhase: { scheduling: number; created: number; loading: number };
  /** Polls answered `running` with no `ports` before the map appears (a real race). */
  portsDelayPolls: number;
  /** Where provisioning ends. `exited` carries a status_msg with "Error". */
  outcome: 'running' | 'exited' | 'offline' | 'unknown' | 'never_ready';
  /** HostPort reported for 11434/tcp: point it at a fake Ollama. */
  ollamaPort: number;
  /** Offers "taken by someone else" at rent time: the rent answers 404 and the offer disappears. */
  takenOnRent: number[];
  /** Offers that cannot start: the rent answers 410 (with cancel_unavail) and the offer disappears. */
  unavailableOnRent: number[];
  /** The next `count` requests (to `endpoints`, or any) answer 429 without Retry-After. */
  rateLimit: { count: number; variant: RateLimitVariant | 'cycle'; endpoints?: EndpointName[] } | null;
  /** The next `count` requests (to `endpoints`, or any) answer `status` with `body`. */
  failNext: { count: number; status: number; endpoints?: EndpointName[]; body?: string } | null;
  /** Delay before every answer (ms). */
  latencyMs: number;
  /** Real rate limiting: minimum ms between two calls of an endpoint, else 429. Off by default. */
  minIntervalMs: Partial<Record<EndpointName, number>>;
  /** A 2xx of this endpoint answers this raw text instead (a surprise shape). */
  malformed: Partial<Record<EndpointName, string>>;
  /** Rent succeeds on the server but the answer is this raw text (a lost/unreadable answer). */
  rentAnswerOverride: string | null;
  /** Destroy answers success but the instance stays (an unverifiable release). */
  destroyIgnored: boolean;
  /** Rent creates the instance, then the connection drops without an answer (a lost rent response). */
  rentAnswerLost: boolean;
  /** Rent creates the instance, then waits this long before answering (a slow create; a window to kill the caller in). */
  rentAnswerDelayMs: number;
  /**
   * The legacy list `GET /api/v0/instances/` answers 410 `deprecated_endpoint`, as it already does on
   * some accounts (reference §A.10). On by default: the product must list through v1.
   */
  v0ListDeprecated: boolean;
  /** Rows per page of `GET /api/v1/instances/` (the API's maximum is 25; `limit` lowers it). */
  v1PageSize: number;
  /** `ok`: destroy answers `{"success":true}`; `success_false`: 200 `{"success":false,...}` and nothing is destroyed. */
  destroyAnswer: 'ok' | 'success_false';
  /** These offers are served malformed (no gpu_name, a text dph_total) among the good ones. */
  malformedOffers: number[];
};

export type FakeOffer = Record<string, unknown> & {
  id: number;
  gpu_name: string;
  num_gpus: number;
  gpu_ram: number;
  dph_base: number;
  storage_cost: number;
};

export type FakeTemplate = Record<string, unknown> & { id: number; hash_id: string; env: string };

export type FakeInstance = {
  id: number;
  offer: FakeOffer;
  label: string | null;
  templateHashId: string | null;
  image: string;
  disk: number;
  env: [string, string][];
  body: Record<string, unknown>;
  startDate: number;
  polls: number;
  destroyed: boolean;
  intendedStatus: 'running' | 'stopped';
  /** The account that rented it: only keys of that account see or destroy it. */
  account: string;
};

/** An API key: its account, and whether it was revoked (then answered 404 `auth_error`, reference §A.10). */
export type FakeKey = { account: string; revoked: boolean };

export type FakeVastState = {
  /** The main key (account `main`). */
  apiKey: string;
  /** Every key the fake knows; anything else is answered 401. */
  keys: Map<string, FakeKey>;
  offers: Map<number, FakeOffer>;
  instances: Map<number, FakeInstance>;
  templates: FakeTemplate[];
  user: Record<string, unknown>;
  nextInstanceId: number;
};

export type FakeVastOptions = {
  apiKey?: string;
  offers?: FakeOffer[];
  templates?: FakeTemplate[];
  knobs?: Partial<FakeVastKnobs>;
};

export type FakeVast = {
  /** Base URL including `/api/v0`. */
  url: string;
  port: number;
  calls: RecordedCall[];
  state: FakeVastState;
  knobs: FakeVastKnobs;
  setKnob<K extends keyof FakeVastKnobs>(name: K, value: FakeVastKnobs[K]): void;
  /** Calls to one endpoint, optionally one method. */
  callsTo(endpoint: EndpointName): RecordedCall[];
  /** Another valid key: of the same account (a rotated key) or of another one. */
  addKey(key: string, account?: string): void;
  /** The key stops working: every call with it is answered 404 `{"success":false,"error":"auth_error","msg":"Invalid user key"}`. */
  revokeKey(key: string): void;
  /** Instances not destroyed, optionally only those with this label. */
  liveInstances(label?: string): FakeInstance[];
  /** An instance created directly (as if rented earlier, by anyone), running; returns its id. */
  seedInstance(label: string | null, account?: string): number;
  close(): Promise<void>;
};

export const FAKE_VAST_KEY = 'test-vast-key-0123456789abcdef';
export const OLLAMA_TEMPLATE_HASH = '4e17788f74f075dd9aab7d0d4427968f';
export const NO_PORT_TEMPLATE_HASH = '9c2d0c1b7a3e4f5a8b6c7d8e9f001122';
export const OPEN_TEMPLATE_HASH = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';
/** A public template that runs no Ollama (the picker lists it; renting it would never serve a model). */
export const PYTORCH_TEMPLATE_HASH = '7a8b9c0d1e2f30415263748596a7b8c9';
/** The account's own template: not on the recommended list, found by its exact name or hash. */
export const PRIVATE_TEMPLATE_HASH = 'c0ffee00c0ffee00c0ffee00c0ffee00';

/** A full offer object in the shape of the official example, with the given overrides. */
export function makeOffer(o: Partial<FakeOffer> & Pick<FakeOffer, 'id' | 'gpu_name' | 'gpu_ram' | 'dph_base'>): FakeOffer {
  const numGpus = o.num_gpus ?? 1;
  const reliability = (o.reliability2 as number | undefined) ?? 0.998;
  const offer: FakeOffer = {
    ask_contract_id: o.id,
    bundle_id: 900000000 + o.id,
    machine_id: 10000 + (o.id % 100000),
    host_id: 50000 + (o.id % 1000),
    num_gpus: numGpus,
    gpu_total_ram: o.gpu_ram * numGpus,
    gpu_frac: 1.0,
    gpu_arch: 'nvidia',
    gpu_mem_bw: 888.8,
    gpu_max_power: 450,
    gpu_max_temp: 83,
    gpu_lanes: 16,
    gpu_display_active: false,
    gpu_ids: Array.from({ length: numGpus }, (_, i) => 1000 + i),
    compute_cap: 890,
    cuda_max_good: 12.4,
    driver_version: '550.54.14',
    driver_vers: 550054014,
    cpu_name: 'AMD EPYC 7B13',
    cpu_arch: 'amd64',
    cpu_cores: 64,
    cpu_cores_effective: 16.0,
    cpu_ghz: 2.99,
    cpu_ram: 65536,
    has_avx: 1,
    disk_space: 2048.5,
    disk_bw: 1234.5,
    disk_name: 'SSD',
    inet_down: 987.6,
    inet_up: 876.5,
    inet_down_cost: 0.00123,
    inet_up_cost: 0.00456,
    internet_down_cost_per_tb: 1.23,
    internet_up_cost_per_tb: 4.56,
    dph_total: o.dph_base,
    dph_total_adj: o.dph_base,
    min_bid: round(o.dph_base * 0.4),
    is_bid: false,
    storage_cost: o.storage_cost ?? 0.15,
    storage_total_cost: 0,
    vram_costperhour: 0.0098,
    discount_rate: 0,
    discounted_hourly: 0,
    discounted_dph_total: o.dph_base,
    credit_discount_max: 0.15,
    search: {},
    instance: {},
    reliability: reliability,
    reliability2: reliability,
    reliability_mult: 0.88,
    expected_reliability: 0.5,
    dlperf: 222.2,
    dlperf_per_dphtotal: 711.5,
    flops_per_dphtotal: 264.4,
    total_flops: 82.6,
    score: 1234.56,
    geolocation: 'Texas, US',
    geolocode: 42424242,
    public_ipaddr: '203.0.113.42',
    static_ip: true,
    direct_port_count: 42,
    pci_gen: 4,
    pcie_bw: 24.5,
    bw_nvlink: 0,
    mobo_name: 'X570',
    os_version: '22.04',
    verification: 'verified',
    vericode: 1,
    rentable: true,
    rented: false,
    external: false,
    hosting_type: 0,
    duration: 1234567.89,
    start_date: 1893450000.5,
    end_date: 1893456000,
    vms_enabled: false,
    resource_type: 'gpu',
    cluster_id: null,
    time_remaining: '',
    time_remaining_isbid: '',
    rn: 1,
    webpage: null,
    logo: '/static/logos/x.png',
    hostname: null,
    ...o,
  };
  return priceOffer(offer, 5);
}

/** A realistic marketplace: consumer and datacenter cards, one tie on price, a few that must be filtered out. */
export function defaultOffers(): FakeOffer[] {
  return [
    makeOffer({ id: 20000001, gpu_name: 'RTX 3060', gpu_ram: 12288, dph_base: 0.065, reliability2: 0.995, geolocation: 'Ontario, CA' }),
    makeOffer({ id: 20000002, gpu_name: 'RTX 3090', gpu_ram: 24576, dph_base: 0.16, reliability2: 0.9962, geolocation: 'Texas, US' }),
    makeOffer({ id: 20000003, gpu_name: 'RTX 4090', gpu_ram: 24564, dph_base: 0.29, reliability2: 0.9981, geolocation: 'Texas, US' }),
    makeOffer({ id: 20000004, gpu_name: 'RTX 4090', gpu_ram: 24564, dph_base: 0.29, reliability2: 0.9991, geolocation: 'Bavaria, DE' }),
    makeOffer({ id: 20000005, gpu_name: 'RTX 3090', num_gpus: 2, gpu_ram: 24576, dph_base: 0.33, reliability2: 0.993, geolocation: 'Quebec, CA' }),
    makeOffer({ id: 20000006, gpu_name: 'RTX A6000', gpu_ram: 49140, dph_base: 0.47, reliability2: 0.997, geolocation: 'Oregon, US' }),
    makeOffer({ id: 20000007, gpu_name: 'L40S', gpu_ram: 46068, dph_base: 0.79, reliability2: 0.999, geolocation: 'Virginia, US' }),
    makeOffer({ id: 20000008, gpu_name: 'A100 SXM4', gpu_ram: 81920, dph_base: 1.15, reliability2: 0.998, geolocation: 'Utah, US' }),
    makeOffer({ id: 20000009, gpu_name: 'H100 SXM', gpu_ram: 81559, dph_base: 2.05, reliability2: 0.9995, geolocation: 'Iowa, US' }),
    makeOffer({ id: 20000010, gpu_name: 'RTX 4090', gpu_ram: 24564, dph_base: 0.21, reliability2: 0.9, geolocation: 'Vietnam, VN' }),
    makeOffer({ id: 20000011, gpu_name: 'RTX 3090', gpu_ram: 24576, dph_base: 0.12, reliability2: 0.985, verification: 'unverified', vericode: 0, geolocation: 'Lagos, NG' }),
    makeOffer({ id: 20000012, gpu_name: 'RTX 4090', gpu_ram: 24564, dph_base: 0.25, reliability2: 0.999, rented: true, rentable: false, geolocation: 'Texas, US' }),
    ...unusableOffers(),
  ];
}

/**
 * Offers a job cannot use or should not prefer, each the cheapest of its kind (reference §A.10): a host
 * without direct ports (11434/tcp would never map), a $40/TB host (cheap per hour, dear to download a
 * model to), an external one, and one whose disk is too small for most models.
 */
export const NO_DIRECT_PORTS_OFFER = 20000013;
export const DEAR_DOWNLOAD_OFFER = 20000014;
export const EXTERNAL_OFFER = 20000015;
export const SMALL_DISK_OFFER = 20000016;
export function unusableOffers(): FakeOffer[] {
  return [
    makeOffer({ id: NO_DIRECT_PORTS_OFFER, gpu_name: 'RTX 3060', gpu_ram: 12288, dph_base: 0.05, reliability2: 0.999, direct_port_count: 0, geolocation: 'Nevada, US' }),
    makeOffer({ id: DEAR_DOWNLOAD_OFFER, gpu_name: 'RTX 3060', gpu_ram: 12288, dph_base: 0.06, reliability2: 0.999, inet_down_cost: 0.04, internet_down_cost_per_tb: 40, geolocation: 'Alaska, US' }),
    makeOffer({ id: EXTERNAL_OFFER, gpu_name: 'RTX 3090', gpu_ram: 24576, dph_base: 0.1, reliability2: 0.999, external: true, geolocation: 'Oslo, NO' }),
    makeOffer({ id: SMALL_DISK_OFFER, gpu_name: 'RTX 3090', gpu_ram: 24576, dph_base: 0.11, reliability2: 0.999, disk_space: 16, geolocation: 'Lisbon, PT' }),
  ];
}

export function defaultTemplates(): FakeTemplate[] {
  const base = {
    creator_id: 1,
    created_at: 1767000000.0,
    count_created: 1234,
    default_tag: '0.15.2',
    docker_login_repo: null,
    jup_direct: false,
    ssh_direct: false,
    use_ssh: false,
    recommended: true,
    recommended_disk_space: 8,
    extra_filters: { cuda_max_good: { gte: 12.0 } },
    image: 'vastai/ollama',
    tag: '0.15.2',
    onstart: 'entrypoint.sh',
    runtype: 'args',
  };
  return [
    {
      ...base,
      id: 334548,
      hash_id: OLLAMA_TEMPLATE_HASH,
      name: 'Ollama',
      env: '-p 1111:1111 -p 11434:11434 -e OPEN_BUTTON_PORT=1111 -e OPEN_BUTTON_TOKEN=1 -e OLLAMA_MODEL=llama3.2:1b -e PORTAL_CONFIG="localhost:1111:11111:/:Instance Portal|localhost:11434:21434:/:Ollama API"',
    },
    { ...base, id: 334549, hash_id: NO_PORT_TEMPLATE_HASH, name: 'Ollama (no port mapping)', env: '-e OLLAMA_MODEL=llama3.2:1b' },
    { ...base, id: 334550, hash_id: OPEN_TEMPLATE_HASH, name: 'Ollama (open)', env: '-p 11434:11434 -e AUTH_EXCLUDE=11434 -e ENABLE_HTTPS=false' },
    { ...base, id: 334551, hash_id: PYTORCH_TEMPLATE_HASH, name: 'PyTorch (Vast)', image: 'vastai/pytorch', tag: '2.5.1', default_tag: '2.5.1', count_created: 98765, env: '-p 8080:8080' },
    { ...base, id: 334552, hash_id: PRIVATE_TEMPLATE_HASH, name: 'Ollama (team)', recommended: false, creator_id: 123456, count_created: 3, env: '-p 11434:11434 -e OPEN_BUTTON_TOKEN=1' },
  ];
}

const DEFAULT_KNOBS: FakeVastKnobs = {
  trailingWhitespace: false,
  goneAs: 'null',
  pollsPerPhase: { scheduling: 1, created: 1, loading: 1 },
  portsDelayPolls: 0,
  outcome: 'running',
  ollamaPort: 41234,
  takenOnRent: [],
  unavailableOnRent: [],
  rateLimit: null,
  failNext: null,
  latencyMs: 0,
  minIntervalMs: {},
  malformed: {},
  rentAnswerOverride: null,
  destroyIgnored: false,
  rentAnswerLost: false,
  rentAnswerDelayMs: 0,
  v0ListDeprecated: true,
  v1PageSize: 25,
  destroyAnswer: 'ok',
  malformedOffers: [],
};

const round = (x: number): number => Math.round(x * 1e6) / 1e6;

/** dph_total = dph_base + storage at `allocated_storage` GB ($/GB/month ÷ 720 h), as the real API prices it. */
function priceOffer(offer: FakeOffer, allocatedGb: number): FakeOffer {
  const storageHour = round((offer.storage_cost * allocatedGb) / 720);
  const total = round(offer.dph_base + storageHour);
  const breakdown = { gpuCostPerHour: offer.dph_base, diskHour: storageHour, totalHour: total, discountTotalHour: 0, discountedTotalPerHour: total };
  return { ...offer, storage_total_cost: storageHour, dph_total: total, dph_total_adj: total, discounted_dph_total: total, search: breakdown, instance: breakdown };
}

class BadRequest extends Error {}

/** A JSON-encoded query parameter (`select_filters`), 400 when it is not a JSON object. */
function jsonParam(raw: string): Record<string, unknown> {
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
const NOT_FILTERABLE = new Set(['dph_total', 'search', 'instance']);
const CONTROL_KEYS = new Set(['order', 'limit', 'type', 'allocated_storage']);

/** Field lookup with the server's pseudo-fields (`verified` is derived from `verification`). */
function fieldOf(row: Record<string, unknown>, field: string): { known: boolean; value: unknown } {
  if (field === 'verified' && !('verified' in row) && 'verification' in row) return { known: true, value: row.verification === 'verified' };
  return { known: field in row, value: row[field] };
}

function matches(row: Record<string, unknown>, filters: Record<string, unknown>): boolean {
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

function sortRows(rows: Record<string, unknown>[], order: unknown): void {
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
function templateEnvPairs(env: string): [string, string][] {
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

function json(res: http.ServerResponse, call: RecordedCall, status: number, body: unknown): void {
  send(res, call, status, JSON.stringify(body), 'application/json');
}

function send(res: http.ServerResponse, call: RecordedCall, status: number, text: string, type: string): void {
  call.status = status;
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

const RATE_LIMIT_BODIES: Record<RateLimitVariant, { text: string; type: string }> = {
  text: { text: 'API requests too frequent endpoint threshold=2.0', type: 'text/plain' },
  detail: { text: JSON.stringify({ detail: 'API requests too frequent endpoint threshold=4.5' }), type: 'application/json' },
  json: { text: JSON.stringify({ success: false, error: 'rate_limit_exceeded', msg: 'API requests too frequent endpoint threshold=3.0' }), type: 'application/json' },
};

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
  const lastCallAt = new Map<EndpointName, number>();
  let rateLimitCycle = 0;

  const pad = (s: string): string => (knobs.trailingWhitespace ? `${s}\n` : s);

  function renderInstance(inst: FakeInstance): Record<string, unknown> {
    const p = knobs.pollsPerPhase;
    const n = inst.polls;
    let actual: string | null;
    let statusMsg: string | null;
    let ports: Record<string, { HostIp: string; HostPort: string }[]> | null | undefined;
    const runningFrom = p.scheduling + p.created + p.loading;
    if (inst.intendedStatus === 'stopped') {
      actual = 'exited';
      statusMsg = 'stopped by user';
    } else if (n <= p.scheduling) {
      actual = null;
      statusMsg = null;
    } else if (n <= p.scheduling + p.created) {
      actual = 'created';
      statusMsg = 'container created';
    } else if (n <= runningFrom || knobs.outcome === 'never_ready') {
      actual = 'loading';
      statusMsg = `Pulling image ${inst.image}: downloading layers`;
    } else if (knobs.outcome === 'exited') {
      actual = 'exited';
      statusMsg = 'Error response from daemon: failed to create task for container: OCI runtime create failed';
    } else if (knobs.outcome === 'offline' || knobs.outcome === 'unknown') {
      actual = knobs.outcome;
      statusMsg = knobs.outcome === 'offline' ? 'host disconnected' : 'no heartbeat from host';
    } else {
      actual = 'running';
      statusMsg = `success, running ${inst.image}/args`;
      if (n > runningFrom + knobs.portsDelayPolls) {
        ports = {
          '11434/tcp': [
            { HostIp: '0.0.0.0', HostPort: String(knobs.ollamaPort) },
            { HostIp: '::', HostPort: String(knobs.ollamaPort) },
          ],
          '22/tcp': [{ HostIp: '0.0.0.0', HostPort: '41222' }],
        };
      } else {
        // The race in §E.E.5: running, but the port map is not there yet ({} or missing).
        ports = n % 2 === 0 ? {} : undefined;
      }
    }
    const o = inst.offer;
    const row: Record<string, unknown> = {
      id: inst.id,
      machine_id: o.machine_id,
      host_id: o.host_id,
      bundle_id: o.bundle_id,
      actual_status: actual === null ? null : knobs.trailingWhitespace ? `${actual} ` : actual,
      intended_status: inst.intendedStatus,
      cur_state: inst.intendedStatus,
      next_state: inst.intendedStatus,
      status_msg: statusMsg === null ? null : pad(statusMsg),
      label: inst.label === null ? null : knobs.trailingWhitespace ? ` ${inst.label} ` : inst.label,
      template_hash_id: inst.templateHashId,
      template_id: state.templates.find((t) => t.hash_id === inst.templateHashId)?.id ?? null,
      template_name: state.templates.find((t) => t.hash_id === inst.templateHashId)?.name ?? null,
      image_uuid: inst.image,
      image_args: [],
      image_runtype: 'args',
      extra_env: inst.env,
      onstart: null,
      jupyter_token: 'jt-0123',
      public_ipaddr: actual === 'running' ? pad('127.0.0.1') : null,
      local_ipaddrs: '10.0.0.5 172.17.0.1 \n',
      ssh_host: 'ssh4.vast.ai',
      ssh_idx: '4',
      ssh_port: 20482,
      direct_port_count: 12,
      direct_port_start: 41200,
      direct_port_end: 41299,
      static_ip: false,
      gpu_name: o.gpu_name,
      num_gpus: o.num_gpus,
      gpu_ram: o.gpu_ram,
      gpu_totalram: o.gpu_total_ram,
      gpu_util: 0.0,
      gpu_temp: 39.0,
      cpu_name: o.cpu_name,
      cpu_cores: o.cpu_cores,
      cpu_ram: o.cpu_ram,
      disk_space: inst.disk,
      dph_base: o.dph_base,
      dph_total: o.dph_total,
      storage_cost: o.storage_cost,
      storage_total_cost: o.storage_total_cost,
      search: o.search,
      instance: o.instance,
      reliability2: o.reliability2,
      geolocation: o.geolocation,
      verification: o.verification,
      rentable: true,
      is_bid: false,
      min_bid: o.min_bid,
      start_date: inst.startDate,
      end_date: inst.startDate + 30 * 86400,
      uptime_mins: null,
      credit_balance: null,
      time_remaining: '',
      time_remaining_isbid: '',
    };
    if (ports !== undefined) row.ports = ports;
    return row;
  }

  function search(body: unknown): Record<string, unknown>[] {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new BadRequest('body must be a JSON object');
    const q = body as Record<string, unknown>;
    const filters: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(q)) if (!CONTROL_KEYS.has(k)) filters[k] = v;
    const allocated = q.allocated_storage === undefined ? 5 : q.allocated_storage;
    if (typeof allocated !== 'number' || allocated < 0) throw new BadRequest('allocated_storage must be a number of GB');
    if (q.type !== undefined && !['on-demand', 'ondemand', 'bid', 'reserved'].includes(String(q.type))) throw new BadRequest(`unknown type ${String(q.type)}`);
    const limit = q.limit === undefined ? 64 : q.limit;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) throw new BadRequest('limit must be a positive integer');
    const rows = [...state.offers.values()].map((o) => priceOffer(o, allocated)).filter((o) => matches(o, filters));
    sortRows(rows, q.order);
    return rows.slice(0, limit);
  }

  function rent(res: http.ServerResponse, call: RecordedCall, account: string, offerId: number, body: unknown): void {
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
    // Template env first, request env wins by key (reference §A.3).
    const env = new Map<string, string>(template ? templateEnvPairs(template.env) : []);
    if (b.env && typeof b.env === 'object' && !Array.isArray(b.env)) {
      for (const [k, v] of Object.entries(b.env as Record<string, unknown>)) env.set(k, String(v));
    }
    const id = state.nextInstanceId++;
    state.offers.delete(offerId);
    state.instances.set(id, {
      id,
      offer: current,
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

  /**
   * `GET /api/v1/instances/` (reference §A.5, §A.10): keyset pages of at most 25 rows ordered by `order_by`
   * (default id ascending), `select_filters` over the row fields (computed ones such as dph_total are
   * refused with 400), `next_token` to pass back as `after_token` until it is null.
   */
  function listV1(res: http.ServerResponse, call: RecordedCall, own: FakeInstance[]): void {
    // Filters see the stored values (the trailing-whitespace knob pads only what is sent back).
    let rows = own.map((inst) => ({ inst, fields: { ...renderInstance(inst), label: inst.label } as Record<string, unknown> }));
    const filters = call.query.select_filters;
    if (filters) {
      const parsed = jsonParam(filters);
      for (const field of Object.keys(parsed)) if (NOT_FILTERABLE.has(field)) throw new BadRequest(`${field} is a computed field and cannot be filtered`);
      rows = rows.filter((r) => matches(r.fields, parsed));
    }
    let descending = false;
    if (call.query.order_by) {
      let first: unknown;
      try {
        const order: unknown = JSON.parse(call.query.order_by);
        first = Array.isArray(order) ? order[0] : undefined;
      } catch {
        first = undefined;
      }
      if (!first || typeof first !== 'object' || (first as { col?: unknown }).col !== 'id') throw new BadRequest('order_by must be [{"col":"id","dir":"asc"|"desc"}]');
      descending = (first as { dir?: unknown }).dir === 'desc';
    }
    rows.sort((a, b) => (a.inst.id - b.inst.id) * (descending ? -1 : 1));
    const asked = call.query.limit === undefined ? 25 : Number(call.query.limit);
    if (!Number.isInteger(asked) || asked < 1) throw new BadRequest('limit must be a positive integer');
    const pageSize = Math.min(asked, 25, knobs.v1PageSize);
    if (call.query.after_token !== undefined) {
      const after = Number(Buffer.from(call.query.after_token, 'base64url').toString('utf8'));
      if (!Number.isInteger(after) || after <= 0) throw new BadRequest('after_token is not a token this server issued');
      rows = rows.filter((r) => (descending ? r.inst.id < after : r.inst.id > after));
    }
    const page = rows.slice(0, pageSize);
    const last = page.at(-1);
    const nextToken = rows.length > pageSize && last ? Buffer.from(String(last.inst.id), 'utf8').toString('base64url') : null;
    const labelCounts: Record<string, number> = {};
    for (const i of own) labelCounts[i.label ?? ''] = (labelCounts[i.label ?? ''] ?? 0) + 1;
    const instances = page.map((r) => renderInstance(r.inst));
    json(res, call, 200, { success: true, instances_found: page.length, total_instances: own.length, label_counts: labelCounts, next_token: nextToken, instances });
  }

  function route(req: http.IncomingMessage, res: http.ServerResponse, call: RecordedCall, account: string, endpoint: EndpointName, path: string): void {
    const method = req.method ?? 'GET';
    const id = Number(/\/(\d+)$/.exec(path)?.[1]);
    /** This account's instance, not destroyed: another account's machine does not exist for this key. */
    const own = (instanceId: number): FakeInstance | undefined => {
      const inst = state.instances.get(instanceId);
      return inst && !inst.destroyed && inst.account === account ? inst : undefined;
    };
    const ownInstances = (): FakeInstance[] => [...state.instances.values()].filter((i) => !i.destroyed && i.account === account);
    const notFound = (): void => json(res, call, 404, { success: false, error: 'not_found', msg: 'Instance not found' });
    switch (endpoint) {
      case 'bundles': {
        const offers = search(call.body).map((o) => (knobs.malformedOffers.includes(Number(o.id)) ? { ...o, gpu_name: null, dph_total: 'cheap' } : o));
        if (knobs.malformed.bundles !== undefined) return send(res, call, 200, knobs.malformed.bundles, 'application/json');
        return json(res, call, 200, { offers });
      }
      case 'asks':
        return rent(res, call, account, id, call.body);
      case 'show': {
        const inst = own(id);
        if (!inst) {
          if (knobs.goneAs === '404') return json(res, call, 404, { success: false, error: 'no_such_instance', msg: `Instance ${id} not found` });
          return json(res, call, 200, { instances: null });
        }
        inst.polls++;
        if (knobs.malformed.show !== undefined) return send(res, call, 200, knobs.malformed.show, 'application/json');
        return json(res, call, 200, { instances: renderInstance(inst) });
      }
      case 'list': {
        if (knobs.v0ListDeprecated) {
          return json(res, call, 410, { success: false, error: 'deprecated_endpoint', msg: 'The legacy v0 /instances list endpoint is deprecated; use GET /api/v1/instances/' });
        }
        const rows = ownInstances().map(renderInstance);
        return json(res, call, 200, { instances_found: rows.length, instances: rows });
      }
      case 'list_v1':
        return listV1(res, call, ownInstances());
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
        if (!knobs.destroyIgnored) inst.destroyed = true;
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

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, rawBody: string): Promise<void> {
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
    const call: RecordedCall = { method, path: url.pathname, url: req.url ?? '', query: Object.fromEntries(url.searchParams), headers, body, rawBody, endpoint, status: null, at: Date.now() };
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
    const now = Date.now();
    const interval = knobs.minIntervalMs[endpoint];
    const last = lastCallAt.get(endpoint);
    lastCallAt.set(endpoint, now);
    if (limited || (interval !== undefined && last !== undefined && now - last < interval)) {
      const variants: RateLimitVariant[] = ['text', 'detail', 'json'];
      const variant = limited && limited.variant !== 'cycle' ? limited.variant : (variants[rateLimitCycle++ % 3] as RateLimitVariant);
      const b = RATE_LIMIT_BODIES[variant];
      return send(res, call, 429, b.text, b.type);
    }
    const failing = takeFromKnob(knobs.failNext, endpoint);
    if (failing) return send(res, call, failing.status, failing.body ?? JSON.stringify({ success: false, error: 'server_error', msg: 'upstream failure' }), 'application/json');

    try {
      route(req, res, call, key.account, endpoint, path);
    } catch (err) {
      if (err instanceof BadRequest) return json(res, call, 400, { success: false, error: 'invalid_args', msg: err.message });
      return json(res, call, 500, { success: false, error: 'server_error', msg: err instanceof Error ? err.message : String(err) });
    }
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch(() => {
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
        startDate: Date.now() / 1000, polls: runningFrom + 1, destroyed: false, intendedStatus: 'running', account,
      });
      return id;
    },
    liveInstances(label) {
      return [...state.instances.values()].filter((i) => !i.destroyed && (label === undefined || i.label === label));
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
