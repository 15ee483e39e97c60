import { Command, InvalidArgumentError } from '@commander-js/extra-typings';
import type { ServingBenchmarkRequestInput } from '../../../shared';
import { backendFields, examples, runJob, withBackend, withConnection, withJobSubmit, withMarketplace } from '../common';
import { UsageError } from '../exit-codes';
import { parseNonNegativeInt, parsePositiveInt, parseUsd } from '../parsers';

/** `--concurrency 1,2,4,8` → [1, 2, 4, 8]: whole numbers ≥ 1, comma-separated. */
export function parseConcurrency(value: string): number[] {
  const parts = value.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => !/^\d+$/.test(p) || Number(p) < 1)) {
    throw new InvalidArgumentError('must be comma-separated whole numbers ≥ 1 (requests in flight per level), e.g. 1,2,4,8');
  }
  return parts.map(Number);
}

/** `run-serving-benchmark`: TTFT, TPOT, ITL and throughput per concurrency level, and $ per million tokens when rented. */
export function runServingBenchmarkCommand(setExit: (code: number) => void) {
  const cmd = new Command('run-serving-benchmark')
    .description('measure how fast a model is served under concurrent load: TTFT, TPOT, ITL and tokens/s per concurrency level, and $ per million output tokens on a rented GPU')
    .requiredOption('-m, --model <name>', 'the model to serve')
    .option('--concurrency <levels>', 'requests in flight at each level, run in this order (default 1,2,4,8)', parseConcurrency)
    .option('--requests <n>', 'measured requests per level, at least the largest level (default 32)', parsePositiveInt)
    .option('--prompt-tokens <n>', 'about how many tokens each prompt has (default 256)', parsePositiveInt)
    .option('--output-tokens <n>', 'tokens each request generates (default 128)', parsePositiveInt)
    .option('--warmup <n>', 'requests before each level, left out of its figures (default 2)', parseNonNegativeInt)
    .option('--max-cost <usd>', 'spend limit of the rented machine: the job stops and releases it when its cost reaches this', parseUsd)
    .option('--marketplace-stop-instance', 'release the rented machine at the end (default)')
    .option('--no-marketplace-stop-instance', 'keep the rented machine running after the benchmark');
  return withConnection(withJobSubmit(withBackend(withMarketplace(cmd))))
    .addHelpText(
      'after',
      examples(
        '# an existing llmserver, levels 1 to 16, 64 requests each',
        'benchdesk run-serving-benchmark --backend-url http://127.0.0.1:11434 -m llama3.1:8b --concurrency 1,2,4,8,16 --requests 64',
        '# on a rented GPU (released at the end), at most $0.50/h and $2 in all; prices each level per million tokens',
        'benchdesk run-serving-benchmark --marketplace --marketplace-template 4e17788f74f075dd9aab7d0d4427968f \\',
        '    --marketplace-max-dph 0.5 --max-cost 2 -m qwen2.5:7b --prompt-tokens 512 --output-tokens 256 --yes',
        '# for a script: the result record only, on stdout',
        'benchdesk run-serving-benchmark --backend-url http://127.0.0.1:11434 -m llama3.1:8b --json | jq ".levels[] | {concurrency, output_tokens_per_s}"',
      ),
    )
    .action(async (o) => {
      const target = backendFields(o, 'measure an existing llmserver or rent one');
      const levels = o.concurrency;
      if (levels && o.requests !== undefined && o.requests < Math.max(...levels)) {
        throw new UsageError(`--requests ${o.requests} is below the largest --concurrency level ${Math.max(...levels)}: each level needs at least as many requests as it keeps in flight`);
      }
      const request: ServingBenchmarkRequestInput = {
        ...target,
        model: o.model,
        ...(levels ? { concurrency: levels } : {}),
        ...(o.requests !== undefined ? { requests_per_level: o.requests } : {}),
        ...(o.promptTokens !== undefined ? { prompt_tokens: o.promptTokens } : {}),
        ...(o.outputTokens !== undefined ? { output_tokens: o.outputTokens } : {}),
        ...(o.warmup !== undefined ? { warmup_requests: o.warmup } : {}),
        ...(o.maxCost !== undefined ? { max_cost_usd: o.maxCost } : {}),
      };
      const code = await runJob(o, { kind: 'serving-benchmark', request }, { target, model: o.model }, { jsonResult: true });
      setExit(code);
    });
}
