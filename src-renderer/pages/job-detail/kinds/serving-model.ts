import { servingLevels, type EventLabels, type JobEvent, type RequestRate, type ServingBenchmarkRequest, type ServingBenchmarkResult, type ServingLevel, type ServingLevelSpec } from '../../../../shared';

/**
 * The serving job page's rows: one per requested level (a concurrency or a request rate), in the
 * request's order, from the first render on (so the table and charts never change shape while
 * the job runs). A level's figures come from the result once the job succeeded, else from its
 * `serving.level` event.
 */

/** `not-run`: the job ended (failed, cancelled) before this level ran or finished. */
export type ServingRowState = 'waiting' | 'running' | 'done' | 'failed' | 'not-run';

export type ServingRow = {
  /** 1-based, as the events count levels. */
  level: number;
  /** The level's place on the charts' x axis: its concurrency, or its rate ("all at once" past the highest). */
  x: number;
  /** "8", "4 req/s", "all at once". */
  label: string;
  state: ServingRowState;
  requests: number | null;
  failed: number | null;
  firstError: string | null;
  outputTokensPerS: number | null;
  requestThroughput: number | null;
  achievedRate: number | null;
  goodput: number | null;
  sloAttainment: number | null;
  meanOutputTokens: number | null;
  earlyStops: number | null;
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
  warnings: string[];
};

/** Whether the levels are request rates (the x axis is then a rate, not a concurrency). */
export function isRateRun(request: Pick<ServingBenchmarkRequest, 'request_rate'>): boolean {
  return request.request_rate !== undefined && request.request_rate.length > 0;
}

const rateLabel = (rate: RequestRate): string => (rate === 'inf' ? 'all at once' : `${rate} req/s`);

/** x of each spec: concurrency, or rate with "inf" placed after the highest finite rate. */
function placements(specs: readonly ServingLevelSpec[]): { x: number; label: string }[] {
  const finite = specs.flatMap((s) => (s.kind === 'rate' && s.rate !== 'inf' ? [s.rate] : []));
  const top = Math.max(1, ...finite);
  return specs.map((s) => (s.kind === 'concurrency' ? { x: s.concurrency, label: String(s.concurrency) } : { x: s.rate === 'inf' ? top * 2 : s.rate, label: rateLabel(s.rate) }));
}

const num = (labels: EventLabels, key: string): number | null => {
  const v = labels[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
};

const empty = (level: number, place: { x: number; label: string }, state: ServingRowState): ServingRow => ({
  level,
  ...place,
  state,
  requests: null,
  failed: null,
  firstError: null,
  outputTokensPerS: null,
  requestThroughput: null,
  achievedRate: null,
  goodput: null,
  sloAttainment: null,
  meanOutputTokens: null,
  earlyStops: null,
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
  warnings: [],
});

function fromLevel(l: ServingLevel, level: number, place: { x: number; label: string }): ServingRow {
  return {
    ...empty(level, place, l.requests === 0 ? 'failed' : 'done'),
    requests: l.requests,
    failed: l.failed,
    firstError: l.first_error,
    outputTokensPerS: l.output_tokens_per_s,
    requestThroughput: l.request_throughput,
    achievedRate: l.achieved_request_rate,
    goodput: l.goodput_rps,
    sloAttainment: l.slo_attainment,
    meanOutputTokens: l.mean_output_tokens,
    earlyStops: l.early_stop_requests,
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
    warnings: l.warnings,
  };
}

function fromEvent(e: JobEvent, level: number, place: { x: number; label: string }): ServingRow {
  const l = e.labels;
  return {
    ...empty(level, place, e.status === 'error' ? 'failed' : 'done'),
    requests: num(l, 'requests'),
    failed: num(l, 'failed'),
    firstError: typeof l.first_error === 'string' ? l.first_error : null,
    outputTokensPerS: num(l, 'output_tokens_per_s'),
    requestThroughput: num(l, 'request_throughput'),
    achievedRate: num(l, 'achieved_request_rate'),
    goodput: num(l, 'goodput_rps'),
    sloAttainment: num(l, 'slo_attainment'),
    meanOutputTokens: num(l, 'mean_output_tokens'),
    earlyStops: num(l, 'early_stop_requests'),
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
    warnings: typeof l.warnings === 'string' ? l.warnings.split(' | ') : [],
  };
}

export function servingRows(request: Pick<ServingBenchmarkRequest, 'concurrency' | 'request_rate' | 'burstiness' | 'max_concurrency'>, result: ServingBenchmarkResult | null, events: readonly JobEvent[], terminal: boolean): ServingRow[] {
  const specs = servingLevels(request);
  const places = placements(specs);
  const finished = new Map<number, JobEvent>();
  const started = new Set<number>();
  for (const e of events) {
    if (e.event !== 'serving.level') continue;
    const level = num(e.labels, 'level');
    if (level === null) continue;
    if (e.status === 'started') started.add(level);
    else finished.set(level, e);
  }
  return places.map((place, i) => {
    const level = i + 1;
    const measured = result?.levels[i];
    if (measured) return fromLevel(measured, level, place);
    const done = finished.get(level);
    if (done) return fromEvent(done, level, place);
    if (terminal || result) return empty(level, place, 'not-run');
    return empty(level, place, started.has(level) ? 'running' : 'waiting');
  });
}

/** The fastest level, the cheapest priced one, and the fastest meeting the SLO for 99% of its requests. */
export function bestRows(rows: readonly ServingRow[]): { fastest: ServingRow | null; cheapest: ServingRow | null; bySlo: ServingRow | null } {
  let fastest: ServingRow | null = null;
  let cheapest: ServingRow | null = null;
  let bySlo: ServingRow | null = null;
  for (const r of rows) {
    const ok = r.outputTokensPerS !== null && (r.requests ?? 0) > 0;
    if (ok && (!fastest || (r.outputTokensPerS ?? 0) > (fastest.outputTokensPerS ?? 0))) fastest = r;
    if (r.usdPerMillion !== null && (!cheapest || r.usdPerMillion < (cheapest.usdPerMillion ?? Infinity))) cheapest = r;
    if (ok && (r.sloAttainment ?? 0) >= 0.99 && (!bySlo || (r.outputTokensPerS ?? 0) > (bySlo.outputTokensPerS ?? 0))) bySlo = r;
  }
  return { fastest, cheapest, bySlo };
}

/** A level's name in a sentence: "concurrency 8", "4 req/s", "all at once". */
export function rowName(row: ServingRow, rate: boolean): string {
  return rate ? row.label : `concurrency ${row.label}`;
}
