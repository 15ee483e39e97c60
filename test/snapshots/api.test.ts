import { readdir, readFile, stat, writeFile, rm, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SNAPSHOT_FORMAT, type SnapshotSummary } from '../../shared';
import { json, makeBench, removeDir, type TestBench } from '../helpers/bench';
import { SCENARIO, startFakeKubernetes, type FakeKubernetes } from '../fakes/kubernetes';

/** The snapshot operations over the HTTP API (fastify inject): record, list, show, export, import, delete. */

let k8s: FakeKubernetes;
let t: TestBench;
let recorded: SnapshotSummary;

beforeAll(async () => {
  k8s = await startFakeKubernetes();
  // The fake cluster's clock: its kubelets posted their last heartbeats minutes before 10:30, not months.
  t = await makeBench({ extra: { now: () => new Date('2026-08-20T10:30:00Z') } });
});
afterAll(async () => {
  await t.close();
  await removeDir(t.dir);
  await k8s.close();
});

const post = (url: string, payload: unknown, tenant: 'default' | 'acme' = 'default') => t.req({ method: 'POST', url, payload: payload as Record<string, unknown>, tenant });

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(p)));
    else out.push(p);
  }
  return out;
}

describe('POST /v1/snapshots records a cluster', () => {
  it('201 with the summary; stored 0600 in the data dir without the planted secret', async () => {
    const before = k8s.calls.length;
    const res = await post('/v1/snapshots', { name: 'Fake shop cluster', kubeconfig: k8s.kubeconfigPath, log_tail_lines: 50 });
    expect(res.statusCode, res.body).toBe(201);
    recorded = json<SnapshotSummary>(res);
    expect(recorded).toMatchObject({
      name: 'Fake shop cluster',
      source: new URL(k8s.url).host,
      kubernetes_version: 'v1.31.0',
      origin: 'recorded',
      counts: { pods: 8, nodes: 3, deployments: 3, events: 7, namespaces: 4 },
      namespaces: ['batch', 'default', 'kube-system', 'shop'],
      warnings: [],
      lint: [],
      used_by: [],
    });
    expect(recorded.snapshot_id).toMatch(/^fake-shop-cluster-[0-9a-f]{6}$/);
    expect(recorded.counts.logs).toBeGreaterThan(0);
    expect(recorded.counts).not.toHaveProperty('secrets');
    expect(k8s.calls.slice(before).every((c) => c.query.tailLines === undefined || c.query.tailLines === '50')).toBe(true);

    const dir = path.join(t.dir, 'snapshots');
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const files = await filesUnder(dir);
    expect(ownFiles(files.map((f) => path.basename(f))).sort()).toEqual([`${recorded.snapshot_id}.json`, `${recorded.snapshot_id}.meta.json`]);
    for (const file of files) {
      expect((await stat(file)).mode & 0o777, file).toBe(0o600);
      const text = await readFile(file, 'utf8');
      expect(text, file).not.toContain(SCENARIO.plantedSecret);
      expect(text, file).not.toContain(Buffer.from(SCENARIO.plantedSecret).toString('base64'));
    }
    expect(recorded.size_bytes).toBe((await stat(path.join(dir, `${recorded.snapshot_id}.json`))).size);
  });

  it('502 naming the cluster when it cannot be reached; 422 for a bad body or a missing kubeconfig', async () => {
    const gone = await startFakeKubernetes();
    const kubeconfig = path.join(t.dir, 'gone-kubeconfig');
    await writeFile(kubeconfig, await readFile(gone.kubeconfigPath, 'utf8'));
    await gone.close();
    const unreachable = await post('/v1/snapshots', { name: 'gone', kubeconfig });
    expect(unreachable.statusCode).toBe(502);
    expect(json(unreachable)).toMatchObject({ code: 'upstream_unreachable', detail: expect.stringContaining(gone.url) });

    const missing = await post('/v1/snapshots', { name: 'x', kubeconfig: '/nowhere/kubeconfig' });
    expect(missing.statusCode).toBe(422);
    expect(json(missing)).toMatchObject({ errors: [{ path: 'kubeconfig', message: 'kubeconfig not found: /nowhere/kubeconfig' }] });
    // A namespace the cluster does not have is the request's mistake: a 422 naming it, never a 502 (issue 34 item 9).
    const unknownNs = await post('/v1/snapshots', { name: 'x', kubeconfig: k8s.kubeconfigPath, namespaces: ['shop', 'no-such-ns'] });
    expect(unknownNs.statusCode).toBe(422);
    expect(json(unknownNs)).toMatchObject({ errors: [{ path: 'namespaces', message: expect.stringContaining('has no namespace no-such-ns') }] });
    const bad = await post('/v1/snapshots', { name: '', kubeconfig: k8s.kubeconfigPath, log_tail_lines: -1, colour: 'red' });
    expect(bad.statusCode).toBe(422);
    expect(json<{ errors: { path: string }[] }>(bad).errors.map((e) => e.path).sort()).toEqual(['', 'log_tail_lines', 'name']);
  });

  it('only the default tenant may record, import or delete; every tenant may read', async () => {
    const record = await post('/v1/snapshots', { name: 'x', kubeconfig: k8s.kubeconfigPath }, 'acme');
    expect(record.statusCode).toBe(403);
    expect(json(record)).toMatchObject({ code: 'forbidden_tenant' });
    expect((await post('/v1/snapshots/import', { format: SNAPSHOT_FORMAT }, 'acme')).statusCode).toBe(403);
    expect((await t.req({ method: 'DELETE', url: `/v1/snapshots/${recorded.snapshot_id}`, tenant: 'acme' })).statusCode).toBe(403);
    const list = await t.req({ method: 'GET', url: '/v1/snapshots', tenant: 'acme' });
    expect(json<{ snapshots: SnapshotSummary[] }>(list).snapshots.map((s) => s.snapshot_id)).toContain(recorded.snapshot_id);
    expect((await t.req({ method: 'GET', url: `/v1/snapshots/${recorded.snapshot_id}/export`, tenant: 'acme' })).statusCode).toBe(200);
  });
});

