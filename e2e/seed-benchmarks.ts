import { JobRecordSchema, StoredRequestSchemas, type JobRecord } from '../shared';
import { openJobStore } from '../src-main/store/job-store';

/** The question the seeded runs all asked (Compare's "all runs of a question"). */
export const SEEDED_QUESTION = 'Why is the payments deployment crash-looping after the rollout?';

/** Three models × two GPUs; each group's speed and cost are its own, with a little run-to-run noise. */
const GROUPS = [
  { model: 'llama3.1:8b', gpu: 'RTX 4090', dph: 0.42, tps: 95, analysisS: 14 },
  { model: 'llama3.1:8b', gpu: 'RTX 3090', dph: 0.24, tps: 61, analysisS: 21 },
  { model: 'qwen2.5:7b', gpu: 'RTX 4090', dph: 0.42, tps: 104, analysisS: 12 },
  { model: 'qwen2.5:7b', gpu: 'RTX 3090', dph: 0.24, tps: 66, analysisS: 19 },
  { model: 'mistral-nemo:12b-instruct-2407-q4_K_M', gpu: 'A100 SXM4 80GB', dph: 1.1, tps: 88, analysisS: 15 },
  { model: 'mistral-nemo:12b-instruct-2407-q4_K_M', gpu: 'RTX 3090', dph: 0.24, tps: 40, analysisS: 30 },
] as const;

/**
 * Writes `n` succeeded rented benchmarks of one question into a data dir's job store (before a
 * server opens it): six model × GPU groups, runs spread over the last hours. Deterministic noise,
 * so the figures (and what Compare marks best) are the same on every run.
 */
export async function seedBenchmarks(dataDir: string, n: number): Promise<JobRecord[]> {
  const store = await openJobStore({ dataDir, logger: { info: () => undefined, warn: () => undefined }, releaseLockOnExit: false });
  const start = Date.now() - n * 120_000;
  const jobs: JobRecord[] = [];
  for (let i = 0; i < n; i++) {
    const g = GROUPS[i % GROUPS.length] ?? GROUPS[0];
    // ±8 % noise on the run itself, ±20 % on renting the machine: the same for a given i.
    const noise = 1 + (((i * 37) % 17) - 8) / 100;
    const rentNoise = 1 + (((i * 53) % 21) - 10) / 50;
    const provisionMs = 42_000 * rentNoise;
    const warmupMs = 6_000 * noise;
    const analysisMs = g.analysisS * 1000 * noise;
    const teardownMs = 3_000;
    const totalMs = provisionMs + warmupMs + analysisMs + teardownMs;
    const created = start + i * 120_000;
    const at = (ms: number) => new Date(created + ms).toISOString();
    const request = StoredRequestSchemas.benchmark.parse({ question: SEEDED_QUESTION, model: g.model, marketplace: true, template_hash: '4e17788f74f075dd9aab7d0d4427968f', min_dph: 0, max_dph: 2 });
    const phases = [
      { name: 'provision', status: 'ok', started_at: at(500), duration_ms: provisionMs },
      { name: 'warmup', status: 'ok', started_at: at(500 + provisionMs), duration_ms: warmupMs },
      { name: 'analysis', status: 'ok', started_at: at(500 + provisionMs + warmupMs), duration_ms: analysisMs },
      { name: 'teardown', status: 'ok', started_at: at(500 + provisionMs + warmupMs + analysisMs), duration_ms: teardownMs },
    ];
    const rentedSeconds = totalMs / 1000;
    const job = JobRecordSchema.parse({
      job_id: `cmp-${String(i).padStart(3, '0')}-${g.gpu.replace(/\W+/g, '').toLowerCase()}`,
      tenant_id: 'default',
      kind: 'benchmark',
      status: 'succeeded',
      message: 'done',
      created_at: at(0),
      started_at: at(500),
      finished_at: at(500 + totalMs),
      updated_at: at(500 + totalMs),
      request,
      progress: null,
      result: {
        answer: `payments-api is in CrashLoopBackOff: the new image reads DATABASE_URL, which the rollout did not set (run ${i}).`,
        result_type: 'text',
        artifacts: [],
        metadata: { agent: 'builtin', model: g.model, steps: 3 + (i % 3), tool_calls: 2 + (i % 4), prompt_tokens: 1800 + i * 7, completion_tokens: 160 + (i % 9) * 5, tokens_per_second: g.tps * noise, duration_ms: analysisMs },
        model_name: g.model,
        backend_url: `http://127.0.0.1:${41000 + i}`,
        contract_id: 7_000_000 + i,
        phases,
        cost: { dph_total: g.dph, rented_seconds: rentedSeconds, cost_usd: Math.round(((g.dph * rentedSeconds) / 3600) * 1e6) / 1e6 },
        instance: { id: 7_000_000 + i, gpu_name: g.gpu, num_gpus: 1, released: true },
        teardown: null,
      },
      error: null,
      error_code: null,
      resources: { marketplace_instance_id: 7_000_000 + i, marketplace_instance_released: true, dph_total: g.dph, rented_at: at(500) },
    });
    jobs.push(job);
  }
  for (const j of jobs) await store.createJob(j);
  await store.close();
  return jobs;
}
