import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SNAPSHOT_FORMAT, type SnapshotSummary } from '../../shared';
import { json, makeBench, removeDir, tmpDir, type TestBench } from '../helpers/bench';

/**
 * Issue 34 item 4 through import and export (recording is test/snapshots/record.test.ts, against
 * the fake cluster that plants the same places): a secret planted in each place a red team found
 * one survive is in neither the stored files, the summary nor the export, and an export of a file
 * stored by an older version (before these rules) is sanitised as it is written.
 */

const PLANTED = 'Pl4nted-hunter2-9d1e0c';

/** A document with the secret in every place of the list, and a few more. */
function plantedDocument(): Record<string, unknown> {
  const lastApplied = JSON.stringify({ spec: { template: { spec: { containers: [{ env: [{ name: 'DB_PASSWORD', value: PLANTED }] }] } } } });
  return {
    format: SNAPSHOT_FORMAT,
    name: 'planted',
    description: `restored from s3://backup:${PLANTED}@bucket`,
    recorded_at: '2026-08-20T10:30:00Z',
    source: { server: `https://admin:${PLANTED}@203.0.113.10:6443` },
    objects: {
      cronjobs: [
        {
          metadata: { name: 'nightly', namespace: 'batch', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied } },
          spec: { schedule: '0 3 * * *', jobTemplate: { metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied } }, spec: { template: { spec: { containers: [{ name: 'n' }] } } } } },
        },
      ],
      pods: [
        {
          metadata: { name: 'web-1', namespace: 'shop' },
          spec: {
            nodeName: 'node-1',
            containers: [{ name: 'web', env: [{ name: 'TOKEN', value: PLANTED }] }],
            volumes: [{ name: 'share', flexVolume: { driver: 'acme/cifs', options: { user: 'web', password: PLANTED } } }],
          },
          status: { phase: 'Running', containerStatuses: [{ name: 'web', restartCount: 1, state: { running: {} }, lastState: { terminated: { exitCode: 1, reason: 'Error', message: `connect failed: password=${PLANTED}` } } }] },
        },
      ],
      persistentvolumes: [{ metadata: { name: 'pv-1' }, spec: { csi: { driver: 'smb.csi.k8s.io', volumeHandle: 'h', volumeAttributes: { password: PLANTED } } } }],
      storageclasses: [{ metadata: { name: 'fast' }, provisioner: 'p', parameters: { adminSecret: PLANTED, 'csi.storage.k8s.io/provisioner-secret-name': 'sc-creds' } }],
      events: [{ metadata: { name: 'web-1.1', namespace: 'shop' }, involvedObject: { kind: 'Pod', name: 'web-1' }, type: 'Warning', reason: 'Failed', message: `pull from https://robot:${PLANTED}@registry.example.com failed` }],
      configmaps: [{ metadata: { name: 'cfg', namespace: 'shop' }, data: { url: PLANTED }, stringData: { token: PLANTED } }],
    },
    logs: [{ namespace: 'shop', pod: 'web-1', container: 'web', previous: `starting\nusing DB_PASSWORD=${PLANTED}\nexit 1\n` }],
    warnings: [`token: ${PLANTED}`],
  };
}

let t: TestBench;
beforeAll(async () => {
  t = await makeBench();
});
afterAll(async () => {
  await t.close();
  await removeDir(t.dir);
});

async function storedTexts(id: string): Promise<string[]> {
  const dir = path.join(t.dir, 'snapshots');
  const names = (await readdir(dir)).filter((n) => n.startsWith(id));
  expect(names.length).toBeGreaterThan(0);
  return Promise.all(names.map((n) => readFile(path.join(dir, n), 'utf8')));
}

describe('no secret survives a snapshot', () => {
  it('import: the planted value is in no stored file, summary or export; what a troubleshooter needs stays', async () => {
    const res = await t.req({ method: 'POST', url: '/v1/snapshots/import', payload: plantedDocument() });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(201);
    expect(res.body).not.toContain(PLANTED);
    const summary = json<SnapshotSummary>(res);
    for (const text of await storedTexts(summary.snapshot_id)) expect(text).not.toContain(PLANTED);
    const exported = await t.req({ method: 'GET', url: `/v1/snapshots/${summary.snapshot_id}/export` });
    expect(exported.statusCode).toBe(200);
    expect(exported.body).not.toContain(PLANTED);
    expect(exported.body).not.toContain('last-applied-configuration');
    const doc = JSON.parse(exported.body) as { source: { server: string }; logs: { previous: string[] }[]; objects: { storageclasses: { parameters: Record<string, string> }[] } };
    expect(doc.source.server).toBe('https://203.0.113.10:6443');
    expect(doc.logs[0]?.previous).toEqual(['starting', 'using DB_PASSWORD=***', 'exit 1']);
    expect(doc.objects.storageclasses[0]?.parameters).toEqual({ adminSecret: '***', 'csi.storage.k8s.io/provisioner-secret-name': 'sc-creds' });
  });

  it('export of a file stored by an older version, before these rules: sanitised as it is written', async () => {
    const id = 'older-version-0a1b2c';
    const dataDir = await tmpDir();
    await mkdir(path.join(dataDir, 'snapshots'), { recursive: true, mode: 0o700 });
    // As an older version stored it: the document as it was given, no summary (it is rebuilt).
    await writeFile(path.join(dataDir, 'snapshots', `${id}.json`), JSON.stringify({ ...plantedDocument(), snapshot_id: id }), { mode: 0o600 });
    const other = await makeBench({ dir: dataDir });
    try {
      const exported = await other.req({ method: 'GET', url: `/v1/snapshots/${id}/export` });
      expect(exported.statusCode, exported.body.slice(0, 300)).toBe(200);
      expect(exported.body).not.toContain(PLANTED);
      expect(JSON.parse(exported.body)).toMatchObject({ snapshot_id: id, format: SNAPSHOT_FORMAT });
      const shown = await other.req({ method: 'GET', url: `/v1/snapshots/${id}` });
      expect(shown.body).not.toContain(PLANTED);
    } finally {
      await other.close();
      await removeDir(dataDir);
    }
  });
});
