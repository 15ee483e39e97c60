import { Command } from '@commander-js/extra-typings';
import type { LlmInstanceRequestInput } from '../../../shared';
import { backendFields, examples, runJob, withBackend, withConnection, withJobSubmit, withMarketplace } from '../common';

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
      const target = backendFields(o, 'either use an existing llmserver or rent one');
      const request: LlmInstanceRequestInput = { ...target, ...(o.model ? { model: o.model } : {}) };
      const code = await runJob(o, { kind: 'llm-instance', request }, { target, model: o.model });
      setExit(code);
    });
}
