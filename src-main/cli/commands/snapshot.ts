import { Command } from '@commander-js/extra-typings';
import type { SnapshotSummary } from '../../../shared';
import { connectionOf, examples, withConnection, withConnectionOpen } from '../common';
import { EXIT } from '../exit-codes';
import { formatAge, formatBytes, out, print, printJson, table } from '../output';
import { snapshotExportCommand, snapshotImportCommand } from '../snapshot/document-commands';
import { snapshotRecordCommand } from '../snapshot/record-command';
import { snapshotServeCommand } from '../snapshot/serve-command';

/**
 * `snapshot record|list|show|export|import|delete|serve` (design §11). `record` reads the cluster
 * in this process (progress on stderr, the same recorder as POST /v1/snapshots) and stores the
 * snapshot through the app's API (or in-process with --local); `serve` replays one here until
 * Ctrl-C, so kubectl and any agent can read it. Those three and export/import live in ../snapshot/.
 */

function printSummary(s: SnapshotSummary): void {
  const now = Date.now();
  print(`${out.bold(s.name)}  (${s.snapshot_id})`);
  if (s.description) print(s.description);
  print(`recorded   ${s.recorded_at} (${formatAge(s.recorded_at, now)} ago) from ${s.source}${s.kubernetes_version ? `, Kubernetes ${s.kubernetes_version}` : ''}`);
  print(`stored     ${s.stored_at} (${s.origin}), ${formatBytes(s.size_bytes)}`);
  print(`namespaces ${s.namespaces.join(', ') || '-'}`);
  const counts = Object.entries(s.counts).filter(([, n]) => n > 0);
  print(`holds      ${counts.map(([k, n]) => `${n} ${k}`).join(', ') || 'nothing'}`);
  print(`log text   ${formatBytes(s.log_bytes)}`);
  if (s.used_by.length > 0) print(`used by    ${s.used_by.join(', ')}`);
  for (const w of s.warnings) print(out.yellow(`warning    ${w}`));
}

export function snapshotCommand(setExit: (code: number) => void) {
  const snapshot = new Command('snapshot')
    .description('recorded clusters: record one, list, show, export, import, delete, and serve one as a read-only Kubernetes API')
    .addHelpText(
      'after',
      examples(
        'benchdesk snapshot record --kubeconfig ~/.kube/config --name "checkout incident"',
        'benchdesk snapshot list',
        'benchdesk snapshot serve checkout-incident-3f9a1c',
        'benchdesk run-agentic-agent -q "What is broken?" -m llama3.1:8b --backend-url http://127.0.0.1:11434 --snapshot checkout-incident-3f9a1c',
      ),
    );

  snapshot.addCommand(snapshotRecordCommand(setExit));

  snapshot.addCommand(
    withConnection(new Command('list').description('the snapshots of this install, newest recording first'))
      .addHelpText('after', examples('benchdesk snapshot list', 'benchdesk snapshot list --json | jq -r ".snapshots[].snapshot_id"'))
      .action(async (o) => {
        const res = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.listSnapshots({}));
        if (o.json) printJson(res);
        else if (res.snapshots.length === 0) print('no snapshots: record one with benchdesk snapshot record --name <name> --kubeconfig <path>');
        else {
          const now = Date.now();
          print(
            table(
              ['snapshot', 'name', 'recorded', 'source', 'pods', 'events', 'logs', 'size', 'used by'],
              res.snapshots.map((s) => [
                s.snapshot_id,
                s.name,
                `${formatAge(s.recorded_at, now)} ago`,
                s.source,
                s.counts.pods,
                s.counts.events,
                s.counts.logs,
                formatBytes(s.size_bytes),
                s.used_by.join(', ') || '-',
              ]),
            ),
          );
        }
        setExit(EXIT.ok);
      }),
  );

  snapshot.addCommand(
    withConnection(new Command('show').description('one snapshot: where and when it was recorded, what it holds, who uses it').argument('<snapshot-id>'))
      .addHelpText('after', examples('benchdesk snapshot show shop-3f9a1c', 'benchdesk snapshot show shop-3f9a1c --json | jq .counts'))
      .action(async (id, o) => {
        const s = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.getSnapshot({ snapshot_id: id }));
        if (o.json) printJson(s);
        else printSummary(s);
        setExit(EXIT.ok);
      }),
  );

  snapshot.addCommand(snapshotExportCommand(setExit));

  snapshot.addCommand(snapshotImportCommand(setExit));

  snapshot.addCommand(
    withConnection(new Command('delete').description('delete a snapshot (refused while a suite or a running job uses it)').argument('<snapshot-id>'))
      .addHelpText('after', examples('benchdesk snapshot delete shop-3f9a1c'))
      .action(async (id, o) => {
        await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.deleteSnapshot({ snapshot_id: id }));
        if (o.json) printJson({ snapshot_id: id, deleted: true });
        else print(`deleted ${id}`);
        setExit(EXIT.ok);
      }),
  );

  snapshot.addCommand(snapshotServeCommand(setExit));

  return snapshot;
}
