import { Command } from '@commander-js/extra-typings';
import { AGENT_SOURCE_WORDS } from '../../../shared';
import { connectionOf, examples, withConnection, withConnectionOpen } from '../common';
import { EXIT } from '../exit-codes';
import { err, note, print, printJson, table } from '../output';

/** `agents`: the agents a job can ask (the values --agent takes). */
export function agentsCommand(setExit: (code: number) => void) {
  return withConnection(new Command('agents').description('list the agents a job can ask (the names --agent takes): built in, bundled and registered drivers'))
    .addHelpText('after', examples('benchdesk agents', 'benchdesk agents --json | jq -r ".agents[].name"'))
    .action(async (o) => {
      const list = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.listAgents({}));
      if (o.json) printJson(list);
      else {
        print(table(['agent', 'source', 'reached'], list.agents.map((a) => [a.name, AGENT_SOURCE_WORDS[a.source], a.transport])));
        // Ignored driver entries are worth fixing, but they are not the list: stderr.
        for (const warning of list.warnings) note(err.yellow(`ignored driver entry: ${warning}`));
      }
      setExit(EXIT.ok);
    });
}
