import { isStreamReset, isTerminal, jobErrorWording, type JobRecord } from '../../shared';
import type { Connection } from './connection';
import { EXIT, type ExitCode } from './exit-codes';
import { onInterrupt } from './interrupt';
import { err, note, printJson } from './output';
import { createProgress } from './progress';
import { printResult } from './render';

export type FollowOptions = {
  json: boolean;
  /** With `json`: a succeeded job prints its `result` alone; any other end prints the whole record (its error). */
  jsonResult?: boolean;
  /** On Ctrl-C, also cancel a job that runs on the app (an in-process job is always cancelled). */
  cancelOnInterrupt: boolean;
  /** Ctrl-C was pressed while the job was being submitted: act on it at once. */
  interrupted?: boolean;
};

function releaseNote(job: JobRecord): string {
  const r = job.resources;
  if (!r?.marketplace_instance_id) return 'no machine was rented';
  if (r.marketplace_instance_released) return `its machine (instance ${r.marketplace_instance_id}) was released`;
  return `its machine (instance ${r.marketplace_instance_id}) is NOT confirmed released: check \`benchdesk instances\``;
}

/**
 * Follows a job until it ends: live progress on stderr, then the result on stdout (or, with
 * --json, the final JobRecord exactly as the API gives it). Exit 0 succeeded, 1 failed or
 * cancelled, 130 interrupted.
 *
 * Ctrl-C: a job running in this process is cancelled and its teardown awaited (rented machines
 * released) before exiting; a job on the app keeps running unless --cancel-on-interrupt.
 */
export async function followJob(conn: Connection, jobId: string, options: FollowOptions): Promise<ExitCode> {
  const { client } = conn;
  const first = await client.getJob({ job_id: jobId });
  const progress = createProgress(first);
  const stream = new AbortController();
  let interrupted: 'cancel' | 'detach' | null = null;

  const handler = {
    onInterrupt: () => {
      const cancel = conn.mode === 'local' || options.cancelOnInterrupt;
      interrupted = cancel ? 'cancel' : 'detach';
      if (!cancel) {
        progress.note(`interrupted: job ${jobId} keeps running on the app. Follow it: benchdesk jobs watch ${jobId} · cancel it: benchdesk jobs cancel ${jobId}`);
        stream.abort();
        return;
      }
      progress.note(
        conn.mode === 'local'
          ? `interrupted: cancelling job ${jobId}, which runs in this process; waiting for its cleanup (rented machines are released). Ctrl-C again to quit without waiting.`
          : `interrupted: cancelling job ${jobId} on the app (--cancel-on-interrupt); waiting for its cleanup. Ctrl-C again to stop waiting.`,
      );
      client.cancelJob({ job_id: jobId }).catch((e: unknown) => progress.note(`cancel failed: ${e instanceof Error ? e.message : String(e)}`));
    },
    force: () => {
      progress.note(
        conn.mode === 'local'
          ? `not waiting: job ${jobId} may still hold a rented machine; the next benchdesk start on this data dir releases it (check: benchdesk instances)`
          : `not waiting: the app finishes cancelling job ${jobId}; check it with benchdesk jobs show ${jobId}`,
      );
      progress.stop();
      process.exit(EXIT.interrupted);
    },
  };
  const dispose = onInterrupt(handler);
  if (options.interrupted) handler.onInterrupt();

  try {
    if (!isTerminal(first.status)) {
      try {
        for await (const item of client.streamJobEvents({ job_id: jobId }, { signal: stream.signal })) {
          if (!isStreamReset(item)) {
            progress.event(item);
            continue;
          }
          // The server lost our place in the stream (it was replaced or restarted): ask for the job again.
          progress.note(`${item.message}; checking job ${jobId} again`);
          if (isTerminal((await client.getJob({ job_id: jobId })).status)) break;
        }
      } catch (e) {
        if (!stream.signal.aborted) throw e;
      }
    } else {
      // Already over: replay its events so the transcript looks like a live run.
      const { events } = await client.getJobEvents({ job_id: jobId });
      for (const event of events) progress.event(event);
    }
    progress.stop();
    if (interrupted === 'detach') return EXIT.interrupted;

    const job = await client.getJob({ job_id: jobId });
    if (options.json) printJson(options.jsonResult && job.status === 'succeeded' ? job.result : job);
    if (interrupted === 'cancel') {
      note(err.yellow(`job ${jobId} ${job.status === 'cancelled' ? 'was cancelled' : `ended ${job.status}`}; ${releaseNote(job)}`));
      return EXIT.interrupted;
    }
    if (job.status === 'succeeded') {
      if (!options.json) printResult(job);
      return EXIT.ok;
    }
    if (job.status === 'failed') {
      const wording = jobErrorWording(job.error_code);
      note(err.red(`job ${jobId} failed${wording ? `: ${wording.title}` : ''}${job.error_code ? ` [${job.error_code}]` : ''}: ${job.error ?? job.message}`));
      if (wording) note(wording.next);
      note(err.dim(`events: benchdesk jobs events ${jobId}`));
      return EXIT.failure;
    }
    note(err.yellow(`job ${jobId} was cancelled: ${job.message}; ${releaseNote(job)}`));
    return EXIT.failure;
  } finally {
    dispose();
    progress.stop();
  }
}
