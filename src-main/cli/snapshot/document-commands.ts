import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command } from '@commander-js/extra-typings';
import { SNAPSHOT_FORMAT, issueInWords, type SnapshotSummary } from '../../../shared';
import { isBenchdeskApiError } from '../../../shared/client';
import { connectionOf, examples, withConnection, withConnectionOpen } from '../common';
import { EXIT, UsageError } from '../exit-codes';
import { err, formatBytes, note, print, printJson } from '../output';

/** `snapshot export` and `snapshot import`: a snapshot as one portable JSON document. */

export function snapshotExportCommand(setExit: (code: number) => void) {
  return withConnection(
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
    });
}

export function snapshotImportCommand(setExit: (code: number) => void) {
  return withConnection(new Command('import').description('store a snapshot document (an export, or one written by hand: see docs/snapshots.md)').argument('<file>', "the document, or '-' for stdin"))
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
    });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
