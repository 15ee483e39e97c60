import { useMemo } from 'react';
import type { JobEvent, ServingBenchmarkRequest, ServingBenchmarkResult } from '../../../../shared';
import { Panel, Stat } from '../../../components/Page';
import { Notice } from '../../../components/States';
import { useNow } from '../../../components/useNow';
import { formatCount, formatDph, formatMs, formatRate, formatReqRate, formatUsd } from '../../../lib/format';
import { phaseBars } from '../phases';
import { Timeline } from '../parts';
import { useSweepOfJob } from '../SweepOfJob';
import { GoodputChart, LatencyChart, ThroughputChart } from './ServingCharts';
import { ServingExports } from './ServingExports';
import { ServingLevelsTable } from './ServingLevelsTable';
import { bestRows, isRateRun, rowName, servingRows, type ServingRow } from './serving-model';
import type { KindViewProps } from './types';
import './serving.css';

/** The network's round trip, live from its event, then from the result. */
function networkRtt(result: ServingBenchmarkResult | null, events: readonly JobEvent[]): number | null {
  if (result) return result.network_rtt_ms;
  const e = events.find((x) => x.event === 'serving.network');
  return typeof e?.labels.network_rtt_ms === 'number' ? e.labels.network_rtt_ms : null;
}

/** Which API the server speaks: the result's, or the detection's event while the job runs. */
function spokenApi(result: ServingBenchmarkResult | null, events: readonly JobEvent[], request: ServingBenchmarkRequest): string | null {
  const api = result?.backend_api ?? events.find((x) => x.event === 'llmserver.api')?.labels.backend_api ?? (request.backend_api === 'auto' ? null : request.backend_api);
  if (api === 'openai') return `OpenAI-compatible${result?.manifest?.backend_version ? ` (${result.manifest.backend_version})` : ''}`;
  if (api === 'ollama') return `Ollama${result?.manifest?.backend_version ? ` ${result.manifest.backend_version}` : ''}`;
  return null;
}

/** Every warning of the run, each level's named: shorter answers than asked, a level stopped early, the network unmeasured. */
function Warnings({ rows, result, rate }: { rows: readonly ServingRow[]; result: ServingBenchmarkResult | null; rate: boolean }) {
  // The same words for several levels are said once, naming them all.
  const byText = new Map<string, string[]>();
  for (const r of rows) for (const w of r.warnings) byText.set(w, [...(byText.get(w) ?? []), rowName(r, rate)]);
  const lines = [...[...byText].map(([w, levels]) => `${levels.join(', ')}: ${w}`), ...(result?.warnings ?? [])];
  if (lines.length === 0) return null;
  return (
    <Notice tone="warn" testId="serving-warnings">
      <p>
        <strong>Read these figures with care:</strong>
      </p>
      {lines.map((l) => (
        <p key={l}>{l}</p>
      ))}
    </Notice>
  );
}

function sloText(slo: ServingBenchmarkRequest['slo']): string {
  if (!slo) return '';
  return [slo.ttft_ms !== undefined ? `TTFT ≤ ${formatMs(slo.ttft_ms)}` : null, slo.tpot_ms !== undefined ? `TPOT ≤ ${formatMs(slo.tpot_ms)}` : null, slo.e2e_ms !== undefined ? `end-to-end ≤ ${formatMs(slo.e2e_ms)}` : null]
    .filter(Boolean)
    .join(', ');
}

/**
 * serving-benchmark: the phases, the best levels (by throughput, by price, within the SLO), the
 * network's round trip beside TTFT, the run's warnings, output tokens/s, goodput, TTFT and TPOT
 * against the levels (with the SLO's bounds), and every level's figures. Levels fill in as they
 * finish (pushed `serving.level` events); every requested level has its row and its place on the
 * charts from the start, so nothing moves.
 */
