import type { EventInput } from '../../events/timed';
import type { JobContext } from '../types';

/**
 * Providers report events through synchronous callbacks; the store write is async. This keeps
 * their order by chaining the writes, and `flush()` waits for all of them before the job ends.
 */
export function orderedEventSink(ctx: Pick<JobContext, 'emit' | 'logger'>): { sink: (event: EventInput) => void; flush: () => Promise<void> } {
  let chain: Promise<void> = Promise.resolve();
  return {
    sink(event) {
      chain = chain.then(() => ctx.emit(event)).catch((err: unknown) => {
        ctx.logger.warn('could not record an event', { event: event.event, error: err instanceof Error ? err.message : String(err) });
      });
    },
    flush: () => chain,
  };
}
