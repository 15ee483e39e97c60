import type { LatencyStats, ServingBenchmarkResult } from '../../shared';
import { formatDuration, formatUsd, out, print, table } from './output';

/** The serving benchmark's result as a terminal table: one row per concurrency level. */

const ms = (s: LatencyStats | null, key: keyof LatencyStats): string => (s ? `${s[key].toFixed(1)} ms` : '-');
const perS = (v: number | null, unit: string): string => (v === null ? '-' : `${v.toFixed(1)} ${unit}`);

export function printServingResult(result: ServingBenchmarkResult): void {
  const rented = result.instance !== null;
  const head = ['concurrency', 'ok/failed', 'output tok/s', 'req/s', 'TTFT p50', 'TTFT p99', 'TPOT p50', 'ITL p50', 'e2e p50', 'server tok/s', ...(rented ? ['$/1M out'] : [])];
  const rows = result.levels.map((l) => [
    l.concurrency,
    l.failed > 0 ? `${l.requests}/${out.red(String(l.failed))}` : `${l.requests}/0`,
    perS(l.output_tokens_per_s, ''),
    perS(l.request_throughput, ''),
    ms(l.ttft_ms, 'p50'),
    ms(l.ttft_ms, 'p99'),
    ms(l.tpot_ms, 'p50'),
    ms(l.itl_ms, 'p50'),
    ms(l.e2e_ms, 'p50'),
    perS(l.server_tokens_per_s, ''),
    ...(rented ? [l.usd_per_million_output_tokens === null ? '-' : formatUsd(l.usd_per_million_output_tokens, 2)] : []),
  ]);
  print(out.bold(`Serving ${result.model} on ${result.backend_url}`));
  print(out.dim(`${result.requests_per_level} requests per level after ${result.warmup_requests} warm-up, prompts of about ${result.prompt_tokens} tokens, ${result.output_tokens} output tokens each`));
  print(table(head, rows));
  for (const l of result.levels) if (l.first_error) print(out.yellow(`concurrency ${l.concurrency}: ${l.failed} failed; first error: ${l.first_error}`));
  const best = [`best throughput at concurrency ${result.best.by_throughput ?? '-'}`];
  if (result.best.by_cost !== null) best.push(`cheapest per million output tokens at concurrency ${result.best.by_cost}`);
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
  const num = (k: string, digits = 1): string => (typeof labels[k] === 'number' ? (labels[k]).toFixed(digits) : '-');
  const parts = [
    `concurrency ${String(labels.concurrency ?? '?')}`,
    `${String(labels.requests ?? 0)} ok${labels.failed ? `, ${String(labels.failed)} failed` : ''}`,
    `${num('output_tokens_per_s')} output tok/s`,
    `TTFT p50 ${num('ttft_p50_ms')} ms`,
    `TPOT p50 ${num('tpot_p50_ms')} ms`,
  ];
  if (typeof labels.usd_per_million_output_tokens === 'number') parts.push(`${formatUsd(labels.usd_per_million_output_tokens, 2)}/1M tokens`);
  return parts.join(' · ');
}
