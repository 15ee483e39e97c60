import { Command, Option } from '@commander-js/extra-typings';
import type { ServingBenchmarkRequestInput } from '../../../shared';
import { backendFields, examples, runJob, withBackend, withConnection, withJobSubmit, withMarketplace } from '../common';
import { UsageError } from '../exit-codes';
import { parseNonNegativeInt, parsePositiveInt, parseUsd } from '../parsers';
import { parseConcurrency, parseDataset, parsePositiveNumber, parseRatio, parseRequestRates, requestExporter } from '../serving-options';

export { parseConcurrency } from '../serving-options';

const HELP = examples(
  '# an existing Ollama, levels 1 to 16 (default: at least 3 waves of requests per level)',
  'benchdesk run-serving-benchmark --backend-url http://127.0.0.1:11434 -m llama3.1:8b --concurrency 1,2,4,8,16',
  '# a vLLM server (its key from the environment): Poisson arrivals at 2, 8 and 32 req/s, at most 64 in flight,',
  '# goodput against a TTFT and a TPOT objective, the per-request records into a CSV',
  'BENCHDESK_BACKEND_API_KEY=sk-... benchdesk run-serving-benchmark --backend-url http://gpu-box:8000 --backend-api openai \\',
  '    -m Qwen/Qwen2.5-7B-Instruct --request-rate 2,8,32 --max-concurrency 64 --slo-ttft-ms 500 --slo-tpot-ms 50 \\',
  '    --export-requests requests.csv',
  '# ShareGPT prompts, 60 s per level, bursty arrivals',
  'benchdesk run-serving-benchmark --backend-url http://gpu-box:8000 -m Qwen/Qwen2.5-7B-Instruct --dataset ./sharegpt.json \\',
  '    --request-rate 4,inf --burstiness 0.5 --duration 60',
  '# on a rented GPU (released at the end), at most $0.50/h and $2 in all; prices each level per million tokens',
  'benchdesk run-serving-benchmark --marketplace --marketplace-template 4e17788f74f075dd9aab7d0d4427968f \\',
  '    --marketplace-max-dph 0.5 --max-cost 2 -m qwen2.5:7b --prompt-tokens 512 --output-tokens 256 --yes',
  '# for a script: the result record only, on stdout',
  'benchdesk run-serving-benchmark --backend-url http://127.0.0.1:11434 -m llama3.1:8b --json | jq ".levels[] | {concurrency, output_tokens_per_s, network_rtt_ms}"',
);

function servingCommand() {
  return new Command('run-serving-benchmark')
    .description('measure how fast a model is served (Ollama or an OpenAI-compatible engine), as `vllm bench serve` does: TTFT, TPOT, ITL, tokens/s and goodput per level, the network’s round trip, and $ per million output tokens on a rented GPU')
    .requiredOption('-m, --model <name>', 'the model to serve')
    .option('--concurrency <levels>', 'requests in flight at each level, run in this order (default 1,2,4,8)', parseConcurrency)
    .option('--request-rate <rates>', 'instead of --concurrency: requests started per second at each level, or inf (all at once), e.g. 1,4,inf', parseRequestRates)
    .option('--burstiness <shape>', 'with --request-rate: gamma shape of the gaps between requests (1 = Poisson, lower = burstier)', parsePositiveNumber)
    .option('--max-concurrency <n>', 'with --request-rate: at most this many requests in flight', parsePositiveInt)
    .option('--requests <n>', 'measured requests per level, at least its concurrency (default: at least 32 and 3 × the level’s concurrency)', parsePositiveInt)
    .option('--duration <s>', 'instead of --requests: seconds each level starts requests for', parsePositiveNumber)
    .option('--dataset <kind>', 'the prompts: random (default), shipped (a corpus of varied lengths), or a ShareGPT .json / .jsonl file', parseDataset)
    .option('--range-ratio <r>', 'random dataset: lengths drawn from n·(1 ± r)', parseRatio)
    .option('--prompt-tokens <n>', 'random dataset: about how many tokens each prompt has (default 256)', parsePositiveInt)
    .option('--output-tokens <n>', 'tokens each request asks for (default 128)', parsePositiveInt)
    .option('--no-ignore-eos', 'let the model stop before the tokens asked (vLLM, SGLang and llama.cpp honour ignore_eos by default here)')
    .option('--min-tokens <n>', 'the least tokens each request generates (vLLM, SGLang)', parseNonNegativeInt)
    .option('--num-ctx <n>', 'Ollama context window (default: the longest prompt + output tokens + a margin)', parsePositiveInt)
    .addOption(new Option('--endpoint <kind>', 'OpenAI-compatible servers: chat (default) or completions').choices(['chat', 'completions'] as const))
    .option('--slo-ttft-ms <ms>', 'goodput: a request meets the SLO when its TTFT is at most this', parsePositiveNumber)
    .option('--slo-tpot-ms <ms>', 'goodput: … and its TPOT is at most this', parsePositiveNumber)
    .option('--slo-e2e-ms <ms>', 'goodput: … and its end-to-end latency is at most this', parsePositiveNumber)
    .option('--seed <n>', 'seeds the random prompts and the arrival schedule', parseNonNegativeInt)
    .option('--warmup <n>', 'requests before each level, left out of its figures (default 2)', parseNonNegativeInt)
    .option('--export-requests <file>', 'after the job, write its per-request records to FILE (CSV for .csv, else JSONL)')
    .option('--max-cost <usd>', 'spend limit of the rented machine: the job stops and releases it when its cost reaches this', parseUsd)
    .option('--marketplace-stop-instance', 'release the rented machine at the end (default)')
    .option('--no-marketplace-stop-instance', 'keep the rented machine running after the benchmark');
}

