import { Command } from '@commander-js/extra-typings';
import { connectionOf, examples, withConnection, withConnectionOpen } from '../common';
import { EXIT } from '../exit-codes';
import { print, printJson, table } from '../output';

/** `marketplace-list-models`: the catalog of models benchdesk can size a rented GPU for. */
export function marketplaceListModelsCommand(setExit: (code: number) => void) {
  return withConnection(new Command('marketplace-list-models').description('list the marketplace model catalog: VRAM needed and disk per model'))
    .addHelpText('after', examples('benchdesk marketplace-list-models', 'benchdesk marketplace-list-models --json | jq -r ".models[].name"'))
    .action(async (o) => {
      const catalog = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.listCatalog({}));
      if (o.json) printJson(catalog);
      else {
        print(
          table(
            ['model', 'VRAM', 'disk', 'family', 'notes'],
            catalog.models.map((m) => [m.name, `${(m.vram_mb / 1000).toFixed(1)} GB`, `${m.required_disk_gb} GB`, m.family ?? '-', m.notes ?? '']),
          ),
        );
      }
      setExit(EXIT.ok);
    });
}
