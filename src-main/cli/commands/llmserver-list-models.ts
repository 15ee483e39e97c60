import { Command, Option } from '@commander-js/extra-typings';
import { connectionOf, examples, withConnection, withConnectionOpen } from '../common';
import { EXIT } from '../exit-codes';
import { out, print, printJson } from '../output';
import { modelsTable } from '../render';

/** `llmserver-list-models`: the models of an llmserver, marking the loaded ones with their VRAM. */
export function llmserverListModelsCommand(setExit: (code: number) => void) {
  const cmd = new Command('llmserver-list-models')
    .description('list the models of an llmserver (Ollama), marking the running ones and their VRAM')
    .requiredOption('--backend-url <url>', 'the llmserver, e.g. http://127.0.0.1:11434')
    .addOption(new Option('--backend-type <type>', 'backend type').choices(['llmserver', 'ollama'] as const).default('llmserver' as const));
  return withConnection(cmd)
    .addHelpText('after', examples('benchdesk llmserver-list-models --backend-url http://127.0.0.1:11434', 'benchdesk llmserver-list-models --backend-url http://gpu-box:11434 --json'))
    .action(async (o) => {
      const res = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.listLlmModels({ backend_url: o.backendUrl, backend_type: o.backendType }));
      if (o.json) printJson(res);
      else {
        print(`${res.backend_url}: ${res.models.length} model(s), ${res.running_models.length} running`);
        if (res.models.length + res.running_models.length > 0) print(modelsTable(res.models, res.running_models));
        if (res.running_models.length > 0) print(out.dim('● = loaded in memory'));
      }
      setExit(EXIT.ok);
    });
}
