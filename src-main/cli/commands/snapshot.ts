import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command } from '@commander-js/extra-typings';
import ora from 'ora';
import { DEFAULT_LOG_TAIL_LINES, MAX_LOG_TAIL_LINES, SNAPSHOT_FORMAT, issueInWords, type SnapshotSummary } from '../../../shared';
import { isBenchdeskApiError } from '../../../shared/client';
import { canonicalSnapshot, SnapshotDocumentError } from '../../snapshots/document';
import { KubeHttpError } from '../../snapshots/kube-http';
import { recordCluster, UnknownNamespaceError, type RecordProgress } from '../../snapshots/record';
import { ReplayIndex } from '../../snapshots/replay/replay-index';
import { startReplay } from '../../snapshots/replay/server';
import { holdServeLease } from '../../snapshots/serve-leases';
import { connectionOf, examples, kubeconfigOf, withConnection, withConnectionOpen } from '../common';
import { CliError, EXIT, UsageError } from '../exit-codes';
import { onInterrupt } from '../interrupt';
import { err, formatAge, formatBytes, note, out, print, printJson, table } from '../output';
import { parseNonNegativeInt } from '../parsers';

/**
 * `snapshot record|list|show|export|import|delete|serve` (design §11). `record` reads the cluster
 * in this process (progress on stderr, the same recorder as POST /v1/snapshots) and stores the
 * snapshot through the app's API (or in-process with --local); `serve` replays one here until
 * Ctrl-C, so kubectl and any agent can read it.
 */

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

  snapshot.addCommand(
    withConnection(
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
      }),
  );

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

  snapshot.addCommand(
    withConnection(
      new Command('export')
        .description(`the whole snapshot as one portable JSON document (${SNAPSHOT_FORMAT}), on stdout or into a file`)
        .argument('<snapshot-id>')
        .option('-o, --output <file>', 'write it to this file (created 0600) instead of stdout'),
    )
      .addHelpText('after', examples('benchdesk snapshot export shop-3f9a1c > shop.snapshot.json', 'benchdesk snapshot export shop-3f9a1c -o shop.snapshot.json'))
      .action(async (id, o) => {
        const doc = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.exportSnapshot({ snapshot_id: id }));
        const text = `${JSON.stringify(doc, null, 2)}\n`;
        if (!o.output) {
          process.stdout.write(text);
        } else {
          const file = path.resolve(o.output);
          await writeFile(file, text, { mode: 0o600 });
          if (o.json) printJson({ snapshot_id: id, file, bytes: Buffer.byteLength(text) });
          else print(`wrote ${file} (${formatBytes(Buffer.byteLength(text))})`);
        }
        setExit(EXIT.ok);
      }),
  );

  snapshot.addCommand(
    withConnection(new Command('import').description('store a snapshot document (an export, or one written by hand: see docs/snapshots.md)').argument('<file>', "the document, or '-' for stdin"))
      .addHelpText('after', examples('benchdesk snapshot import shop.snapshot.json', 'cat crashloop.json | benchdesk snapshot import - --json'))
      .action(async (file, o) => {
        const source = file === '-' ? 'stdin' : path.resolve(file);
        let text: string;
        try {
          text = file === '-' ? await readStdin() : await readFile(source, 'utf8');
        } catch (e) {
          throw new UsageError(`cannot read ${source}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : e instanceof Error ? e.message : String(e)}`);
        }
        let document: unknown;
        try {
          document = JSON.parse(text);
        } catch (e) {
          throw new UsageError(`${source} is not JSON: ${e instanceof Error ? e.message : String(e)}`);
        }
        let summary: SnapshotSummary;
        try {
          summary = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.importSnapshot(document as Parameters<typeof conn.client.importSnapshot>[0]));
        } catch (e) {
          // In a document, where a problem is matters as much as what it is: each line names its path.
          if (!isBenchdeskApiError(e) || e.status !== 422 || !e.problem.errors?.length) throw e;
          if (o.json) printJson(e.problem);
          note(`${err.red('benchdesk:')} ${source} is not a valid snapshot document (${e.problem.errors.length === 1 ? '1 problem' : `${e.problem.errors.length} problems`}; see docs/snapshots.md):`);
          for (const issue of e.problem.errors) note(`  ${issue.path || 'the document'}: ${issueInWords(issue, {})}`);
          setExit(EXIT.usage);
          return;
        }
        if (o.json) printJson(summary);
        else print(`imported ${summary.snapshot_id}: ${summary.name} (${summary.counts.pods} pods, ${summary.counts.events} events, ${summary.counts.logs} container logs)`);
        setExit(EXIT.ok);
      }),
  );

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

  snapshot.addCommand(
    withConnection(new Command('serve').description('serve a snapshot as a read-only Kubernetes API on 127.0.0.1 until Ctrl-C; prints the kubeconfig path').argument('<snapshot-id>'))
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
      }),
  );

  return snapshot;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