export function ServingView({ job, events, terminal }: KindViewProps<'serving-benchmark'>) {
  const now = useNow();
  const result = job.result;
  const r = job.request;
  const rate = isRateRun(r);
  const rows = useMemo(() => servingRows(r, result, events, terminal), [r, result, events, terminal]);
  const resultPhases = result?.phases ?? null;
  const bars = useMemo(() => phaseBars(events, resultPhases, terminal ? 0 : now), [events, resultPhases, terminal, now]);
  const { fastest, cheapest, bySlo } = bestRows(rows);
  const priced = r.marketplace;
  const rtt = networkRtt(result, events);
  const api = spokenApi(result, events, r);
  // A sweep's job runs on the sweep's rented machine: the sweep prices its tokens at that machine's $/h.
  const ofSweep = useSweepOfJob(job);
  const sweepPrice = !priced && ofSweep?.machine?.dph_total !== undefined ? { usd: ofSweep.cell.usd_per_million_output_tokens, dph: ofSweep.machine.dph_total, gpu: ofSweep.cell.gpu } : null;
  const finished = rows.filter((x) => x.state === 'done' || x.state === 'failed').length;
  const count = r.requests_per_level !== undefined ? formatCount(r.requests_per_level, 'request') : r.duration_s !== undefined ? `${r.duration_s} s` : 'several waves of requests';
  const where = r.marketplace ? 'the rented machine' : ofSweep ? `the sweep's ${ofSweep.cell.gpu} machine` : (r.backend_url ?? 'the backend');

  return (
    <>
      <Warnings rows={rows} result={result} rate={rate} />
      <div className="grid-2 job-kind-grid">
        <Panel title="Phases">{bars.length > 0 ? <Timeline bars={bars} /> : <p className="muted">{terminal ? 'No phase ran.' : 'No phase has started yet.'}</p>}</Panel>
        <Panel title="Best levels" testId="serving-best">
          <div className="stats">
            <Stat label="Most output tokens/s" value={fastest ? formatRate(fastest.outputTokensPerS) : '—'} hint={fastest ? `at ${rowName(fastest, rate)}` : finished === 0 ? 'after the first level' : 'no level succeeded'} />
            {sweepPrice ? (
              <Stat
                label="Per 1M output tokens"
                value={sweepPrice.usd !== undefined ? formatUsd(sweepPrice.usd) : '—'}
                hint={sweepPrice.usd !== undefined ? `at the fastest level, on the sweep's ${sweepPrice.gpu} at ${formatDph(sweepPrice.dph)}` : `priced by the sweep when the cell ends (${sweepPrice.gpu} at ${formatDph(sweepPrice.dph)})`}
              />
            ) : (
              <Stat label="Cheapest per 1M tokens" value={priced ? formatUsd(cheapest?.usdPerMillion) : 'not priced'} hint={priced ? (cheapest ? `at ${rowName(cheapest, rate)}` : 'after the first level') : 'an existing backend has no $/h; rent a machine to price tokens'} />
            )}
            <Stat label="TTFT p50 there" value={formatMs(fastest?.ttftP50)} hint={rtt !== null ? `of which the network round trip is ${formatMs(rtt)}` : undefined} />
            <Stat label="Network round trip" value={formatMs(rtt)} hint="median of 10 small requests before the first level: part of every TTFT" testId="serving-rtt" />
            {r.slo ? (
              <Stat
                label={`Best within the SLO (${sloText(r.slo)})`}
                value={bySlo ? formatReqRate(bySlo.goodput) : '—'}
                hint={bySlo ? `goodput at ${rowName(bySlo, rate)}, ${formatRate(bySlo.outputTokensPerS)}${bySlo.usdPerMillion !== null ? `, ${formatUsd(bySlo.usdPerMillion)} per 1M tokens` : ''}` : finished === 0 ? 'after the first level' : 'no level met it for 99% of its requests'}
                testId="serving-by-slo"
              />
            ) : null}
            <Stat label="Levels measured" value={`${finished} of ${rows.length}`} hint={`${count} each after ${formatCount(r.warmup_requests, 'warm-up request')}`} />
          </div>
          <p className="muted serving-shape">
            {r.dataset.kind === 'random' ? `Prompts of about ${formatCount(r.dataset.input_tokens ?? r.prompt_tokens, 'token')}, ${formatCount(r.dataset.output_tokens ?? r.output_tokens, 'output token')} asked per request` : r.dataset.kind === 'shipped' ? 'Prompts of the shipped corpus' : `Prompts from ${r.dataset.path}`}, streamed from {where}
            {api ? ` (${api})` : ''}.
          </p>
        </Panel>
      </div>
      <div className="grid-2 job-kind-grid">
        <Panel title={`Output tokens/s against ${rate ? 'request rate' : 'concurrency'}`}>
          <ThroughputChart rows={rows} rate={rate} />
        </Panel>
        <Panel title={r.slo ? 'Goodput: requests/s within the SLO' : 'Requests/s'}>
          <GoodputChart rows={rows} rate={rate} slo={r.slo !== undefined} />
        </Panel>
        <Panel title="Time to first token">
          <LatencyChart rows={rows} rate={rate} which="ttft" slo={r.slo?.ttft_ms ?? null} rttMs={rtt} />
        </Panel>
        <Panel title="Time per output token">
          <LatencyChart rows={rows} rate={rate} which="tpot" slo={r.slo?.tpot_ms ?? null} rttMs={null} />
        </Panel>
      </div>
      <Panel title="Levels">
        <ServingLevelsTable rows={rows} priced={priced} slo={r.slo !== undefined} rate={rate} />
        {terminal ? <ServingExports jobId={job.job_id} /> : null}
      </Panel>
    </>
  );
}
