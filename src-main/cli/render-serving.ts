import { levelLabel, type LatencyStats, type ServingBenchmarkResult } from '../../shared';
import { formatDuration, formatUsd, out, print, table } from './output';

/** The serving benchmark's result as a terminal table: one row per level (a concurrency or a request rate). */

const ms = (s: LatencyStats | null, key: 'mean' | 'p50' | 'p90' | 'p99'): string => (s ? `${s[key].toFixed(1)} ms` : '-');
const perS = (v: number | null, unit = ''): string => (v === null ? '-' : `${v.toFixed(1)}${unit}`);

function levelRows(result: ServingBenchmarkResult, rented: boolean, slo: boolean): (string | number)[][] {
  return result.levels.map((l) => [
    l.concurrency ?? (l.request_rate === 'inf' ? 'rate ∞' : `${l.request_rate} req/s`),
    l.failed > 0 ? `${l.requests}/${out.red(String(l.failed))}` : `${l.requests}/0`,
    perS(l.output_tokens_per_s),
    perS(l.request_throughput),
    ms(l.ttft_ms, 'p50'),
    ms(l.ttft_ms, 'p99'),
    ms(l.tpot_ms, 'p50'),
    ms(l.itl_ms, 'p50'),
    ms(l.e2e_ms, 'p50'),
    l.mean_output_tokens === null ? '-' : l.early_stop_requests > 0 ? out.yellow(l.mean_output_tokens.toFixed(0)) : l.mean_output_tokens.toFixed(0),
    ...(slo ? [`${perS(l.goodput_rps)} (${l.slo_attainment === null ? '-' : `${(l.slo_attainment * 100).toFixed(1)}%`})`] : []),
    ...(rented ? [l.usd_per_million_output_tokens === null ? '-' : formatUsd(l.usd_per_million_output_tokens, 2)] : []),
  ]);
}

function sloText(result: ServingBenchmarkResult): string {
  const s = result.slo;
  if (!s) return '';
  return [s.ttft_ms !== undefined ? `TTFT ≤ ${s.ttft_ms} ms` : null, s.tpot_ms !== undefined ? `TPOT ≤ ${s.tpot_ms} ms` : null, s.e2e_ms !== undefined ? `e2e ≤ ${s.e2e_ms} ms` : null].filter(Boolean).join(', ');
}

export function printServingResult(result: ServingBenchmarkResult): void {
  const rented = result.instance !== null;
  const slo = result.slo !== null;
  const head = ['level', 'ok/failed', 'output tok/s', 'req/s', 'TTFT p50', 'TTFT p99', 'TPOT p50', 'ITL p50', 'e2e p50', 'mean out', ...(slo ? ['goodput req/s (met)'] : []), ...(rented ? ['$/1M out'] : [])];
  const api = result.backend_api === 'openai' ? 'OpenAI-compatible' : 'Ollama';
  print(out.bold(`Serving ${result.model} on ${result.backend_url} (${api}${result.manifest?.backend_version ? ` ${result.manifest.backend_version}` : ''})`));
  const count = result.requests_per_level !== null ? `${result.requests_per_level} requests per level` : result.duration_s !== null ? `${result.duration_s} s per level` : 'several waves per level';
  print(out.dim(`${count} after ${result.warmup_requests} warm-up, prompts of about ${result.prompt_tokens} tokens, ${result.output_tokens} output tokens asked`));
  // TTFT includes the network's round trip: say how much of it that is.
  print(result.network_rtt_ms !== null ? `network round trip ${result.network_rtt_ms.toFixed(1)} ms (part of every TTFT)` : out.yellow('network round trip not measured'));
  print(table(head, levelRows(result, rented, slo)));
  for (const l of result.levels) {
    if (l.first_error) print(out.yellow(`${levelLabel(l)}: ${l.failed} failed; first error: ${l.first_error}`));
    for (const w of l.warnings) if (!w.includes('requests failed')) print(out.yellow(`${levelLabel(l)}: ${w}`));
  }
  for (const w of result.warnings) print(out.yellow(w));
  const fastest = result.best.by_throughput_level !== null ? result.levels[result.best.by_throughput_level] : undefined;
  const best = [`best throughput at ${fastest ? levelLabel(fastest) : '-'}`];
  const cheapest = result.best.by_cost_level !== null ? result.levels[result.best.by_cost_level] : undefined;
  if (cheapest) best.push(`cheapest per million output tokens at ${levelLabel(cheapest)}`);
  if (slo) {
    const met = result.best.by_slo;
    best.push(met ? `highest throughput meeting ${sloText(result)} for 99% of requests: ${levelLabel(met)}, goodput ${met.goodput_rps.toFixed(2)} req/s${met.usd_per_million_output_tokens !== null ? `, ${formatUsd(met.usd_per_million_output_tokens, 2)}/1M tokens` : ''}` : out.yellow(`no level met ${sloText(result)} for 99% of its requests`));
  }
  print(best.join(' · '));
  if (result.instance) {
    const gpu = result.instance.gpu_name ? `${result.instance.num_gpus ?? 1}× ${result.instance.gpu_name}` : 'GPU unknown';
    print(
      `instance ${result.instance.id} (${gpu}): ${result.instance.released ? out.green('released') : out.yellow('still running')}` +
        ` · cost ${formatUsd(result.cost.cost_usd)} (${formatDuration(result.cost.rented_seconds * 1000)} at $${result.cost.dph_total.toFixed(3)}/h)`,
    );
  } else {
    print('no machine rented (existing llmserver): no price per token');
  }
}

/** One line per finished level (the `serving.level` event's labels), for live progress on stderr. */
export function servingLevelLine(labels: Record<string, string | number | boolean | null>): string {
  const num = (k: string, digits = 1): string => (typeof labels[k] === 'number' ? labels[k].toFixed(digits) : '-');
  const level = labels.concurrency !== null && labels.concurrency !== undefined ? `concurrency ${String(labels.concurrency)}` : labels.request_rate === 'inf' ? 'all at once' : `${String(labels.request_rate ?? '?')} req/s (achieved ${num('achieved_request_rate', 2)})`;
  const parts = [
    level,
    `${String(labels.requests ?? 0)} ok${labels.failed ? `, ${String(labels.failed)} failed` : ''}`,
    `${num('output_tokens_per_s')} output tok/s`,
    `TTFT p50 ${num('ttft_p50_ms')} ms`,
    `TPOT p50 ${num('tpot_p50_ms')} ms`,
  ];
  if (typeof labels.goodput_rps === 'number') parts.push(`goodput ${num('goodput_rps', 2)} req/s`);
  if (typeof labels.usd_per_million_output_tokens === 'number') parts.push(`${formatUsd(labels.usd_per_million_output_tokens, 2)}/1M tokens`);
  if (typeof labels.warnings === 'string') parts.push(`warning: ${labels.warnings}`);
  return parts.join(' · ');
}
