import { Command } from '@commander-js/extra-typings';
import type { BenchmarkRequestInput } from '../../../shared';
import {
  connectionOf,
  examples,
  clusterOf,
  marketplaceFields,
  submitAndFollow,
  withAgent,
  withBackend,
  withConnection,
  withConnectionOpen,
  withJobSubmit,
  withMarketplace,
} from '../common';
import { UsageError } from '../exit-codes';
import { confirmSpend } from '../spend';

/** `run-benchmark`: provision → warm up → analyse → tear down, timed, with cost. */
export function runBenchmarkCommand(setExit: (code: number) => void) {
  const cmd = new Command('run-benchmark')
    .description('benchmark an agent and a model: provision (rent or use a backend) → warm up → analyse → tear down, timed and costed')
    .requiredOption('-m, --model <name>', 'the model to benchmark')
    .option('--marketplace-stop-instance', 'release the rented machine at the end (default)')
    .option('--no-marketplace-stop-instance', 'keep the rented machine running after the benchmark');
  return withConnection(withJobSubmit(withBackend(withMarketplace(withAgent(cmd)))))
    .addHelpText(
      'after',
      examples(
        '# on a rented GPU (released at the end), at most $0.50/h',
        'benchdesk run-benchmark --marketplace --marketplace-template 4e17788f74f075dd9aab7d0d4427968f \\',
        '    --marketplace-max-dph 0.5 --marketplace-reliability 98 -m qwen2.5:32b -q "Why is the shop down?" --yes',
        '# on an existing llmserver, without warm-up',
        'benchdesk run-benchmark --backend-url http://127.0.0.1:11434 -m llama3.1:8b -q "Which pods are unhealthy?" --no-llmserver-warmup',
      ),
    )
    .action(async (o) => {
      const market = marketplaceFields(o);
      if (market.marketplace && o.backendUrl) throw new UsageError('--backend-url and --marketplace exclude each other: benchmark an existing llmserver or rent one');
      if (!market.marketplace && !o.backendUrl) throw new UsageError('give --backend-url <url> (an existing llmserver) or --marketplace (rent one)');
      const request: BenchmarkRequestInput = {
        ...market,
        question: o.question,
        model: o.model,
        agent: o.agent,
        ...clusterOf(o),
        ...(o.backendUrl ? { backend_url: o.backendUrl } : {}),
        backend_type: o.backendType,
        ...(o.llmserverWarmup !== undefined ? { backend_warmup: o.llmserverWarmup } : {}),
        ...(o.marketplaceStopInstance !== undefined ? { marketplace_stop_instance: o.marketplaceStopInstance } : {}),
      };
      const code = await withConnectionOpen(connectionOf(o), 'run', async (conn) => {
        if (market.marketplace && market.max_dph !== undefined) {
          await confirmSpend(conn.client, { min_dph: market.min_dph ?? 0, max_dph: market.max_dph, reliability: market.reliability ?? 0.99, model: o.model }, { yes: o.yes === true });
        }
        return submitAndFollow(conn, { kind: 'benchmark', request, ...(o.idempotencyKey ? { idempotency_key: o.idempotencyKey } : {}) }, {
          json: o.json === true,
          wait: o.wait,
          cancelOnInterrupt: o.cancelOnInterrupt === true,
        });
      });
      setExit(code);
    });
}
