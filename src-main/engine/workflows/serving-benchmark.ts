import type { ServingBenchmarkRequest, ServingBenchmarkResult, ValidationIssue } from '../../../shared';
import { loadPromptSource, type PromptSource } from '../../serving/dataset';
import { DatasetFileError } from '../../serving/dataset-file';
import { bestLevels } from '../../serving/summary';
import { JobFailure, type JobContext, type JobHandler } from '../types';
import { backendUrlIssues } from './backend';
import { runOnMachine } from './machine-phases';
import { marketplaceIssues, rentedTemplateIssues, type MarketplaceDeps } from './marketplace-instance';
import { recoverInstances } from './recover-machine';
import { servingManifest } from './serving-manifest';
import { runServingLoadPhase, servingPreflight, type ServingPreflight } from './serving-load';

/**
 * serving-benchmark (design §13, §13b): provision → warmup → load → teardown, each a timed phase.
 * Once the backend answers, before the warm-up loads anything, the prompts are checked against the
 * model's context (a refusal names the numbers); the load phase measures the network's round trip, then runs the levels (concurrency or request rate) on a worker
 * thread; each finished level is a `serving.level` event whose labels carry its figures. On a
 * rented machine each level is priced per million output tokens from the machine's $/h. Teardown
 * runs on success, failure, cancel and a reached spend limit; cancel stops every request in flight.
 */

/** A dataset file is read at submit (422 naming what is wrong), and again when the job runs. */
async function datasetIssues(request: ServingBenchmarkRequest): Promise<ValidationIssue[]> {
  if (request.dataset.kind !== 'file') return [];
  try {
    await loadPromptSource(request);
    return [];
  } catch (error) {
    if (error instanceof DatasetFileError) return [{ path: 'dataset.path', message: error.message }];
    throw error;
  }
}

export function servingBenchmarkWorkflow(deps: MarketplaceDeps): JobHandler<'serving-benchmark'> {
  return {
    kind: 'serving-benchmark',
    async validate(request: ServingBenchmarkRequest) {
      return [...backendUrlIssues(request.backend_url), ...marketplaceIssues(deps, request), ...(await rentedTemplateIssues(deps, request)), ...(await datasetIssues(request))];
    },
    recover: (job, ctx) => recoverInstances(job, ctx, deps),
    run: (ctx) => runServing(ctx, deps),
  };
}

async function promptSource(request: ServingBenchmarkRequest): Promise<PromptSource> {
  try {
    return await loadPromptSource(request);
  } catch (error) {
    // Before anything is rented: a file changed since the job was accepted.
    if (error instanceof DatasetFileError) throw new JobFailure('dataset_invalid', error.message);
    throw error;
  }
}

async function runServing(ctx: JobContext<'serving-benchmark'>, deps: MarketplaceDeps): Promise<ServingBenchmarkResult> {
  const { request } = ctx;
  const startedAt = new Date().toISOString();
  const source = await promptSource(request);
  let checked: ServingPreflight | null = null;
  const { value: load, backend, phases, provisioned, account } = await runOnMachine(ctx, deps, request, {
    phase: 'load',
    prepare: async (client) => {
      checked = await servingPreflight(ctx, client, source);
    },
    run: (_target, instance, client) => {
      if (!checked) throw new Error('the serving checks did not run before the load');
      return runServingLoadPhase(ctx, client, source, instance, deps.dataDir, checked);
    },
  });
  const { levels } = load;
  if (levels.every((l) => l.requests === 0)) {
    const first = levels.find((l) => l.first_error)?.first_error ?? 'unknown error';
    const stopped = levels.find((l) => l.stopped)?.stopped;
    throw new JobFailure('serving_failed', `every request failed; the first error: ${first}${stopped ? ` (the level stopped early: ${stopped})` : ''}`);
  }
  const manifest = servingManifest({ request, api: backend.api, backendVersion: load.backendVersion, modelDigest: load.modelDigest, numCtx: load.numCtx, instance: provisioned, startedAt });
  return {
    model: request.model,
    backend_url: backend.baseUrl,
    backend_api: backend.api,
    network_rtt_ms: load.networkRttMs,
    prompt_tokens: request.prompt_tokens,
    output_tokens: request.output_tokens,
    requests_per_level: request.requests_per_level ?? null,
    duration_s: request.duration_s ?? null,
    warmup_requests: request.warmup_requests,
    dataset: request.dataset,
    slo: request.slo ?? null,
    levels,
    best: bestLevels(levels),
    warnings: load.warnings,
    contract_id: provisioned?.instanceId ?? null,
    phases,
    ...account,
    manifest,
  };
}
