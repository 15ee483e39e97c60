import type { AgentOptions, IncomingMessage } from 'node:http';
import type { WorkerBody, WorkerLimits, WorkerRecord, WorkerTarget } from './protocol';
import type { StreamReader } from './stream-reader';

/**
 * One streamed request on the worker's lean client: node:http with a keep-alive agent, the body
 * written in one go, every chunk timed on arrival (performance.now()), no schema per chunk. It
 * resolves with the request's record (a failure is a record with `error`), never rejects. Runs in
 * the worker from its source text (source.ts): it uses only its parameters and Node's builtins
 * (through process.getBuiltinModule, which no bundler rewrites).
 *
 * `abort(reason)` ends it early (a stopped level, a cancel): the record carries the reason.
 */
export type LeanClient = {
  send(body: WorkerBody, requestTimeoutMs: number, onSent: (t: number) => void): { done: Promise<WorkerRecord>; abort: (reason: string) => void };
};

export function createLeanClient(target: WorkerTarget, limits: WorkerLimits, reader: StreamReader): LeanClient {
  const http = process.getBuiltinModule('node:http');
  const https = process.getBuiltinModule('node:https');
  const { newStreamState, readOllamaLine, readSseLine, lineSplitter, errorText } = reader;
  const url = new URL(target.path, target.origin);
  const secure = url.protocol === 'https:';
  const transport = secure ? https : http;
  // One socket per request in flight, kept open between requests: no connect or TLS handshake in a measured request.
  // noDelay: each request's body leaves at once (the agent passes socket options on to net.connect).
  const agentOptions: AgentOptions & { noDelay: boolean } = { keepAlive: true, maxSockets: Infinity, noDelay: true };
  const agent = secure ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  const completions = target.stream === 'sse-completions';
  const ndjson = target.stream === 'ndjson';

  function send(item: WorkerBody, requestTimeoutMs: number, onSent: (t: number) => void) {
    const s = newStreamState(item.askedTokens * limits.textChunksPerToken + 16);
    let sent = 0;
    let settled = false;
    let resolveDone: (r: WorkerRecord) => void = () => undefined;
    const done = new Promise<WorkerRecord>((resolve) => (resolveDone = resolve));
    const payload = Buffer.from(item.body, 'utf8');
    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error !== null) s.error = error;
      if (s.error === null && s.first === null) s.error = 'the answer carried no generated text';
      const failed = s.error !== null;
      resolveDone({
        level: 0,
        seq: 0,
        startedAtMs: sent,
        ttftMs: s.first === null ? null : s.first - sent,
        e2eMs: failed || s.endedAt === null ? null : s.endedAt - sent,
        itlMs: s.itl,
        textChunks: s.textChunks,
        askedTokens: item.askedTokens,
        promptTokens: item.promptTokens,
        finishReason: failed ? null : s.finishReason,
        error: s.error,
        final: failed ? null : s.final,
      });
    };
    const abort = (reason: string) => {
      if (settled) return;
      finish(reason);
      req.destroy();
    };
    const timer = setTimeout(() => abort(`no complete answer within ${Math.round(requestTimeoutMs / 1000)} s`), requestTimeoutMs);
    const onLine = (line: string) => {
      if (s.error !== null || (s.done && ndjson)) return;
      const t = performance.now();
      if (ndjson) readOllamaLine(s, line, t);
      else readSseLine(s, line, t, completions);
    };
    const push = lineSplitter(limits, onLine);
    const req = transport.request(
      url,
      { method: 'POST', agent, headers: { ...target.headers, 'content-type': 'application/json', accept: ndjson ? 'application/x-ndjson' : 'text/event-stream', 'content-length': payload.length } },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 299) {
          readErrorBody(res, limits.errorBodyBytes, (text) => finish(`HTTP ${status}: ${text}`));
          return;
        }
        let grace: ReturnType<typeof setTimeout> | null = null;
        res.on('data', (chunk: Buffer) => {
          if (settled) return;
          const capped = push(chunk);
          if (capped !== null) abort(capped);
          else if (s.error !== null) abort(s.error);
          // The answer is complete and its figures final. The body's end (usually in the same packet)
          // puts the socket back in the pool for the next request; a server that never ends it is cut.
          else if (s.done && grace === null) grace = setTimeout(() => (finish(null), req.destroy()), 1000);
        });
        res.on('close', () => grace !== null && clearTimeout(grace));
        res.on('end', () => finish(s.done || s.finishReason !== null ? null : 'the answer ended before it was complete'));
        res.on('error', (err: Error) => finish(`the answer broke off: ${err.message}`));
      },
    );
    req.on('error', (err: Error & { code?: string }) => finish(`${err.code ?? 'request failed'}: ${err.message}`));
    sent = performance.now();
    onSent(sent);
    req.end(payload);
    return { done, abort };
  }

  function readErrorBody(res: IncomingMessage, max: number, done: (text: string) => void): void {
    const parts: Buffer[] = [];
    let bytes = 0;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      const raw = Buffer.concat(parts).toString('utf8');
      let text = raw.trim().slice(0, 500) || (res.statusMessage ?? 'no message');
      try {
        text = errorText(JSON.parse(raw));
      } catch {
        // not JSON: the raw text (a proxy's page)
      }
      done(text);
    };
    res.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= max) parts.push(chunk);
      else {
        res.destroy();
        end();
      }
    });
    res.on('end', end);
    res.on('error', end);
  }

  return { send };
}
