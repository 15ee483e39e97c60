import type { ServingBenchmarkRequest, ServingBenchmarkResult, ServingLevel } from '../../../shared';
import { runServingLoad } from '../../serving/generator';
import { bestLevels, levelLabels } from '../../serving/summary';
import { elapsedMs } from '../../events/timed';
import { JobFailure, type JobContext, type JobHandler } from '../types';
import { backendUrlIssues, llmClient, type BackendTarget } from './backend';
import { runOnMachine } from './machine-phases';
import { marketplaceIssues, type MarketplaceDeps, type ProvisionedInstance } from './marketplace-instance';
import { recoverInstances } from './recover-machine';

/**
 * serving-benchmark (design §13): provision → warmup → load → teardown, each a timed phase. The
 * load phase runs the concurrency levels one after another; each finished level is a
 * `serving.level` event whose labels carry its figures, so front ends show it live. On a rented
 * machine each level is priced per million output tokens from the machine's $/h. Teardown runs on
 * success, failure, cancel and a reached spend limit; cancel aborts every request in flight.
 */

export function servingBenchmarkWorkflow(deps: MarketplaceDeps): JobHandler<'serving-benchmark'> {
  return {
    kind: 'serving-benchmark',
    async validate(request: ServingBenchmarkRequest) {
      return [...backendUrlIssues(request.backend_url), ...marketplaceIssues(deps, request)];
    },
    recover: (job, ctx) => recoverInstances(job, ctx, deps),
    run: (ctx) => runServing(ctx, deps),
  };
}

async function runLoad(ctx: JobContext<'serving-benchmark'>, target: BackendTarget, instance: ProvisionedInstance | null): Promise<ServingLevel[]> {
  const { request } = ctx;
  const total = request.concurrency.length;
  let levelStarted = 0;
  return runServingLoad(
    llmClient(target),
    {
      model: request.model,
      concurrency: request.concurrency,
      requestsPerLevel: request.requests_per_level,
      promptTokens: request.prompt_tokens,
      outputTokens: request.output_tokens,
      warmupRequests: request.warmup_requests,
      dphTotal: instance?.dphTotal ?? null,
    },
    ctx.signal,
    {
      onLevelStart: async (concurrency, index) => {
        levelStarted = performance.now();
        await ctx.setProgress('load', `concurrency ${concurrency} (level ${index + 1} of ${total})`, Math.round((index / total) * 100));
        await ctx.emit({
          event: 'serving.level',
          status: 'started',
          message: `level ${index + 1} of ${total}: ${concurrency} request${concurrency === 1 ? '' : 's'} in flight, ${request.requests_per_level} measured after ${request.warmup_requests} warm-up`,
          labels: { level: index + 1, levels: total, concurrency },
        });
      },
      onLevel: async (level, index) => {
        const price = level.usd_per_million_output_tokens !== null ? `, $${level.usd_per_million_output_tokens.toFixed(2)} per million output tokens` : '';
        const failed = level.failed > 0 ? `; ${level.failed} failed (first: ${level.first_error ?? 'unknown'})` : '';
        await ctx.emit({
          event: 'serving.level',
          // A level where every request failed measured nothing: an error, with the first failure.
          status: level.requests === 0 ? 'error' : 'ok',
          message: `concurrency ${level.concurrency}: ${level.output_tokens_per_s.toFixed(1)} output tok/s, TTFT p50 ${level.ttft_ms?.p50.toFixed(1) ?? '-'} ms${price}${failed}`,
          duration_ms: elapsedMs(levelStarted),
          ...(level.requests === 0 ? { error_type: 'all_requests_failed' } : {}),
          labels: levelLabels(level, index, total),
        });
        await ctx.setProgress('load', `concurrency ${level.concurrency} done (level ${index + 1} of ${total})`, Math.round(((index + 1) / total) * 100));
        await instance?.meter.tick(`level:${level.concurrency}`);
      },
    },
  );
}

async function runServing(ctx: JobContext<'serving-benchmark'>, deps: MarketplaceDeps): Promise<ServingBenchmarkResult> {
  const { request } = ctx;
  const { value: levels, target, phases, provisioned, account } = await runOnMachine(ctx, deps, request, {
    phase: 'load',
    run: (backend, instance) => runLoad(ctx, backend, instance),
  });
  if (levels.every((l) => l.requests === 0)) {
    const first = levels.find((l) => l.first_error)?.first_error ?? 'unknown error';
    throw new JobFailure('serving_failed', `every request failed; the first error: ${first}`);
  }

  return {
    model: request.model,
    backend_url: llmClient(target).baseUrl,
    prompt_tokens: request.prompt_tokens,
    output_tokens: request.output_tokens,
    requests_per_level: request.requests_per_level,
    warmup_requests: request.warmup_requests,
    levels,
    best: bestLevels(levels),
    contract_id: provisioned?.instanceId ?? null,
    phases,
    ...account,
  };
}
