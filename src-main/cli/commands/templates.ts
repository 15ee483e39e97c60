import { Command } from '@commander-js/extra-typings';
import { connectionOf, examples, withConnection, withConnectionOpen } from '../common';
import { EXIT } from '../exit-codes';
import { err, note, out, print, printJson, table } from '../output';

/** `templates [--search]`: the marketplace's templates by name, with the hash --marketplace-template takes. */
export function templatesCommand(setExit: (code: number) => void) {
  return withConnection(
    new Command('templates')
      .description('list marketplace (Vast.ai) templates by name with their hash, the value --marketplace-template takes; without --search the recommended ones')
      .option('--search <text>', 'a template name (or part of it) or a hash'),
  )
    .addHelpText(
      'after',
      examples('benchdesk templates', 'benchdesk templates --search ollama', 'benchdesk templates --search ollama --json | jq -r ".templates[0].hash_id"'),
    )
    .action(async (o) => {
      const search = o.search?.trim() ?? '';
      const list = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.searchTemplates(search ? { q: search } : {}));
      if (o.json) printJson(list);
      else if (list.templates.length === 0) {
        print(search ? `no template matches "${search}"` : 'no recommended templates');
      } else {
        print(
          table(
            ['template', 'hash', 'image', 'recommended', 'used', 'disk'],
            list.templates.map((t) => [
              t.name ?? out.dim('(no name)'),
              t.hash_id,
              t.image ? `${t.image}${t.tag ? `:${t.tag}` : ''}` : '-',
              t.recommended ? 'yes' : 'no',
              t.count_created === null ? '-' : `${t.count_created.toLocaleString('en-US')}×`,
              t.recommended_disk_space === null ? '-' : `${t.recommended_disk_space} GB`,
            ]),
          ),
        );
      }
      // Why the list could not be read (no marketplace key): not part of the list, so stderr.
      if (list.note && !o.json) note(err.yellow(list.note));
      setExit(EXIT.ok);
    });
}
