import type { FakeOffer, FakeTemplate } from './vast-catalog';

/** The shapes of the fake Vast.ai: what it records, its knobs and its state (vast.ts runs it). */

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
  /** When the answer was written (ms since the epoch); null until then. */
  answeredAt: number | null;
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
  /**
   * HostPort reported for 8000/tcp on an instance that publishes it (`-p 8000:8000` from its
   * template or the create's env, as the vLLM template does): point it at a fake OpenAI server.
   */
  openaiPort: number;
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
  /**
   * Real rate limiting, as Vast does it (reference §A.9): per endpoint, a call sooner than
   * `intervalMs` after the last one it accepted is answered 429 (no Retry-After) and the endpoint
   * then answers 429 to everything for `penaltyMs` (creates: 4.5 s and 12 s). Off by default.
   */
  rateLimits: Partial<Record<EndpointName, { intervalMs: number; penaltyMs: number }>>;
  /** A 2xx of this endpoint answers this raw text instead (a surprise shape). */
  malformed: Partial<Record<EndpointName, string>>;
  /** Rent succeeds on the server but the answer is this raw text (a lost/unreadable answer). */
  rentAnswerOverride: string | null;
  /** Destroy answers success but the instance stays (an unverifiable release). */
  destroyIgnored: boolean;
  /** Rent creates the instance, then the connection drops without an answer (a lost rent response). */
  rentAnswerLost: boolean;
  /**
   * A created instance is invisible (list and show answer as if it did not exist) for this long
   * after the create: with rentAnswerLost, the machine Vast creates "a moment later".
   */
  rentVisibleAfterMs: number;
  /** Creates of these offers (or every offer: 'all') are refused with a 200 `{success: false, error, msg}`, as Vast answers a lack of credit. */
  rentRefused: { offers: number[] | 'all'; error: string; msg: string } | null;
  /**
   * Right after `created`, the instance reads this status (no "Error" in its message) for `polls`
   * polls before it goes on loading: the hiccup the official CLI waits out.
   */
  bootHiccup: { status: 'exited' | 'unknown'; polls: number } | null;
  /**
   * A destroy is accepted at once but takes effect later, as on the real service: for this long
   * the instance still reads (actual_status running, intended_status stopped), then it is gone.
   */
  destroyLagMs: number;
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
  /** Invisible to list and show before this instant (ms): a create that lands later than its answer. */
  visibleFrom: number;
  /** A destroy was accepted at this instant (ms): the instance is gone once destroyLagMs has passed. */
  destroyAcceptedAt: number | null;
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
