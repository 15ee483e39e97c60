import { Command } from '@commander-js/extra-typings';
import ora from 'ora';
import { DEFAULT_LOG_TAIL_LINES, MAX_LOG_TAIL_LINES } from '../../../shared';
import { SnapshotDocumentError } from '../../snapshots/document';
import { KubeHttpError } from '../../snapshots/kube-http';
import { recordCluster, UnknownNamespaceError, type RecordProgress } from '../../snapshots/record';
import { connectionOf, examples, kubeconfigOf, withConnection, withConnectionOpen } from '../common';
import { CliError, EXIT, UsageError } from '../exit-codes';
import { onInterrupt } from '../interrupt';
import { err, formatBytes, note, print, printJson } from '../output';
import { parseNonNegativeInt } from '../parsers';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function parseLogTail(value: string): number {
  const n = parseNonNegativeInt(value);
  if (n > MAX_LOG_TAIL_LINES) throw new UsageError(`--log-tail-lines is at most ${MAX_LOG_TAIL_LINES}`);
  return n;
}

/** Progress of a recording on stderr: a spinner on a terminal, a line per step otherwise. */
function recordingProgress(): { update(p: RecordProgress): void; stop(): void } {
  const tty = process.stderr.isTTY === true && process.env.TERM !== 'dumb' && (process.stderr.columns ?? 0) > 20;
  const spinner = tty ? ora({ stream: process.stderr, text: 'connecting' }).start() : null;
  const listed: string[] = [];
  let lastLogStep = -1;
  return {
    update(p) {
      let line: string | null = null;
      switch (p.phase) {
        case 'connect':
          line = `recording ${p.server}`;
          break;
        case 'list':
          listed.push(`${p.resource} ${p.count}`);
          line = spinner ? `read ${listed.length} of 17 kinds of object (${p.resource}: ${p.count})` : `  ${p.resource}: ${p.count}`;
          break;
        case 'logs': {
          // Lines: at 0%, every 25% and the end; the spinner: every log.
          const step = p.total === 0 ? 4 : Math.floor((p.done / p.total) * 4);
          if (spinner || step !== lastLogStep) line = `container logs ${p.done}/${p.total}`;
          lastLogStep = step;
          break;
        }
        case 'done':
          line = null;
          break;
      }
      if (line === null) return;
      if (spinner) spinner.text = line;
      else note(line);
    },
    stop() {
      spinner?.stop();
    },
  };
}

/**
 * `snapshot record`: reads the cluster in this process (progress on stderr, the same recorder as
 * POST /v1/snapshots) and stores the snapshot through the app's API (or in-process with --local).
 */
export function snapshotRecordCommand(setExit: (code: number) => void) {
  return withConnection(
    new Command('record')
      .description('record a cluster (objects, events, container logs; never Secrets, env values or config map values) as a snapshot')
      .requiredOption('--name <name>', 'a name for the snapshot')
      .option('--kubeconfig <path>', 'the cluster to record (default $KUBECONFIG, else ~/.kube/config)')
      .option('--namespace <name>', 'record only this namespace (repeat for several; default: all)', collect)
      .option('--log-tail-lines <n>', `last lines kept of each container log (default ${DEFAULT_LOG_TAIL_LINES}, 0 = none)`, parseLogTail)
      .option('--description <text>', 'free text kept with the snapshot'),
  )
    .addHelpText(
      'after',
      examples(
        'benchdesk snapshot record --kubeconfig ~/.kube/config --name "prod, checkout incident"',
        'benchdesk snapshot record --name shop --namespace shop --namespace payments --log-tail-lines 500',
        'benchdesk snapshot record --name nightly --json | jq -r .snapshot_id',
      ),
    )
    .action(async (o) => {
      const kubeconfig = kubeconfigOf(o.kubeconfig);
      const abort = new AbortController();
      const release = onInterrupt({ onInterrupt: () => abort.abort(new Error('recording interrupted')), force: () => process.exit(EXIT.interrupted) });
      const progress = recordingProgress();
      let doc;
      try {
        doc = await recordCluster({
          name: o.name,
          kubeconfig,
          namespaces: o.namespace,
          ...(o.logTailLines !== undefined ? { logTailLines: o.logTailLines } : {}),
          description: o.description,
          signal: abort.signal,
          onProgress: (p) => progress.update(p),
        });
      } catch (e) {
        if (abort.signal.aborted) {
          note('recording interrupted: nothing was stored');
          setExit(EXIT.interrupted);
          return;
        }
        if (e instanceof KubeHttpError) throw new CliError(e.message, e.kind === 'kubeconfig' ? EXIT.usage : EXIT.failure);
        if (e instanceof UnknownNamespaceError) throw new CliError(`${e.message} (--namespace ${e.namespace})`, EXIT.usage);
        if (e instanceof SnapshotDocumentError) throw new CliError(`the cluster answered objects that cannot be kept in a snapshot: ${e.message}`);
        throw e;
      } finally {
        progress.stop();
        release();
      }
      const summary = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.importSnapshot(doc));
      if (o.json) printJson(summary);
      else {
        print(`recorded ${summary.snapshot_id}: ${summary.counts.pods} pods, ${summary.counts.events} events, ${summary.counts.logs} container logs (${formatBytes(summary.log_bytes)}) from ${summary.source} (${formatBytes(summary.size_bytes)})`);
        for (const w of summary.warnings) note(err.yellow(`warning: ${w}`));
        note(err.dim(`replay it: benchdesk snapshot serve ${summary.snapshot_id}`));
      }
      setExit(EXIT.ok);
    });
}
