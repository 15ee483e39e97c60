import http from 'node:http';
import { Readable } from 'node:stream';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SNAPSHOT_FORMAT } from '../../shared';
import { startServer, TOKEN, type ServerProcess } from '../helpers/server-process';
import { killChildren } from '../helpers/children';

// Whatever a failed test left running (a server, a CLI) is stopped.
afterAll(killChildren);

/**
 * Issue 34 item 3: a 60 MiB snapshot import does not stop the world. The server runs as its own
 * process; the document is generated here as it is sent (never held whole), and /healthz is asked
 * every 100 ms while the import runs: each answer must come within 1 s.
 */

const servers: ServerProcess[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const s of servers) await s.kill('SIGKILL');
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const MIB = 1024 * 1024;

/** Namespaced resources whose objects need nothing but a name: the document spreads its objects over them. */
const PLAIN = ['configmaps', 'services', 'endpoints', 'deployments', 'replicasets', 'statefulsets', 'daemonsets', 'jobs', 'cronjobs', 'persistentvolumeclaims', 'ingresses'];
const PER_RESOURCE = 100_000;

/** A snapshot document of at least `bytes`, in objects of about `objectBytes`, as chunks of about 64 KiB. */
function* bigDocument(bytes: number, objectBytes: number): Generator<string, void, void> {
  const filler = `,"data":{"k":"${'x'.repeat(Math.max(0, objectBytes - 90))}"}`;
  let chunk = `{"format":"${SNAPSHOT_FORMAT}","name":"sixty mebibytes","recorded_at":"2026-08-20T10:30:00Z","source":{"server":"https://203.0.113.10:6443"},"objects":{`;
  let total = 0;
  for (let i = 0; total + chunk.length < bytes; i++) {
    const within = i % PER_RESOURCE;
    if (within === 0) chunk += `${i > 0 ? '],' : ''}"${PLAIN[i / PER_RESOURCE]}":[`;
    chunk += `${within > 0 ? ',' : ''}{"metadata":{"name":"object-${String(i).padStart(7, '0')}","namespace":"ns-${String(i % 50).padStart(2, '0')}"}${filler}}`;
    if (chunk.length >= 64 * 1024) {
      total += chunk.length;
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}]},"logs":[]}`;
}

function post(url: string, body: Readable): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/v1/snapshots/import`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    body.pipe(req);
  });
}

describe('a 60 MiB snapshot import', () => {
  it('/healthz answers within 1 s throughout, and the snapshot is stored', { timeout: 180_000 }, async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'benchdesk-big-import-'));
    dirs.push(dir);
    const server = await startServer(dir);
    servers.push(server);
    let sent = 0;
    const source = Readable.from(
      (function* () {
        for (const chunk of bigDocument(60 * MIB, 512)) {
          sent += chunk.length;
          yield chunk;
        }
      })(),
    );
    const started = Date.now();
    const importing = post(server.url, source);
    let done = false;
    importing.then(
      () => (done = true),
      () => (done = true),
    );
    const waits: number[] = [];
    while (!done) {
      const asked = Date.now();
      const health = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(5_000) });
      expect(health.status).toBe(200);
      waits.push(Date.now() - asked);
      await new Promise((r) => setTimeout(r, 100));
    }
    const answer = await importing;
    console.log(`big-snapshot: ${Math.round(sent / MIB)} MiB imported in ${Date.now() - started} ms; /healthz asked ${waits.length} times, slowest ${Math.max(...waits)} ms; RSS ${Math.round((server.rssKiB() ?? 0) / 1024)} MiB`);
    expect(answer.status, answer.body.slice(0, 500)).toBe(201);
    expect(sent).toBeGreaterThanOrEqual(60 * MIB);
    expect(waits.length).toBeGreaterThan(3);
    expect(Math.max(...waits)).toBeLessThan(1_000);
  });
});
