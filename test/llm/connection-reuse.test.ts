import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { LlmServerClient } from '../../src-main/llm/llmserver-client';

/**
 * A streamed chat ends at its done line; the end of the HTTP body follows. The client reads that
 * end instead of tearing the connection down, so back-to-back calls (a serving benchmark's closed
 * loop) reuse one connection; a body that keeps streaming after done is still cut off.
 */

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
});

async function ndjsonServer(after: (res: http.ServerResponse) => void): Promise<{ url: string; connections: () => number; closed: () => number }> {
  let connections = 0;
  let closed = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
      res.write(`${JSON.stringify({ model: 'm', message: { role: 'assistant', content: 'hi' }, done: false })}\n`);
      res.write(`${JSON.stringify({ model: 'm', message: { role: 'assistant', content: '' }, done: true, eval_count: 1, eval_duration: 1000 })}\n`);
      after(res);
    });
  });
  server.on('connection', (socket) => {
    connections++;
    socket.on('close', () => void closed++);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections, closed: () => closed };
}

describe('streamed chat and its connection', () => {
  it('reuses one connection for back-to-back calls when the body ends after the done line', async () => {
    const s = await ndjsonServer((res) => setTimeout(() => res.end(), 5));
    const client = new LlmServerClient({ baseUrl: s.url });
    for (let i = 0; i < 5; i++) {
      const result = await client.chat({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
      expect(result.message.content).toBe('hi');
      // Let the end of the body arrive before the next call.
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(s.connections()).toBe(1);
  });

  it('still cuts off a body that goes on streaming after the done line', async () => {
    const s = await ndjsonServer((res) => {
      const timer = setInterval(() => res.write(`${'x'.repeat(16 * 1024)}\n`), 1);
      res.on('close', () => clearInterval(timer));
    });
    const client = new LlmServerClient({ baseUrl: s.url });
    await client.chat({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    const deadline = Date.now() + 5000;
    while ((s.closed() < 1 || s.closed() < s.connections()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(s.closed()).toBeGreaterThanOrEqual(1);
    expect(s.closed()).toBe(s.connections());
  });
});