/** The snapshots this test made: the shipped starter suite's are stored from the first start too. */
const own = <T extends { snapshot_id: string }>(list: T[]): T[] => list.filter((x) => !x.snapshot_id.startsWith('starter-'));
const ownFiles = (names: string[]): string[] => names.filter((n) => !n.startsWith('starter-'));

describe('list, show, export, import, delete', () => {
  it('show and list the summary; 404 for an unknown id', async () => {
    expect(json(await t.req({ method: 'GET', url: `/v1/snapshots/${recorded.snapshot_id}` }))).toEqual(recorded);
    expect(own(json<{ snapshots: SnapshotSummary[] }>(await t.req({ method: 'GET', url: '/v1/snapshots' })).snapshots)).toEqual([recorded]);
    const missing = await t.req({ method: 'GET', url: '/v1/snapshots/no-such-snapshot' });
    expect(missing.statusCode).toBe(404);
    expect(json(missing)).toMatchObject({ code: 'snapshot_not_found' });
    expect((await t.req({ method: 'GET', url: '/v1/snapshots/Not_An_Id' })).statusCode).toBe(422);
  });

  it('export is the portable document; importing it again answers the same snapshot; another install keeps its id', async () => {
    const exported = json<Record<string, unknown>>(await t.req({ method: 'GET', url: `/v1/snapshots/${recorded.snapshot_id}/export` }));
    expect(exported).toMatchObject({ format: SNAPSHOT_FORMAT, snapshot_id: recorded.snapshot_id, name: 'Fake shop cluster', recorded_at: recorded.recorded_at });
    const again = await post('/v1/snapshots/import', exported);
    expect(again.statusCode).toBe(201);
    expect(json<SnapshotSummary>(again).snapshot_id).toBe(recorded.snapshot_id);
    expect(own(json<{ snapshots: SnapshotSummary[] }>(await t.req({ method: 'GET', url: '/v1/snapshots' })).snapshots)).toHaveLength(1);

    const other = await makeBench();
    try {
      const imported = await other.req({ method: 'POST', url: '/v1/snapshots/import', payload: exported });
      expect(imported.statusCode).toBe(201);
      expect(json(imported)).toMatchObject({ snapshot_id: recorded.snapshot_id, origin: 'imported', counts: recorded.counts, recorded_at: recorded.recorded_at });
      expect(json(await other.req({ method: 'GET', url: `/v1/snapshots/${recorded.snapshot_id}/export` }))).toEqual(exported);
    } finally {
      await other.close();
      await removeDir(other.dir);
    }

    // Different content under a taken id gets an id of its own, once: importing it again (as the
    // shipped suite does at every start after an upgrade changed a snapshot) answers that copy.
    const changed = await post('/v1/snapshots/import', { ...exported, name: 'Changed copy' });
    expect(changed.statusCode).toBe(201);
    const copy = json<SnapshotSummary>(changed);
    expect(copy.snapshot_id).toMatch(/^changed-copy-[0-9a-f]{6}$/);
    const changedAgain = await post('/v1/snapshots/import', { ...exported, name: 'Changed copy' });
    expect(json<SnapshotSummary>(changedAgain).snapshot_id).toBe(copy.snapshot_id);
    expect(own(json<{ snapshots: SnapshotSummary[] }>(await t.req({ method: 'GET', url: '/v1/snapshots' })).snapshots)).toHaveLength(2);
    expect((await t.req({ method: 'DELETE', url: `/v1/snapshots/${copy.snapshot_id}` })).statusCode).toBe(204);
  });

  it('a malformed document is a 422 naming the path; a body that is not an object is a 400', async () => {
    const exported = json<{ objects: { pods: { metadata: Record<string, unknown> }[] } }>(await t.req({ method: 'GET', url: `/v1/snapshots/${recorded.snapshot_id}/export` }));
    (exported.objects.pods[2] as { metadata: Record<string, unknown> }).metadata.name = 'Not Valid!';
    const res = await post('/v1/snapshots/import', exported);
    expect(res.statusCode).toBe(422);
    expect(json(res)).toMatchObject({ code: 'validation_failed', errors: [{ path: 'objects.pods.2.metadata.name' }] });
    expect(json<{ detail: string }>(res).detail).toContain('objects.pods.2.metadata.name');
    const wrongFormat = await post('/v1/snapshots/import', { format: 'kubectl-dump', name: 'x' });
    expect(json<{ errors: { path: string }[] }>(wrongFormat).errors.map((e) => e.path)).toEqual(expect.arrayContaining(['format', 'recorded_at', 'source', 'objects']));
    const notObject = await t.req({ method: 'POST', url: '/v1/snapshots/import', payload: '[1]', headers: { 'content-type': 'application/json' } });
    expect(notObject.statusCode).toBe(400);
  });

  it('a document with timeline impossibilities imports, and the lint warnings are in the answer and in GET', async () => {
    const doc = {
      format: SNAPSHOT_FORMAT,
      name: 'impossible timeline',
      recorded_at: '2026-08-20T10:30:00Z',
      source: { server: 'https://example.invalid:6443' },
      objects: {
        nodes: [
          {
            metadata: { name: 'node-1', creationTimestamp: '2026-08-01T00:00:00Z' },
            status: { conditions: [{ type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', lastHeartbeatTime: '2026-08-20T10:29:50Z', lastTransitionTime: '2026-08-20T10:29:55Z' }] },
          },
        ],
        pods: [
          {
            metadata: { name: 'web-1', namespace: 'shop', creationTimestamp: '2026-08-20T10:00:00Z' },
            spec: { nodeName: 'node-1', containers: [{ name: 'web', image: 'web:1' }] },
            status: { phase: 'Running', containerStatuses: [{ name: 'web', ready: true, restartCount: 0, state: { running: { startedAt: '2026-08-20T10:00:05Z' } } }] },
          },
        ],
      },
      logs: [{ namespace: 'shop', pod: 'web-1', container: 'web', current: '2026-08-20T10:00:06Z listening on :8080\n2026-08-20T10:41:00Z GET / 200\n' }],
    };
    const res = await post('/v1/snapshots/import', doc);
    expect(res.statusCode, res.body).toBe(201);
    const summary = json<SnapshotSummary>(res);
    expect(summary.lint.map((w) => [w.check, w.object])).toEqual([
      ['log-after-recording', 'pod/shop/web-1'],
      ['node-unknown-heartbeat', 'node/node-1'],
    ]);
    expect(summary.warnings).toEqual(summary.lint.map((w) => `lint (${w.check}): ${w.message}`));
    expect(summary.warnings[0]).toContain('2026-08-20T10:41:00Z GET / 200');
    expect(json(await t.req({ method: 'GET', url: `/v1/snapshots/${summary.snapshot_id}` }))).toMatchObject({ lint: summary.lint, warnings: summary.warnings });
    expect((await t.req({ method: 'DELETE', url: `/v1/snapshots/${summary.snapshot_id}` })).statusCode).toBe(204);
  });

  it('takes a document larger than the 1 MiB of other bodies', async () => {
    const pods = Array.from({ length: 4_000 }, (_, i) => ({
      metadata: { name: `pod-${i}`, namespace: 'load', labels: { app: 'load' } },
      spec: { nodeName: 'node-1', containers: [{ name: 'app', image: 'busybox:1.36', args: ['sleep', 'infinity'] }] },
      status: { phase: 'Running', containerStatuses: [{ name: 'app', ready: true, restartCount: 0, state: { running: { startedAt: '2026-08-20T10:00:00Z' } } }] },
    }));
    const doc = { format: SNAPSHOT_FORMAT, name: 'four thousand pods', recorded_at: '2026-08-20T10:30:00Z', source: { server: 'https://example.invalid:6443' }, objects: { pods } };
    expect(JSON.stringify(doc).length).toBeGreaterThan(1024 * 1024);
    const res = await post('/v1/snapshots/import', doc);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(201);
    const big = json<SnapshotSummary>(res);
    expect(big.counts).toMatchObject({ pods: 4000, namespaces: 1 });
    expect((await t.req({ method: 'DELETE', url: `/v1/snapshots/${big.snapshot_id}` })).statusCode).toBe(204);
  });

  it('delete: 409 while something uses it (who is named), then 204, then 404', async () => {
    const release = t.bd.snapshots.registerUsage((id) => (id === recorded.snapshot_id ? ['suite starter'] : []));
    expect(json(await t.req({ method: 'GET', url: `/v1/snapshots/${recorded.snapshot_id}` }))).toMatchObject({ used_by: ['suite starter'] });
    const inUse = await t.req({ method: 'DELETE', url: `/v1/snapshots/${recorded.snapshot_id}` });
    expect(inUse.statusCode).toBe(409);
    expect(json(inUse)).toMatchObject({ code: 'snapshot_in_use', detail: expect.stringContaining('suite starter') });
    release();
    const deleted = await t.req({ method: 'DELETE', url: `/v1/snapshots/${recorded.snapshot_id}` });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await t.req({ method: 'DELETE', url: `/v1/snapshots/${recorded.snapshot_id}` })).statusCode).toBe(404);
    expect(ownFiles(await readdir(path.join(t.dir, 'snapshots')))).toEqual([]);
  });
});

describe('on disk across restarts', () => {
  it('a summary stored before the lint existed is rebuilt from its document, keeping its origin and time', async () => {
    const bench = await makeBench({ extra: { now: () => new Date('2026-08-20T10:30:00Z') } });
    const dir = bench.dir;
    let before: SnapshotSummary;
    try {
      before = json<SnapshotSummary>(await bench.req({ method: 'POST', url: '/v1/snapshots', payload: { name: 'old meta', kubeconfig: k8s.kubeconfigPath } }));
    } finally {
      await bench.close();
    }
    const metaPath = path.join(dir, 'snapshots', `${before.snapshot_id}.meta.json`);
    const { lint: _lint, ...old } = JSON.parse(await readFile(metaPath, 'utf8')) as Record<string, unknown>;
    await writeFile(metaPath, JSON.stringify(old), { mode: 0o600 });
    const reopened = await makeBench({ dir });
    try {
      const after = json<SnapshotSummary>(await reopened.req({ method: 'GET', url: `/v1/snapshots/${before.snapshot_id}` }));
      expect(after).toEqual(before);
      expect(JSON.parse(await readFile(metaPath, 'utf8'))).toHaveProperty('lint', []);
    } finally {
      await reopened.close();
      await removeDir(dir);
    }
  });


  it('a snapshot survives a restart; a lost summary is rebuilt; a corrupt document is set aside', async () => {
    const bench = await makeBench();
    const dir = bench.dir;
    let id: string;
    try {
      const res = await bench.req({ method: 'POST', url: '/v1/snapshots', payload: { name: 'kept', kubeconfig: k8s.kubeconfigPath } });
      id = json<SnapshotSummary>(res).snapshot_id;
    } finally {
      await bench.close();
    }
    await rm(path.join(dir, 'snapshots', `${id}.meta.json`));
    await mkdir(path.join(dir, 'snapshots'), { recursive: true });
    await writeFile(path.join(dir, 'snapshots', 'broken-000000.json'), '{"format": "benchdesk.snapshot/v1", "na', { mode: 0o600 });
    const reopened = await makeBench({ dir });
    try {
      const list = json<{ snapshots: SnapshotSummary[] }>(await reopened.req({ method: 'GET', url: '/v1/snapshots' })).snapshots;
      expect(own(list).map((s) => s.snapshot_id)).toEqual([id]);
      expect(own(list)[0]?.counts.pods).toBe(8);
      expect(ownFiles(await readdir(path.join(dir, 'snapshots'))).sort()).toEqual([`${id}.json`, `${id}.meta.json`]);
      expect((await readdir(path.join(dir, 'corrupt'))).some((f) => f.startsWith('broken-000000.json'))).toBe(true);
    } finally {
      await reopened.close();
      await removeDir(dir);
    }
  });
});
