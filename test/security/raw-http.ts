import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** Raw-socket HTTP for requests that no HTTP client would send (trickled bodies, bad framing). */

export function portOf(app: FastifyInstance): number {
  return (app.server.address() as AddressInfo).port;
}

export type RawResponse = { status: number; headers: Record<string, string>; body: string; raw: string };

/** Parses the first HTTP/1.1 response in `raw` (Content-Length framed, as ours are). */
export function parseResponse(raw: string): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete response head in ${JSON.stringify(raw.slice(0, 200))}`);
  const [statusLine = '', ...lines] = raw.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? raw.length - end - 4);
  return { status, headers, body: raw.slice(end + 4, end + 4 + length), raw };
}

export type OpenSocket = {
  socket: net.Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves true when the server closed the socket within `ms`, false otherwise. */
  closedWithin(ms: number): Promise<boolean>;
  close(): void;
};

export async function openSocket(port: number, options: { localAddress?: string } = {}): Promise<OpenSocket> {
  const socket = net.connect({ host: '127.0.0.1', port, ...options });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let data = '';
  let closed = false;
  const closing = new Promise<void>((resolve) => socket.once('close', () => {
    closed = true;
    resolve();
  }));
  socket.on('data', (chunk: Buffer) => void (data += chunk.toString('latin1')));
  socket.on('error', () => undefined); // a reset after the server gave up is expected
  return {
    socket,
    received: () => data,
    async closedWithin(ms) {
      if (closed) return true;
      let timer: NodeJS.Timeout | undefined;
      const result = await Promise.race([closing.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)))]);
      clearTimeout(timer);
      return result;
    },
    close: () => socket.destroy(),
  };
}

/** Sends `data` and reads until the server closes the socket (or `timeoutMs`). */
export async function rawExchange(port: number, data: string | Buffer, timeoutMs = 5_000): Promise<RawResponse & { closed: boolean }> {
  const s = await openSocket(port);
  s.socket.write(data);
  const closed = await s.closedWithin(timeoutMs);
  s.close();
  return { ...parseResponse(s.received()), closed };
}
