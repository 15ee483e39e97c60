import { Command } from '@commander-js/extra-typings';
import { canonicalSnapshot } from '../../snapshots/document';
import { ReplayIndex } from '../../snapshots/replay/replay-index';
import { startReplay } from '../../snapshots/replay/server';
import { holdServeLease } from '../../snapshots/serve-leases';
import { connectionOf, examples, withConnection, withConnectionOpen } from '../common';
import { EXIT } from '../exit-codes';
import { err, note, print } from '../output';

/** `snapshot serve`: replays one snapshot here as a read-only Kubernetes API until Ctrl-C, so kubectl and any agent can read it. */
export function snapshotServeCommand(setExit: (code: number) => void) {
  return withConnection(new Command('serve').description('serve a snapshot as a read-only Kubernetes API on 127.0.0.1 until Ctrl-C; prints the kubeconfig path').argument('<snapshot-id>'))
    .addHelpText(
      'after',
      examples(
        'benchdesk snapshot serve shop-3f9a1c',
        '# in another terminal, with the path it printed:',
        'KUBECONFIG=/path/it/printed kubectl get pods -A',
      ),
    )
    .action(async (id, o) => {
      // The document is read through the app (or in-process), then served here: the data dir is not held meanwhile,
      // but a lease in it says who serves the snapshot, so it cannot be deleted under us (409 naming this process).
      const { exported, dataDir } = await withConnectionOpen(connectionOf(o), 'read', async (conn) => ({
        exported: await conn.client.exportSnapshot({ snapshot_id: id }),
        dataDir: conn.mode === 'api' ? (await conn.client.getSettings({})).environment.data_dir : conn.dataDir,
      }));
      const releaseLease = await holdServeLease(dataDir, id, `benchdesk snapshot serve (pid ${process.pid})`);
      const replay = await startReplay(new ReplayIndex(canonicalSnapshot(exported)), { contextName: `benchdesk-snapshot-${id}` });
      if (o.json) process.stdout.write(`${JSON.stringify({ snapshot_id: id, url: replay.url, kubeconfig: replay.kubeconfigPath })}\n`);
      else print(replay.kubeconfigPath);
      note(`serving snapshot ${id} (${exported.name}, recorded ${exported.recorded_at}) at ${replay.url}`);
      note(err.dim(`read it:  KUBECONFIG=${replay.kubeconfigPath} kubectl get pods -A`));
      note(err.dim('Ctrl-C stops it (the kubeconfig is removed)'));
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await replay.close();
      await releaseLease();
      note('stopped');
      setExit(EXIT.ok);
    });
}
