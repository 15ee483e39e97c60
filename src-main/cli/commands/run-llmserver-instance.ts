import { Command } from '@commander-js/extra-typings';
import type { LlmInstanceRequestInput } from '../../../shared';
import { connectionOf, examples, marketplaceFields, submitAndFollow, withBackend, withConnection, withConnectionOpen, withJobSubmit, withMarketplace } from '../common';
import { UsageError } from '../exit-codes';
import { confirmSpend } from '../spend';

/** `run-llmserver-instance`: an llm-instance job (rent a machine running Ollama, or check an existing one). */
export function runLlmserverInstanceCommand(setExit: (code: number) => void) {
  const cmd = new Command('run-llmserver-instance')
    .alias('run-llm-instance')
    .description('rent a GPU machine running an llmserver (Ollama) with a model, or check an existing llmserver')
    .option('-m, --model <name>', 'model to pull and warm up (sizes the GPU when renting)');
  return withConnection(withJobSubmit(withBackend(withMarketplace(cmd))))
    .addHelpText(
      'after',
      examples(
        '# check an existing llmserver and warm a model',
        'benchdesk run-llmserver-instance --backend-url http://127.0.0.1:11434 -m llama3.1:8b',
        '# rent the cheapest fitting GPU at most $0.50/h with 99% reliability; it stays up until released',
        'benchdesk run-llmserver-instance --marketplace --marketplace-template 4e17788f74f075dd9aab7d0d4427968f \\',
        '    --marketplace-max-dph 0.5 --marketplace-reliability 99 -m qwen2.5:32b --yes',
      ),
    )
    .action(async (o) => {
      const market = marketplaceFields(o);
      if (market.marketplace && o.backendUrl) throw new UsageError('--backend-url and --marketplace exclude each other: either use an existing llmserver or rent one');
      if (!market.marketplace && !o.backendUrl) throw new UsageError('give --backend-url <url> (an existing llmserver) or --marketplace (rent one)');
      const request: LlmInstanceRequestInput = {
        ...market,
        ...(o.model ? { model: o.model } : {}),
        ...(o.backendUrl ? { backend_url: o.backendUrl } : {}),
        backend_type: o.backendType,
        ...(o.llmserverWarmup !== undefined ? { backend_warmup: o.llmserverWarmup } : {}),
      };
      const code = await withConnectionOpen(connectionOf(o), 'run', async (conn) => {
        if (market.marketplace && market.max_dph !== undefined && o.model) {
          await confirmSpend(conn.client, { min_dph: market.min_dph ?? 0, max_dph: market.max_dph, reliability: market.reliability ?? 0.99, model: o.model }, { yes: o.yes === true });
        }
        return submitAndFollow(conn, { kind: 'llm-instance', request, ...(o.idempotencyKey ? { idempotency_key: o.idempotencyKey } : {}) }, {
          json: o.json === true,
          wait: o.wait,
          cancelOnInterrupt: o.cancelOnInterrupt === true,
        });
      });
      setExit(code);
    });
}
