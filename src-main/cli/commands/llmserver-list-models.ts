import { Command, Option } from '@commander-js/extra-typings';
import { backendApiFields, backendApiOption, connectionOf, examples, withConnection, withConnectionOpen } from '../common';
import { EXIT } from '../exit-codes';
import { out, print, printJson } from '../output';
import { modelsTable } from '../render';

/** `llmserver-list-models`: the models of an llmserver, marking the loaded ones with their VRAM. */
export function llmserverListModelsCommand(setExit: (code: number) => void) {
  const cmd = new Command('llmserver-list-models')
    .description('list the models of an llmserver (Ollama, marking the running ones and their VRAM; or an OpenAI-compatible server: the models it serves)')
    .requiredOption('--backend-url <url>', 'the llmserver, e.g. http://127.0.0.1:11434 (Ollama) or http://gpu-box:8000 (vLLM)')
    .addOption(new Option('--backend-type <type>', 'backend type').choices(['llmserver', 'ollama'] as const).default('llmserver' as const))
    .addOption(backendApiOption());
  return withConnection(cmd)
    .addHelpText(
      'after',
      examples(
        'benchdesk llmserver-list-models --backend-url http://127.0.0.1:11434',
        '# a vLLM server started with --api-key: the key from the environment',
        'BENCHDESK_BACKEND_API_KEY=sk-... benchdesk llmserver-list-models --backend-url http://gpu-box:8000 --backend-api openai',
        'benchdesk llmserver-list-models --backend-url http://gpu-box:11434 --json',
      ),
    )
    .action(async (o) => {
      const res = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.listLlmModels({ backend_url: o.backendUrl, backend_type: o.backendType, ...backendApiFields(o) }));
      if (o.json) printJson(res);
      else {
        print(`${res.backend_url} (${res.backend_api === 'openai' ? 'OpenAI-compatible' : 'Ollama'}): ${res.models.length} model(s), ${res.running_models.length} ${res.backend_api === 'openai' ? 'served' : 'running'}`);
        if (res.models.length + res.running_models.length > 0) print(modelsTable(res.models, res.running_models));
        if (res.running_models.length > 0) print(out.dim('● = loaded in memory'));
      }
      setExit(EXIT.ok);
    });
}
