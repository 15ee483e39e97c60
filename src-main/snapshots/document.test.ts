import { describe, expect, it } from 'vitest';
import { SNAPSHOT_FORMAT } from '../../shared/snapshots';
import { canonicalSnapshot, contentHash, countsOf, SnapshotDocumentError } from './document';

/** What a person writes by hand: only names, the fields that matter, and logs as text. */
const handWritten = () => ({
  format: SNAPSHOT_FORMAT,
  name: 'crash loop',
  recorded_at: '2026-08-20T10:30:00Z',
  source: { server: 'https://203.0.113.10:6443' },
  objects: {
    pods: [
      {
        metadata: { name: 'web-1', namespace: 'shop', labels: { app: 'web' } },
        spec: { nodeName: 'node-1', containers: [{ name: 'web', image: 'web:1', env: [{ name: 'DB_PASSWORD', value: 'hunter2' }] }] },
        status: { phase: 'Running', containerStatuses: [{ name: 'web', restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, reason: 'Error' } } }] },
      },
      { metadata: { name: 'lonely' }, spec: { containers: [{ name: 'c' }] } },
    ],
    events: [{ metadata: { name: 'web-1.1', namespace: 'shop' }, involvedObject: { kind: 'Pod', name: 'web-1' }, type: 'Warning', reason: 'BackOff', message: 'Back-off restarting failed container' }],
    nodes: [{ metadata: { name: 'node-1' }, status: { conditions: [{ type: 'Ready', status: 'True' }] } }],
  },
  logs: [{ namespace: 'shop', pod: 'web-1', container: 'web', previous: 'connecting\nFATAL: password authentication failed\n' }],
});

describe('canonicalSnapshot', () => {
  it('fills what a hand-written document leaves out', () => {
    const doc = canonicalSnapshot(handWritten());
    const [lonely, web] = doc.objects.pods;
    // Sorted by namespace, then name; a namespaced object without one is in `default`.
    expect(lonely?.metadata).toMatchObject({ name: 'lonely', namespace: 'default', resourceVersion: '1', creationTimestamp: '2026-08-20T10:30:00Z' });
    expect(web).toMatchObject({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', namespace: 'shop' } });
    expect(web?.metadata.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-/);
    // Every namespace an object lives in exists; the event names its pod by uid (kubectl describe selects by it).
    expect(doc.objects.namespaces.map((n) => n.metadata.name)).toEqual(['default', 'shop']);
    expect(doc.objects.events[0]?.involvedObject).toMatchObject({ kind: 'Pod', name: 'web-1', namespace: 'shop', uid: web?.metadata.uid, apiVersion: 'v1' });
    // Logs are lines; env values are redacted on import too.
    expect(doc.logs).toEqual([{ namespace: 'shop', pod: 'web-1', container: 'web', current: null, previous: ['connecting', 'FATAL: password authentication failed'] }]);
    expect(JSON.stringify(doc)).not.toContain('hunter2');
    expect(countsOf(doc)).toMatchObject({ pods: 2, events: 1, nodes: 1, namespaces: 2, deployments: 0, logs: 1 });
  });

  it('is stable: the canonical form of a canonical document is itself, with the same content hash', () => {
    const once = canonicalSnapshot(handWritten());
    const twice = canonicalSnapshot(JSON.parse(JSON.stringify(once)));
    expect(twice).toEqual(once);
    expect(contentHash(twice)).toBe(contentHash(once));
    expect(contentHash({ ...once, snapshot_id: 'other-id' })).toBe(contentHash(once));
  });

  function issuesOf(doc: unknown): { path: string; message: string }[] {
    try {
      canonicalSnapshot(doc);
    } catch (err) {
      if (err instanceof SnapshotDocumentError) return err.issues;
      throw err;
    }
    throw new Error('expected the document to be refused');
  }

  it('refuses a malformed document, naming the path of each problem', () => {
    const bad = handWritten() as Record<string, unknown> & { objects: Record<string, unknown[]> };
    bad.format = 'benchdesk.snapshot/v0';
    ((bad.objects.pods as unknown[])[0] as { metadata: { name: string } }).metadata.name = '';
    bad.objects.secrets = [];
    const paths = issuesOf(bad).map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['format', 'objects.pods.0.metadata.name', 'objects']));
    expect(issuesOf({ ...handWritten(), recorded_at: 'yesterday' }).map((i) => i.path)).toEqual(['recorded_at']);
    const noContainers = handWritten();
    (noContainers.objects.pods[1] as { spec: { containers: unknown[] } }).spec.containers = [];
    expect(issuesOf(noContainers).map((i) => i.path)).toEqual(['objects.pods.1.spec.containers']);
  });

  it('refuses duplicates, a namespace on a cluster-scoped object, and logs of pods or containers that are not there', () => {
    const doc = handWritten();
    doc.objects.pods.push(structuredClone(doc.objects.pods[0] as (typeof doc.objects.pods)[number]));
    (doc.objects.nodes[0] as { metadata: Record<string, string> }).metadata.namespace = 'shop';
    doc.logs.push({ namespace: 'shop', pod: 'nope', container: 'web', previous: 'x' }, { namespace: 'shop', pod: 'web-1', container: 'sidecar', previous: 'x' });
    const issues = issuesOf(doc);
    expect(issues.map((i) => i.path)).toEqual(['objects.nodes.0.metadata.namespace', 'objects.pods.2.metadata.name', 'logs.1.pod', 'logs.2.container']);
    expect(issues[3]?.message).toContain('it has: web');
  });
});
