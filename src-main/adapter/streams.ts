import { createPushIterable } from '../../shared/client';
import { isTerminal, type JobEvent, type JobStreamItem, type StreamReset } from '../../shared';
import { ProblemError } from '../app/problem-error';
import type { BenchdeskService } from '../app/service-types';
import type { OperationContext } from './types';

const TERMINAL_EVENTS = new Set(['job.succeeded', 'job.failed', 'job.cancelled']);

/**
 * Live events a stream holds for a consumer that is not taking them, when the transport sets no
 * bound. The events themselves are shared with the bus; the queue holds references.
 */
export const DEFAULT_MAX_QUEUED_EVENTS = 1_000;
/** The same in bytes (about what each event's frame takes): a few large events fill it as many small ones do. */
export const DEFAULT_MAX_QUEUED_BYTES = 1024 * 1024;

/** About the bytes of an event's SSE frame, without serialising it. */
export function approximateEventBytes(event: JobEvent): number {
  let size = 240 + (event.message?.length ?? 0) + event.event.length + (event.error_type?.length ?? 0);
  for (const [key, value] of Object.entries(event.labels)) size += key.length + String(value).length + 6;
  return size;
}

/** A resume position this server never handed out (another data dir, a restored backup): a 422, not an empty stream. */
export function assertKnownPosition(service: BenchdeskService, after: number, field: 'after' | 'Last-Event-ID'): void {
  const newest = service.lastSeq();
  if (after <= newest) return;
  throw new ProblemError(
    422,
    'unknown_event_id',
    `${field} ${after} is after the newest event of this server (${newest}): it comes from another server or data directory; reconnect without it`,
    [{ path: field, message: `must be at most ${newest}` }],
  );
}

/** Where a stream resumes: Last-Event-ID (what an SSE client sends when it reconnects) wins over `after`. */
function resumePosition(service: BenchdeskService, input: { after?: number | undefined; last_event_id?: number | undefined }): number | undefined {
  if (input.last_event_id !== undefined) {
    assertKnownPosition(service, input.last_event_id, 'Last-Event-ID');
    return input.last_event_id;
  }
  if (input.after !== undefined) assertKnownPosition(service, input.after, 'after');
  return input.after;
}

/** The queue of live events of one stream: bounded, and unsubscribed when it ends. */
function liveQueue(ctx: OperationContext, subscribe: (push: (event: JobEvent) => void) => () => void) {
  let unsubscribe: () => void = () => undefined;
  const queue = createPushIterable<JobEvent>({
    signal: ctx.signal,
    onClose: () => unsubscribe(),
    maxBuffered: ctx.streamLimit?.maxQueued ?? DEFAULT_MAX_QUEUED_EVENTS,
    maxBufferedSize: ctx.streamLimit?.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES,
    sizeOf: approximateEventBytes,
    onOverflow: ctx.streamLimit?.onOverflow,
  });
  unsubscribe = subscribe((event) => queue.push(event));
  if (queue.ended) unsubscribe();
  return queue;
}

/**
 * One job's events after `after` (or Last-Event-ID), then live, ending after the job's terminal
 * event (the stored log is handed out whole, events after the terminal one included; later ones
 * reach the tenant feed, `GET /v1/events`). We subscribe before reading the backlog and drop duplicates by seq, so no event falls
 * between the two. The backlog is read from the store (every event of the job is there), handed
 * out as the consumer takes it; live events wait in a bounded queue meanwhile. Rejects (404, 422)
 * before yielding anything when the job is not the tenant's or the position is unknown.
 */
export async function openJobEventStream(
  service: BenchdeskService,
  ctx: OperationContext,
  input: { job_id: string; after?: number | undefined; last_event_id?: number | undefined },
): Promise<AsyncIterable<JobStreamItem>> {
  const jobId = input.job_id;
  await service.getJob(ctx.tenantId, jobId);
  const after = resumePosition(service, input) ?? 0;
  const live = liveQueue(ctx, (push) => service.subscribe(ctx.tenantId, jobId, push));

  return (async function* jobEvents(): AsyncGenerator<JobEvent> {
    try {
      let lastSeq = after;
      let ended = false;
      // The whole stored log, also what came after the terminal event (a kept machine's release,
      // its final cost): a page opened after the release shows it.
      for (const event of (await service.getJobEvents(ctx.tenantId, jobId, after)).events) {
        if (event.seq <= lastSeq) continue;
        lastSeq = event.seq;
        yield event;
        if (TERMINAL_EVENTS.has(event.event)) ended = true;
      }
      if (ended) return;
      // Resumed after the terminal event (a client reconnecting): nothing more will come.
      if (isTerminal((await service.getJob(ctx.tenantId, jobId)).status)) {
        const terminal = (await service.getJobEvents(ctx.tenantId, jobId)).events.find((e) => TERMINAL_EVENTS.has(e.event));
        // Not yet appended (the status is written first): it arrives live.
        if (terminal && terminal.seq <= lastSeq) return;
      }
      for await (const event of live.iterable) {
        if (event.seq <= lastSeq) continue;
        lastSeq = event.seq;
        yield event;
        if (TERMINAL_EVENTS.has(event.event)) return;
      }
    } finally {
      live.end();
    }
  })();
}

/**
 * Every job event of the tenant, live. With a resume position, first the events after it that
 * the bus still holds; when some are gone (older than its replay window, or from before a
 * restart), a reset says so instead, and the stream goes on live from the newest seq. The stream
 * never ends by itself.
 */
export function openEventFeed(
  service: BenchdeskService,
  ctx: OperationContext,
  input: { after?: number | undefined; last_event_id?: number | undefined },
): AsyncIterable<JobStreamItem> {
  const after = resumePosition(service, input);
  // Replay and subscribe in the same tick: the bus publishes synchronously, so nothing falls between.
  const replay = after === undefined ? null : service.replayFeed(ctx.tenantId, after);
  const live = liveQueue(ctx, (push) => service.subscribe(ctx.tenantId, null, push));

  return (async function* feed(): AsyncGenerator<JobStreamItem> {
    try {
      let lastSeq = 0;
      if (after !== undefined && replay) {
        lastSeq = after;
        if (!replay.complete) {
          // The stream goes on after the newest event published: later ones arrive live.
          const reset: StreamReset = {
            reset: true,
            seq: Math.max(after, replay.newestSeq),
            after,
            oldest_seq: replay.oldestSeq,
            message: `events after ${after} are no longer held by the server (it keeps the latest ones since it started); fetch the jobs again`,
          };
          lastSeq = reset.seq;
          yield reset;
        }
        for (const event of replay.events) {
          if (event.seq <= lastSeq) continue;
          lastSeq = event.seq;
          yield event;
        }
      }
      for await (const event of live.iterable) {
        if (event.seq <= lastSeq) continue;
        lastSeq = event.seq;
        yield event;
      }
    } finally {
      live.end();
    }
  })();
}
