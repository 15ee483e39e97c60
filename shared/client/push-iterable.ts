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

export type PushIterableOptions<T = unknown> = {
  signal?: AbortSignal | undefined;
  onClose?: () => void;
  /**
   * At most this many items wait for a consumer that is not taking them. A push past it drops
   * them, ends the iterable and calls `onOverflow`: a stalled consumer cannot grow memory.
   */
  maxBuffered?: number | undefined;
  /** The same, in the sizes `sizeOf` gives the items (bytes, say): a few large items fill it as many small ones do. */
  maxBufferedSize?: number | undefined;
  sizeOf?: ((item: T) => number) | undefined;
  onOverflow?: (() => void) | undefined;
};

export function createPushIterable<T>(options: PushIterableOptions<T> = {}): PushIterable<T> {
  const buffer: T[] = [];
  let bufferedSize = 0;
  const sizeOf = options.sizeOf;
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
      const size = sizeOf ? sizeOf(item) : 0;
      const full =
        (options.maxBuffered !== undefined && buffer.length >= options.maxBuffered) ||
        (options.maxBufferedSize !== undefined && bufferedSize + size > options.maxBufferedSize);
      if (full) {
        buffer.length = 0;
        bufferedSize = 0;
        end();
        options.onOverflow?.();
      } else {
        buffer.push(item);
        bufferedSize += size;
      }
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
      if (buffer.length > 0) {
        const item = buffer.shift() as T;
        if (sizeOf) bufferedSize -= sizeOf(item);
        return Promise.resolve({ value: item, done: false });
      }
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
      bufferedSize = 0;
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
