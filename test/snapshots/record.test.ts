import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SNAPSHOT_RESOURCES } from '../../shared';
import { KubeHttpError } from '../../src-main/snapshots/kube-http';
import { recordCluster, type RecordProgress } from '../../src-main/snapshots/record';
import { REDACTED } from '../../src-main/snapshots/sanitize';
import { SCENARIO, startFakeKubernetes, type FakeKubernetes } from '../fakes/kubernetes';
import { recordFake } from './helpers';

/** Recording the fake cluster through @kubernetes/client-node: what is kept, what never is, and the bounds. */

let k8s: FakeKubernetes;
beforeAll(async () => {
  k8s = await startFakeKubernetes();
});
afterAll(async () => {
  await k8s.close();
});

type Json = Record<string, unknown>;
const env = (o: unknown): Json[] => ((o as { env?: Json[] }).env ?? []) as Json[];

describe('recording the fake cluster', () => {
  it('captures every resource design §11 lists, with logs, and never the planted secret or a Secret', async () => {
    const before = k8s.calls.length;
    const progress: RecordProgress[] = [];
    const doc = await recordCluster({ name: 'fake', kubeconfig: k8s.kubeconfigPath, now: () => new Date('2026-08-20T10:30:00Z'), onProgress: (p) => progress.push(p) });
    const calls = k8s.calls.slice(before);

    // Every listed resource was asked for, and Secrets never were.
    expect(calls.some((c) => c.path.includes('secrets'))).toBe(false);
    expect(calls.every((c) => c.method === 'GET')).toBe(true);
    for (const r of SNAPSHOT_RESOURCES) expect(doc.objects[r].length, r).toBeGreaterThan(0);
    expect(doc.objects.pods.map((p) => p.metadata.name)).toContain(SCENARIO.crashLoopPod.name);
    expect(doc.source).toEqual({ server: k8s.url, kubernetes_version: 'v1.31.0' });
    expect(doc.recorded_at).toBe('2026-08-20T10:30:00Z');
    expect(doc.warnings).toEqual([]);

    // The planted value appears nowhere: env values, last-applied, config map data, Secret.
    const text = JSON.stringify(doc);
    expect(text).not.toContain(SCENARIO.plantedSecret);
    expect(text).not.toContain(Buffer.from(SCENARIO.plantedSecret).toString('base64'));
    expect(text).not.toContain('last-applied-configuration');

    // Names and valueFrom stay, in pods, templates, init containers and the cron job's nested template.
    const crash = doc.objects.pods.find((p) => p.metadata.name === SCENARIO.crashLoopPod.name) as Json;
    const webEnv = env(((crash.spec as Json).containers as Json[])[0]);
    expect(webEnv).toEqual([
      { name: 'DB_HOST', value: REDACTED },
      { name: 'DB_PASSWORD', value: REDACTED },
      { name: 'DB_USER', valueFrom: { secretKeyRef: { name: 'db-credentials', key: 'user' } } },
    ]);
    const sts = doc.objects.statefulsets[0] as Json;
    expect(env((((sts.spec as Json).template as Json).spec as { initContainers: Json[] }).initContainers[0])[1]).toEqual({ name: 'DB_PASSWORD', value: REDACTED });
    const deploy = doc.objects.deployments.find((d) => d.metadata.name === 'web');
    expect(deploy?.metadata.annotations).toEqual({ 'deployment.kubernetes.io/revision': '3' });
    const cm = doc.objects.configmaps.find((c) => c.metadata.name === 'web-config') as Json;
    expect(cm.data).toEqual({ DATABASE_URL: REDACTED, LOG_LEVEL: REDACTED });
    expect(cm.binaryData).toEqual({ 'cert.der': '' });

    // Logs: current and previous of each container that ran; none for a waiting or unscheduled one.
    const log = (pod: string, container: string) => doc.logs.find((l) => l.pod === pod && l.container === container);
    expect(log(SCENARIO.crashLoopPod.name, 'web')?.previous).toContain(SCENARIO.crashLogLine);
    expect(log(SCENARIO.oomPod.name, 'worker')?.previous?.length).toBe(30);
    expect(log(SCENARIO.imagePullPod.name, 'api')).toBeUndefined();
    expect(log(SCENARIO.pendingPod.name, 'indexer')).toBeUndefined();
    expect(log(SCENARIO.multiContainerPod.name, 'envoy')?.current).toEqual(['envoy started']);
    const logCalls = calls.filter((c) => c.path.endsWith('/log'));
    expect(logCalls.every((c) => c.query.tailLines === '200' && c.query.container !== undefined)).toBe(true);

    expect(progress[0]).toEqual({ phase: 'connect', server: k8s.url });
    expect(progress.filter((p) => p.phase === 'list').map((p) => (p as { resource: string }).resource).sort()).toEqual([...SNAPSHOT_RESOURCES].sort());
    expect(progress.at(-1)?.phase).toBe('done');
  });

  it('log_tail_lines bounds each log; 0 records none', async () => {
    const two = await recordFake(k8s, { logTailLines: 2 });
    expect(two.logs.find((l) => l.pod === SCENARIO.oomPod.name)?.previous).toEqual(['loading report batch 29/40', 'loading report batch 30/40']);
    const none = await recordFake(k8s, { logTailLines: 0 });
    expect(none.logs).toEqual([]);
  });

  it('only the namespaces asked for (nodes and other cluster-wide objects still come)', async () => {
    const doc = await recordCluster({ name: 'shop only', kubeconfig: k8s.kubeconfigPath, namespaces: ['shop'] });
    expect(doc.objects.namespaces.map((n) => n.metadata.name)).toEqual(['shop']);
    expect(new Set(doc.objects.pods.map((p) => p.metadata.namespace))).toEqual(new Set(['shop']));
    expect(doc.objects.nodes).toHaveLength(3);
    expect(doc.objects.storageclasses).toHaveLength(1);
    await expect(recordCluster({ name: 'x', kubeconfig: k8s.kubeconfigPath, namespaces: ['nope'] })).rejects.toThrow(/has no namespace nope/);
  });

  it('a resource the kubeconfig may not list is a warning, not a failure', async () => {
    k8s.setForbidden(['ingresses', 'persistentvolumes']);
    try {
      const doc = await recordFake(k8s);
      expect(doc.objects.ingresses).toEqual([]);
      expect(doc.objects.persistentvolumes).toEqual([]);
      expect(doc.warnings.join('\n')).toMatch(/ingresses not recorded: .*403/);
      expect(doc.warnings.join('\n')).toMatch(/persistentvolumes not recorded/);
      expect(doc.objects.pods.length).toBeGreaterThan(0);
    } finally {
      k8s.setForbidden([]);
    }
  });

  it('fails clearly: bad credentials, an unreachable cluster, a missing kubeconfig, the time bound', async () => {
    const wrong = await startFakeKubernetes({ kubeconfigToken: 'wrong' });
    try {
      await expect(recordFake(wrong)).rejects.toMatchObject({ kind: 'unauthorized', message: expect.stringContaining('401 Unauthorized') });
    } finally {
      await wrong.close();
    }

    // A cluster that is gone: its kubeconfig (kept elsewhere) points at a closed port.
    const gone = await startFakeKubernetes();
    const dir = await mkdtemp(path.join(tmpdir(), 'benchdesk-gone-'));
    const kubeconfig = path.join(dir, 'kubeconfig');
    await copyFile(gone.kubeconfigPath, kubeconfig);
    await gone.close();
    try {
      const err = await recordCluster({ name: 'x', kubeconfig }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KubeHttpError);
      expect(err).toMatchObject({ kind: 'unreachable', message: expect.stringContaining(`cannot reach the Kubernetes API at ${gone.url}`) });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }

    await expect(recordCluster({ name: 'x', kubeconfig: path.join(dir, 'missing') })).rejects.toMatchObject({ kind: 'kubeconfig', message: expect.stringContaining('kubeconfig not found') });

    const slow = await startFakeKubernetes({ latencyMs: 300 });
    try {
      const started = Date.now();
      await expect(recordCluster({ name: 'x', kubeconfig: slow.kubeconfigPath, deadlineMs: 500 })).rejects.toMatchObject({ kind: 'timeout', message: expect.stringContaining('could not be recorded within') });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await slow.close();
    }
  });
});
