import { createPushIterable } from '../../shared/client';
import { isTerminal, type JobEvent } from '../../shared';
import type { BenchdeskService } from '../app/service-types';
import type { OperationContext } from './types';

const TERMINAL_EVENTS = new Set(['job.succeeded', 'job.failed', 'job.cancelled']);

/**
 * One job's events from `after` on, then live, ending after the job's terminal event. We subscribe
 * before reading the backlog and drop duplicates by seq, so no event falls between the two.
 * Rejects (404) before yielding anything when the job is not the tenant's.
 */
export async function openJobEventStream(
  service: BenchdeskService,
  ctx: OperationContext,
  jobId: string,
  after: number,
): Promise<AsyncIterable<JobEvent>> {
  await service.getJob(ctx.tenantId, jobId);
  let unsubscribe: () => void = () => undefined;
  const queue = createPushIterable<JobEvent>({ signal: ctx.signal, onClose: () => unsubscribe() });
  let lastSeq = after;
  let backlogSent = false;
  const early: JobEvent[] = [];

  const send = (event: JobEvent) => {
    if (queue.ended || event.seq <= lastSeq) return;
    lastSeq = event.seq;
    queue.push(event);
    if (TERMINAL_EVENTS.has(event.event)) queue.end();
  };
  unsubscribe = service.subscribe(ctx.tenantId, jobId, (event) => {
    if (backlogSent) send(event);
    else early.push(event);
  });
  if (queue.ended) unsubscribe();

  void (async () => {
    const backlog = await service.getJobEvents(ctx.tenantId, jobId, after);
    for (const event of backlog.events) send(event);
    backlogSent = true;
    for (const event of early.sort((a, b) => a.seq - b.seq)) send(event);
    // Resumed after the terminal event (a client reconnecting): nothing more will come.
    if (!queue.ended && isTerminal((await service.getJob(ctx.tenantId, jobId)).status)) {
      const all = await service.getJobEvents(ctx.tenantId, jobId);
      const terminal = all.events.find((e) => TERMINAL_EVENTS.has(e.event));
      // Not yet appended (the status is written first): it arrives through the subscription.
      if (terminal && terminal.seq <= lastSeq) queue.end();
    }
  })().catch((err: unknown) => queue.end(err));
  return queue.iterable;
}

/**
 * Every job event of the tenant, live. With `after`, first the recent events after that seq that
 * the bus still holds (resume); the stream never ends by itself.
 */
export function openEventFeed(service: BenchdeskService, ctx: OperationContext, after: number | undefined): AsyncIterable<JobEvent> {
  let unsubscribe: () => void = () => undefined;
  const queue = createPushIterable<JobEvent>({ signal: ctx.signal, onClose: () => unsubscribe() });
  if (queue.ended) return queue.iterable;
  let lastSeq = 0;
  const send = (event: JobEvent) => {
    if (event.seq <= lastSeq) return;
    lastSeq = event.seq;
    queue.push(event);
  };
  // Replay and subscribe in the same tick: the bus publishes synchronously, so nothing falls between.
  if (after !== undefined) {
    lastSeq = after;
    for (const event of service.replayFeed(ctx.tenantId, after).events) send(event);
  }
  unsubscribe = service.subscribe(ctx.tenantId, null, send);
  return queue.iterable;
}
