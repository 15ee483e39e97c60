import { levelLabel, servingLevels, type ServingBenchmarkRequest, type ServingLevel, type ServingLevelSpec } from '../../../shared';
import type { LlmBackend, ModelFacts } from '../../llm/backend-port';
import type { PromptSource } from '../../serving/dataset';
import { runServingLoad } from '../../serving/generator';
import { modelFacts, measureRtt, planContext, PromptTooLongError } from '../../serving/preflight';
import { openRequestLog, requestLogPath } from '../../serving/request-log';
import { levelLabels } from '../../serving/summary';
import { elapsedMs } from '../../events/timed';
import { JobFailure, type JobContext } from '../types';
import type { ProvisionedInstance } from './marketplace-instance';

/**
 * The serving job's load phase (design §13b): the checks before the first level (the prompts fit
 * the model's context, the network's round trip), then the levels, each a `serving.level` event
 * whose labels carry its figures; every measured request goes to the job's request log.
 */

export type LoadOutcome = {
  levels: ServingLevel[];
  networkRttMs: number | null;
  numCtx: number | null;
  modelDigest: string | null;
  backendVersion: string | null;
  warnings: string[];
};

function specText(spec: ServingLevelSpec): string {
  if (spec.kind === 'concurrency') return `${spec.concurrency} request${spec.concurrency === 1 ? '' : 's'} in flight`;
  const cap = spec.maxConcurrency !== null ? `, at most ${spec.maxConcurrency} in flight` : '';
  return spec.rate === 'inf' ? `all at once${cap}` : `${spec.rate} requests/s (burstiness ${spec.burstiness})${cap}`;
}

export type ServingPreflight = { facts: ModelFacts; numCtx: number | null; warnings: string[] };

/**
 * The context check, before the warm-up loads anything: refused with the numbers
 * (`prompt_too_long`); Ollama's num_ctx otherwise.
 */
export async function servingPreflight(ctx: JobContext<'serving-benchmark'>, backend: LlmBackend, source: PromptSource): Promise<ServingPreflight> {
  const { request } = ctx;
  const { facts, warning } = await ctx.step('serving.context_check', () => modelFacts(backend, request.model, ctx.signal), { model: request.model });
  try {
    const { numCtx } = planContext({ api: backend.api, model: request.model, longest: source.longest(), contextLength: facts.context_length, numCtx: request.num_ctx });
    return { facts, numCtx, warnings: warning ? [warning] : [] };
  } catch (error) {
    if (error instanceof PromptTooLongError) throw new JobFailure(error.code, error.message);
    throw error;
  }
}

export async function runServingLoadPhase(
  ctx: JobContext<'serving-benchmark'>,
  backend: LlmBackend,
  source: PromptSource,
  instance: ProvisionedInstance | null,
  dataDir: string,
  checked: ServingPreflight,
): Promise<LoadOutcome> {
  const { request } = ctx;
  const { facts, numCtx } = checked;
  const warnings = [...checked.warnings];
  const backendVersion = await backend.version({ signal: ctx.signal, timeoutMs: 10_000 }).catch(() => null);
  const rtt = await ctx.step('serving.network_rtt', () => measureRtt(backend, ctx.signal), { backend_url: backend.baseUrl });
  if (rtt.warning) warnings.push(rtt.warning);
  else await ctx.info('serving.network', `network round trip to the server: ${rtt.rttMs?.toFixed(1)} ms (median of 10 small requests)`, { network_rtt_ms: rtt.rttMs });

  const specs = servingLevels(request);
  const total = specs.length;
  const log = await openRequestLog(requestLogPath(dataDir, ctx.job.job_id));
  let levelStarted = 0;
  try {
    const levels = await runServingLoad(
      backend,
      { source, body: { api: backend.api, endpoint: request.endpoint, model: request.model, numCtx, ignoreEos: request.ignore_eos, minTokens: request.min_tokens, temperature: request.temperature, seed: request.seed, engine: facts.engine } },
      planOf(request, instance),
      ctx.signal,
      {
        onRecord: (record) => log.write(record),
        onLevelStart: async (spec, index, requests) => {
          levelStarted = performance.now();
          await ctx.setProgress('load', `${specText(spec)} (level ${index + 1} of ${total})`, Math.round((index / total) * 100));
          const count = requests !== null ? `${requests} measured` : `measured for ${request.duration_s} s`;
          await ctx.emit({
            event: 'serving.level',
            status: 'started',
            message: `level ${index + 1} of ${total}: ${specText(spec)}, ${count} after ${request.warmup_requests} warm-up`,
            labels: { level: index + 1, levels: total, concurrency: spec.kind === 'concurrency' ? spec.concurrency : null, request_rate: spec.kind === 'rate' ? spec.rate : null },
          });
        },
        onLevel: async (level, index) => {
          await ctx.emit(levelEvent(level, index, total, levelStarted));
          await ctx.setProgress('load', `${levelLabel(level)} done (level ${index + 1} of ${total})`, Math.round(((index + 1) / total) * 100));
          await instance?.meter.tick(`level:${index + 1}`);
        },
      },
    );
    if (levels.length < total) warnings.push(`levels ${levels.length + 1} to ${total} were not run: level ${levels.length} measured nothing (${levels.at(-1)?.stopped ?? 'every request failed'})`);
    return { levels, networkRttMs: rtt.rttMs, numCtx, modelDigest: facts.digest, backendVersion, warnings };
  } finally {
    await log.close();
  }
}

function planOf(request: ServingBenchmarkRequest, instance: ProvisionedInstance | null) {
  return {
    levels: servingLevels(request),
    requestsPerLevel: request.requests_per_level ?? null,
    durationS: request.duration_s ?? null,
    warmupRequests: request.warmup_requests,
    dphTotal: instance?.dphTotal ?? null,
    slo: request.slo ?? null,
    seed: request.seed ?? 0,
    requestTimeoutMs: request.request_timeout_s * 1000,
    levelTimeoutMs: request.level_timeout_s * 1000,
  };
}

function levelEvent(level: ServingLevel, index: number, total: number, startedAt: number) {
  const price = level.usd_per_million_output_tokens !== null ? `, $${level.usd_per_million_output_tokens.toFixed(2)} per million output tokens` : '';
  const failed = level.failed > 0 ? `; ${level.failed} failed (first: ${level.first_error ?? 'unknown'})` : '';
  const goodput = level.goodput_rps !== null ? `, goodput ${level.goodput_rps.toFixed(2)} req/s (${((level.slo_attainment ?? 0) * 100).toFixed(1)}% within the SLO)` : '';
  const warned = level.warnings.length > 0 ? `; warning: ${level.warnings.join('; ')}` : '';
  return {
    event: 'serving.level',
    // A level where every request failed measured nothing: an error, with the first failure.
    status: level.requests === 0 ? ('error' as const) : ('ok' as const),
    message: `${levelLabel(level)}: ${level.output_tokens_per_s.toFixed(1)} output tok/s, TTFT p50 ${level.ttft_ms?.p50.toFixed(1) ?? '-'} ms${goodput}${price}${failed}${warned}`,
    duration_ms: elapsedMs(startedAt),
    ...(level.requests === 0 ? { error_type: level.stopped ? 'level_stopped' : 'all_requests_failed' } : {}),
    labels: levelLabels(level, index, total),
  };
}
