/** A tiny Server-Sent Events reader over fetch, for tests. */
export type SseFrame = { id?: string; event?: string; data?: string; comment?: string; retry?: string };

export type SseStream = {
  status: number;
  headers: Headers;
  /** Next frame, or undefined when the stream ended. Rejects after timeoutMs. */
  next(timeoutMs?: number): Promise<SseFrame | undefined>;
  /** Frames until (and including) one matching `until`, skipping comments unless keepComments. */
  collect(until: (frame: SseFrame) => boolean, options?: { timeoutMs?: number; keepComments?: boolean }): Promise<SseFrame[]>;
  close(): Promise<void>;
};

function parseFrame(block: string): SseFrame {
  const frame: SseFrame = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) frame.comment = line.slice(1).trim();
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const field = line.slice(0, colon);
    const value = line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') frame.id = value;
    else if (field === 'event') frame.event = value;
    else if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
    else if (field === 'retry') frame.retry = value;
  }
  return frame;
}

export async function openSse(url: string, headers: Record<string, string>): Promise<SseStream> {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const reader = res.body?.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let done = false;
  const frames: SseFrame[] = [];

  async function fill(): Promise<void> {
    if (!reader || done) {
      done = true;
      return;
    }
    const chunk = await reader.read();
    if (chunk.done) {
      done = true;
      return;
    }
    buffer += decoder.decode(chunk.value, { stream: true });
    let idx: number;
    while ((idx = buffer.indexOf('\n\n')) >= 0) {
      frames.push(parseFrame(buffer.slice(0, idx)));
      buffer = buffer.slice(idx + 2);
    }
  }

  async function next(timeoutMs = 10_000): Promise<SseFrame | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no SSE frame within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      while (frames.length === 0 && !done) await Promise.race([fill(), timeout]);
      return frames.shift();
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    status: res.status,
    headers: res.headers,
    next,
    async collect(until, options = {}) {
      const out: SseFrame[] = [];
      for (;;) {
        const frame = await next(options.timeoutMs);
        if (!frame) throw new Error(`SSE stream ended before the expected frame; got ${JSON.stringify(out)}`);
        if (frame.data === undefined && !options.keepComments) continue;
        out.push(frame);
        if (until(frame)) return out;
      }
    },
    async close() {
      controller.abort();
      await reader?.cancel().catch(() => undefined);
    },
  };
}
