import type { EventLabels, JobEvent, ServingBenchmarkResult, ServingLevel } from '../../../../shared';

/**
 * The serving job page's rows: one per requested concurrency level, in the request's order, from
 * the first render on (so the table and charts never change shape while the job runs). A level's
 * figures come from the result once the job succeeded, else from its `serving.level` event.
 */

/** `not-run`: the job ended (failed, cancelled) before this level ran or finished. */
export type ServingRowState = 'waiting' | 'running' | 'done' | 'failed' | 'not-run';

export type ServingRow = {
  concurrency: number;
  state: ServingRowState;
  requests: number | null;
  failed: number | null;
  firstError: string | null;
  outputTokensPerS: number | null;
  requestThroughput: number | null;
  ttftP50: number | null;
  ttftP99: number | null;
  tpotP50: number | null;
  tpotP99: number | null;
  itlP50: number | null;
  itlP99: number | null;
  e2eP50: number | null;
  e2eP99: number | null;
  serverTokensPerS: number | null;
  usdPerMillion: number | null;
};

const num = (labels: EventLabels, key: string): number | null => {
  const v = labels[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
};

function fromLevel(l: ServingLevel): ServingRow {
  return {
    concurrency: l.concurrency,
    state: l.requests === 0 ? 'failed' : 'done',
    requests: l.requests,
    failed: l.failed,
    firstError: l.first_error,
    outputTokensPerS: l.output_tokens_per_s,
    requestThroughput: l.request_throughput,
    ttftP50: l.ttft_ms?.p50 ?? null,
    ttftP99: l.ttft_ms?.p99 ?? null,
    tpotP50: l.tpot_ms?.p50 ?? null,
    tpotP99: l.tpot_ms?.p99 ?? null,
    itlP50: l.itl_ms?.p50 ?? null,
    itlP99: l.itl_ms?.p99 ?? null,
    e2eP50: l.e2e_ms?.p50 ?? null,
    e2eP99: l.e2e_ms?.p99 ?? null,
    serverTokensPerS: l.server_tokens_per_s,
    usdPerMillion: l.usd_per_million_output_tokens,
  };
}

function fromEvent(concurrency: number, e: JobEvent): ServingRow {
  const l = e.labels;
  return {
    concurrency,
    state: e.status === 'error' ? 'failed' : 'done',
    requests: num(l, 'requests'),
    failed: num(l, 'failed'),
    firstError: typeof l.first_error === 'string' ? l.first_error : null,
    outputTokensPerS: num(l, 'output_tokens_per_s'),
    requestThroughput: num(l, 'request_throughput'),
    ttftP50: num(l, 'ttft_p50_ms'),
    ttftP99: num(l, 'ttft_p99_ms'),
    tpotP50: num(l, 'tpot_p50_ms'),
    tpotP99: num(l, 'tpot_p99_ms'),
    itlP50: num(l, 'itl_p50_ms'),
    itlP99: num(l, 'itl_p99_ms'),
    e2eP50: num(l, 'e2e_p50_ms'),
    e2eP99: num(l, 'e2e_p99_ms'),
    serverTokensPerS: num(l, 'server_tokens_per_s'),
    usdPerMillion: num(l, 'usd_per_million_output_tokens'),
  };
}

const empty = (concurrency: number, state: ServingRowState): ServingRow => ({
  concurrency,
  state,
  requests: null,
  failed: null,
  firstError: null,
  outputTokensPerS: null,
  requestThroughput: null,
  ttftP50: null,
  ttftP99: null,
  tpotP50: null,
  tpotP99: null,
  itlP50: null,
  itlP99: null,
  e2eP50: null,
  e2eP99: null,
  serverTokensPerS: null,
  usdPerMillion: null,
});

export function servingRows(levels: readonly number[], result: ServingBenchmarkResult | null, events: readonly JobEvent[], terminal: boolean): ServingRow[] {
  if (result) return result.levels.map(fromLevel);
  const finished = new Map<number, JobEvent>();
  const started = new Set<number>();
  for (const e of events) {
    if (e.event !== 'serving.level') continue;
    const c = num(e.labels, 'concurrency');
    if (c === null) continue;
    if (e.status === 'started') started.add(c);
    else finished.set(c, e);
  }
  return levels.map((c) => {
    const done = finished.get(c);
    if (done) return fromEvent(c, done);
    if (terminal) return empty(c, 'not-run');
    return empty(c, started.has(c) ? 'running' : 'waiting');
  });
}

/** The fastest level and the cheapest priced one, from the rows (the result's `best` says the same once it exists). */
export function bestRows(rows: readonly ServingRow[]): { fastest: ServingRow | null; cheapest: ServingRow | null } {
  let fastest: ServingRow | null = null;
  let cheapest: ServingRow | null = null;
  for (const r of rows) {
    if (r.outputTokensPerS !== null && (r.requests ?? 0) > 0 && (!fastest || r.outputTokensPerS > (fastest.outputTokensPerS ?? 0))) fastest = r;
    if (r.usdPerMillion !== null && (!cheapest || r.usdPerMillion < (cheapest.usdPerMillion ?? Infinity))) cheapest = r;
  }
  return { fastest, cheapest };
}