type ServingOptions = ReturnType<ReturnType<typeof servingCommand>['opts']>;

/** The workload fields of the request, checked for what the API would refuse with a less helpful message. */
function workloadFields(o: ServingOptions): Partial<ServingBenchmarkRequestInput> {
  if (o.concurrency && o.requestRate) throw new UsageError('give --concurrency or --request-rate, not both (cap a rate level with --max-concurrency)');
  if (!o.requestRate && (o.burstiness !== undefined || o.maxConcurrency !== undefined)) throw new UsageError('--burstiness and --max-concurrency go with --request-rate');
  if (o.requests !== undefined && o.duration !== undefined) throw new UsageError('give --requests or --duration, not both');
  if (o.concurrency && o.requests !== undefined && o.requests < Math.max(...o.concurrency)) {
    throw new UsageError(`--requests ${o.requests} is below the largest --concurrency level ${Math.max(...o.concurrency)}: each level needs at least as many requests as it keeps in flight`);
  }
  let dataset = o.dataset;
  if (o.rangeRatio !== undefined) {
    if (dataset && dataset.kind !== 'random') throw new UsageError('--range-ratio applies to the random dataset');
    dataset = { kind: 'random', range_ratio: o.rangeRatio };
  }
  const slo = { ...(o.sloTtftMs !== undefined ? { ttft_ms: o.sloTtftMs } : {}), ...(o.sloTpotMs !== undefined ? { tpot_ms: o.sloTpotMs } : {}), ...(o.sloE2eMs !== undefined ? { e2e_ms: o.sloE2eMs } : {}) };
  return {
    ...(o.concurrency ? { concurrency: o.concurrency } : {}),
    ...(o.requestRate ? { request_rate: o.requestRate } : {}),
    ...(o.burstiness !== undefined ? { burstiness: o.burstiness } : {}),
    ...(o.maxConcurrency !== undefined ? { max_concurrency: o.maxConcurrency } : {}),
    ...(o.requests !== undefined ? { requests_per_level: o.requests } : {}),
    ...(o.duration !== undefined ? { duration_s: o.duration } : {}),
    ...(dataset ? { dataset } : {}),
    ...(o.promptTokens !== undefined ? { prompt_tokens: o.promptTokens } : {}),
    ...(o.outputTokens !== undefined ? { output_tokens: o.outputTokens } : {}),
    ...(o.ignoreEos === false ? { ignore_eos: false } : {}),
    ...(o.minTokens !== undefined ? { min_tokens: o.minTokens } : {}),
    ...(o.numCtx !== undefined ? { num_ctx: o.numCtx } : {}),
    ...(o.endpoint ? { endpoint: o.endpoint } : {}),
    ...(Object.keys(slo).length > 0 ? { slo } : {}),
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    ...(o.warmup !== undefined ? { warmup_requests: o.warmup } : {}),
  };
}

/** `run-serving-benchmark`: TTFT, TPOT, ITL, throughput and goodput per level, and $ per million tokens when rented. */
export function runServingBenchmarkCommand(setExit: (code: number) => void) {
  return withConnection(withJobSubmit(withBackend(withMarketplace(servingCommand()))))
    .addHelpText('after', HELP)
    .action(async (o) => {
      const target = backendFields(o, 'measure an existing llmserver or rent one');
      const request: ServingBenchmarkRequestInput = {
        ...target,
        model: o.model,
        ...workloadFields(o),
        ...(o.maxCost !== undefined ? { max_cost_usd: o.maxCost } : {}),
      };
      const code = await runJob(o, { kind: 'serving-benchmark', request }, { target, model: o.model }, { jsonResult: true, ...(o.exportRequests ? { afterFollow: requestExporter(o.exportRequests) } : {}) });
      setExit(code);
    });
}
