/**
 * An AsyncIterable fed by pushes (SSE messages, IPC pushes, bus events). `end(err)` finishes it,
 * rethrowing `err` to the consumer; a consumer that stops early (break, return) or an aborted
 * signal runs `onClose` once, so the producer can unsubscribe.
 */
export type PushIterable<T> = {
  readonly iterable: AsyncIterable<T>;
  push(item: T): void;
  end(err?: unknown): void;
  readonly ended: boolean;
};

export function createPushIterable<T>(options: { signal?: AbortSignal | undefined; onClose?: () => void } = {}): PushIterable<T> {
  const buffer: T[] = [];
  let waiting: ((result: IteratorResult<T>) => void) | null = null;
  let failWaiting: ((err: unknown) => void) | null = null;
  let ended = false;
  let error: unknown = undefined;
  let closed = false;

  const close = () => {
    if (closed) return;
    closed = true;
    options.signal?.removeEventListener('abort', onAbort);
    options.onClose?.();
  };
  const onAbort = () => end();
  options.signal?.addEventListener('abort', onAbort, { once: true });

  function push(item: T): void {
    if (ended) return;
    if (waiting) {
      const resolve = waiting;
      waiting = failWaiting = null;
      resolve({ value: item, done: false });
    } else {
      buffer.push(item);
    }
  }

  function end(err?: unknown): void {
    if (ended) return;
    ended = true;
    error = err;
    close();
    if (waiting) {
      const resolve = waiting;
      const reject = failWaiting;
      waiting = failWaiting = null;
      if (err !== undefined && reject) reject(err);
      else resolve({ value: undefined, done: true });
    }
  }

  const iterator: AsyncIterator<T> = {
    next() {
      if (buffer.length > 0) return Promise.resolve({ value: buffer.shift() as T, done: false });
      if (ended) {
        if (error !== undefined) {
          const err = error;
          error = undefined;
          return Promise.reject(err);
        }
        return Promise.resolve({ value: undefined, done: true });
      }
      return new Promise<IteratorResult<T>>((resolve, reject) => {
        waiting = resolve;
        failWaiting = reject;
      });
    },
    return() {
      buffer.length = 0;
      end();
      return Promise.resolve({ value: undefined, done: true });
    },
  };

  if (options.signal?.aborted) end();
  return {
    iterable: { [Symbol.asyncIterator]: () => iterator },
    push,
    end,
    get ended() {
      return ended;
    },
  };
}
