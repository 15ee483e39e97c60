import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LOG_BYTES_PER_CONTAINER, MAX_LOG_BYTES_PER_SNAPSHOT, SNAPSHOT_FORMAT, type SnapshotSummary } from '../../shared';
import { MAX_EXPORTS_PER_TENANT } from '../../src-main/app/snapshots';
import { json, makeBench, removeDir, type TestBench } from '../helpers/bench';
import { startFakeKubernetes, type FakeKubernetes } from '../fakes/kubernetes';

/**
 * Issue 34 item 3, over the API: deep nesting is a 422 (never a 500), concurrent exports of one
 * tenant are capped (429 with Retry-After), and a cluster of 2,000 pods with 256 KiB logs is
 * stored with its logs bounded, the total in the summary. (The 60 MiB import against /healthz is
 * test/robustness/big-snapshot.test.ts.)
 */

let t: TestBench;
beforeAll(async () => {
  t = await makeBench();
});
afterAll(async () => {
  await t.close();
  await removeDir(t.dir);
});

const doc = (pods: unknown[]) => ({ format: SNAPSHOT_FORMAT, name: 'deep', recorded_at: '2026-08-20T10:30:00Z', source: { server: 'https://203.0.113.10:6443' }, objects: { pods } });
const podWith = (args: unknown) => ({ metadata: { name: 'p', namespace: 'shop' }, spec: { containers: [{ name: 'c', args }] } });

describe('deep nesting', () => {
  it('2,000 and 100,000 levels inside an object are a 422 naming where, over HTTP and in-process', async () => {
    for (const depth of [2_000, 100_000]) {
      const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      const text = JSON.stringify(doc([podWith('HOLE')])).replace('"HOLE"', nested);
      const res = await t.req({ method: 'POST', url: '/v1/snapshots/import', payload: text, headers: { 'content-type': 'application/json' } });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(422);
      expect(json(res)).toMatchObject({ code: 'validation_failed', errors: [{ path: 'objects.pods.0', message: expect.stringContaining('nested deeper than') }] });
      // A parsed document handed over in this process (a suite's import) is refused the same way.
      const parsed = JSON.parse(text) as unknown;
      await expect(t.bd.snapshots.import('default', parsed)).rejects.toMatchObject({ status: 422 });
    }
  });

  it('malformed JSON is a 400; a body over 64 MiB a 413 before it is read', async () => {
    const broken = await t.req({ method: 'POST', url: '/v1/snapshots/import', payload: '{"format": "x", "objects": {"pods": [ {"metadata": }] }', headers: { 'content-type': 'application/json' } });
    expect(broken.statusCode).toBe(400);
    expect(json(broken)).toMatchObject({ code: 'invalid_json' });
    const huge = await t.req({ method: 'POST', url: '/v1/snapshots/import', payload: '{}', headers: { 'content-type': 'application/json', 'content-length': String(65 * 1024 * 1024) } });
    expect(huge.statusCode).toBe(413);
  });
});

describe('exports', () => {
  it(`at most ${MAX_EXPORTS_PER_TENANT} at once per tenant: the next is a 429 with Retry-After, another tenant is not held back`, async () => {
    const imported = json<SnapshotSummary>(await t.req({ method: 'POST', url: '/v1/snapshots/import', payload: doc([podWith(['x'])]) }));
    const held = await Promise.all(Array.from({ length: MAX_EXPORTS_PER_TENANT }, () => t.bd.snapshots.exportText('default', imported.snapshot_id)));
    const refused = await t.req({ method: 'GET', url: `/v1/snapshots/${imported.snapshot_id}/export` });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('5');
    expect(json(refused)).toMatchObject({ code: 'too_many_exports' });
    expect((await t.req({ method: 'GET', url: `/v1/snapshots/${imported.snapshot_id}/export`, tenant: 'acme' })).statusCode).toBe(200);
    // One ends (read to the end), another is abandoned before its first piece: both free their place.
    for await (const piece of held[0] as AsyncIterable<string>) expect(typeof piece).toBe('string');
    await (held[1] as AsyncIterable<string>)[Symbol.asyncIterator]().return?.();
    const again = await t.req({ method: 'GET', url: `/v1/snapshots/${imported.snapshot_id}/export` });
    expect(again.statusCode).toBe(200);
    expect(json(again)).toMatchObject({ snapshot_id: imported.snapshot_id, format: SNAPSHOT_FORMAT });
  });
});

describe('a large cluster', () => {
  let k8s: FakeKubernetes;
  beforeAll(async () => {
    k8s = await startFakeKubernetes({ bulkPods: { count: 2_000, logBytes: 256 * 1024 } });
  });
  afterAll(async () => {
    await k8s?.close();
  });

  it('2,000 pods with 256 KiB logs: stored, each log its newest lines within its share, all within the snapshot bound, the total shown', { timeout: 120_000 }, async () => {
    const res = await t.req({ method: 'POST', url: '/v1/snapshots', payload: { name: 'large', kubeconfig: k8s.kubeconfigPath } });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(201);
    const summary = json<SnapshotSummary>(res);
    expect(summary.counts.pods).toBe(2_008);
    expect(summary.counts.logs).toBeGreaterThanOrEqual(2_000);
    expect(summary.log_bytes).toBeGreaterThan(MAX_LOG_BYTES_PER_SNAPSHOT / 2);
    expect(summary.log_bytes).toBeLessThanOrEqual(MAX_LOG_BYTES_PER_SNAPSHOT);
    expect(summary.warnings.join('\n')).toMatch(/kept their newest \d+ KiB only/);
    const stored = JSON.parse(await readFile(path.join(t.dir, 'snapshots', `${summary.snapshot_id}.json`), 'utf8')) as { logs: { pod: string; current: string[] | null }[] };
    const bulk = stored.logs.find((l) => l.pod === 'bulk-01999');
    const lines = bulk?.current ?? [];
    // The newest lines, whole: the last one of the log is there, and every line kept is a full line.
    expect(lines.at(-1)).toMatch(/^\d{6} request served/);
    expect(Buffer.byteLength(lines.join('\n'))).toBeLessThanOrEqual(MAX_LOG_BYTES_PER_CONTAINER);
    expect(lines.every((l) => /^\d{6} request served in 12 ms; upstream ok; cache hit; request served in 12 ms; upstream ok; cache hit; $/.test(l))).toBe(true);
    const shown = json<SnapshotSummary>(await t.req({ method: 'GET', url: `/v1/snapshots/${summary.snapshot_id}` }));
    expect(shown.log_bytes).toBe(summary.log_bytes);
  });
});
