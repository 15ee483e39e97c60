import http from 'node:http';
import fsp from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/bench';
import { tempDataDir } from '../helpers/store';
import { TOKEN, buildServer, request, startServer, startSilentBackend, type ServerProcess } from '../helpers/server-process';
import { killChildren } from '../helpers/children';

// Whatever a failed test left running (a server, a CLI) is stopped.
afterAll(killChildren);

/**
 * 64 connections against the real server process, mixing submits, polls, list pages, cancels and
 * SSE subscribers, a fixed number of requests each: no error responses, every submit accepted and
 * stored exactly once, the subscribers fed, and RSS reported before, at the end and after an idle
 * pause (printed, not asserted). A request count, not a duration: how much a loaded machine gets
 * through is for `npm run bench`.
 */
const CONNECTIONS = 64;
const SUBSCRIBERS = 8;
const REQUESTS_PER_CONNECTION = 40;

let backend: Awaited<ReturnType<typeof startSilentBackend>>;
let dir: string;
let server: ServerProcess;
beforeAll(async () => {
  backend = await startSilentBackend();
  dir = await tempDataDir('benchdesk-load-');
  await buildServer();
  server = await startServer(dir);
}, 60_000);
afterAll(async () => {
  await server.kill('SIGTERM');
  await backend.close();
  await fsp.rm(dir, { recursive: true, force: true });
});

function subscribe(base: string): { events: () => number; close: () => void } {
  let count = 0;
  const req = http.get(`${base}/v1/events`, { headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream' } }, (res) => {
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['content-type'])).toContain('text/event-stream');
    res.on('data', (d: Buffer) => {
      count += d.toString().split('\n').filter((l) => l.startsWith('data:')).length;
    });
    res.on('error', () => undefined);
  });
  req.on('error', () => undefined);
  return { events: () => count, close: () => req.destroy() };
}

describe('load', () => {
  it(`${CONNECTIONS} connections mixing submits, polls, lists, cancels and ${SUBSCRIBERS} SSE subscribers`, async () => {
    const rssStart = server.rssKiB();
    const subs = Array.from({ length: SUBSCRIBERS }, () => subscribe(server.url));
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const accepted: string[] = [];
    const cancelled = new Set<string>();
    const errors: string[] = [];
    const counts = { submit: 0, poll: 0, list: 0, cancel: 0 };
    const worker = async (w: number): Promise<void> => {
      for (let i = 0; i < REQUESTS_PER_CONNECTION; i++) {
        const pick = (w + i) % 10;
        let res;
        if (pick < 5 || accepted.length === 0) {
          res = await request(agent, server.url, 'POST', '/v1/jobs/llm-instance', { backend_url: backend.url });
          counts.submit++;
          if (res.status === 202) accepted.push(String(res.body.job_id));
        } else if (pick < 8) {
          res = await request(agent, server.url, 'GET', `/v1/jobs/${accepted[(i * 7919) % accepted.length]}`);
          counts.poll++;
        } else if (pick < 9) {
          res = await request(agent, server.url, 'GET', '/v1/jobs?limit=50');
          counts.list++;
        } else {
          // Each job is cancelled once at most (a second cancel of an ended job is a legitimate 409).
          const id = accepted.find((a) => !cancelled.has(a));
          if (!id) continue;
          cancelled.add(id);
          res = await request(agent, server.url, 'POST', `/v1/jobs/${id}/cancel`, {});
          counts.cancel++;
        }
        if (res.status >= 400) errors.push(`${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, (_, w) => worker(w)));
    const rssEnd = server.rssKiB();
    // Every subscriber is fed (each job is queued and runs, so its events reach the tenant feed).
    for (const sub of subs) await waitFor(() => sub.events() > 0, 'events on every SSE subscription');
    const events = subs.reduce((n, s) => n + s.events(), 0);
    for (const s of subs) s.close();
    agent.destroy();

    expect(errors.slice(0, 10)).toEqual([]);
    expect(accepted.length).toBe(counts.submit);

    // Every accepted id is listed exactly once.
    const lister = new http.Agent({ keepAlive: true });
    const seen = new Map<string, number>();
    let cursor = '';
    do {
      const page = await request(lister, server.url, 'GET', `/v1/jobs?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.status).toBe(200);
      for (const j of page.body.jobs as { job_id: string }[]) seen.set(j.job_id, (seen.get(j.job_id) ?? 0) + 1);
      cursor = typeof page.body.next_cursor === 'string' ? page.body.next_cursor : '';
    } while (cursor);
    lister.destroy();
    expect(accepted.filter((id) => seen.get(id) !== 1)).toEqual([]);
    expect(seen.size).toBe(accepted.length);

    await new Promise((r) => setTimeout(r, 3_000));
    const rssIdle = server.rssKiB();
    const mb = (k: number | undefined) => (k === undefined ? 'n/a' : `${(k / 1024).toFixed(0)} MB`);
    console.log(
      `load: ${counts.submit} submits (${accepted.length} accepted), ${counts.poll} polls, ${counts.list} lists, ${counts.cancel} cancels, ` +
        `${events} SSE events to ${SUBSCRIBERS} subscribers; RSS ${mb(rssStart)} → ${mb(rssEnd)} → ${mb(rssIdle)} after 3 s idle`,
    );
  }, 60_000);
});
