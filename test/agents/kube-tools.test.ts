import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeReader, type KubeReader } from '../../src-main/agents/builtin/kube-client';
import { KUBERNETES_TOOLS } from '../../src-main/agents/builtin/tools';
import { isAgentError } from '../../src-main/agents/errors';
import { SCENARIO, startFakeKubernetes, type FakeKubernetes } from '../fakes/kubernetes';

let k8s: FakeKubernetes;
let kube: KubeReader;

function tool(name: string) {
  const t = KUBERNETES_TOOLS.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
}

beforeAll(async () => {
  k8s = await startFakeKubernetes();
  kube = await loadKubeReader(k8s.kubeconfigPath);
});
afterAll(async () => {
  await k8s.close();
});

describe('built-in tools against the fake Kubernetes API (client-node 2.x over http + skip-tls)', () => {
  it('lists unhealthy pods with reasons, restarts, exit codes and the unschedulable condition', async () => {
    const out = await tool('list_unhealthy_pods').execute({}, { kube });
    expect(out.ok).toBe(true);
    const text = out.content;
    expect(text).toContain(`shop/${SCENARIO.crashLoopPod.name}`);
    expect(text).toMatch(/waiting: CrashLoopBackOff/);
    expect(text).toMatch(/restarts: 7/);
    expect(text).toMatch(/last termination: Error, exit code 1/);
    expect(text).toContain('ImagePullBackOff');
    expect(text).toMatch(/OOMKilled, exit code 137/);
    expect(text).toMatch(/unschedulable: Unschedulable/);
    expect(text).not.toContain('nginx');
    expect(text).not.toContain('db-migrate');
    expect(text).not.toContain('cart-');
    expect(text).toMatch(/^4 unhealthy pods in all namespaces \(of 8\)/);
    // Sent with the kubeconfig's bearer token.
    expect(k8s.callsTo('/api/v1/pods')[0]?.headers.authorization).toBe(`Bearer ${k8s.token}`);
  });

  it('reads previous logs, honours tail_lines, and explains the API 400s', async () => {
    const prev = await tool('get_pod_logs').execute(
      { namespace: 'shop', pod: SCENARIO.crashLoopPod.name, previous: 'true', tail_lines: '2' },
      { kube },
    );
    expect(prev.ok).toBe(true);
    expect(prev.content).toContain(SCENARIO.crashLogLine);
    expect(prev.content).not.toContain('starting web');
    const call = k8s.callsTo(`/api/v1/namespaces/shop/pods/${SCENARIO.crashLoopPod.name}/log`).at(-1);
    expect(call?.query).toMatchObject({ previous: 'true', tailLines: '2' });

    const multi = await tool('get_pod_logs').execute({ namespace: 'shop', pod: SCENARIO.multiContainerPod.name }, { kube });
    expect(multi.ok).toBe(false);
    expect(multi.content).toMatch(/a container name must be specified.*choose one of: \[cart envoy\]/);

    const waiting = await tool('get_pod_logs').execute({ namespace: 'shop', pod: SCENARIO.imagePullPod.name }, { kube });
    expect(waiting.ok).toBe(false);
    expect(waiting.content).toMatch(/is waiting to start/);

    const missing = await tool('get_pod_logs').execute({ namespace: 'shop', pod: 'nope' }, { kube });
    expect(missing.content).toMatch(/404.*pods "nope" not found/);
  });

  it('rejects bad arguments with a message for the model', async () => {
    const bad = await tool('get_pod_logs').execute({ namespace: 'shop' }, { kube });
    expect(bad.ok).toBe(false);
    expect(bad.content).toMatch(/invalid arguments for get_pod_logs: pod/);
    const weird = await tool('list_unhealthy_pods').execute({ namespace: '../etc' }, { kube });
    expect(weird.ok).toBe(false);
  });

  it('lists Warning events newest first, including eventTime-only events', async () => {
    const out = await tool('list_warning_events').execute({}, { kube });
    expect(out.ok).toBe(true);
    const lines = out.content.split('\n').slice(1);
    expect(lines[0]).toContain('FailedScheduling'); // eventTime 10:26:30 is the newest
    expect(lines[1]).toContain('BackOff');
    expect(lines[1]).toContain('(x97)');
    expect(out.content).not.toContain('Started container');
    expect(k8s.callsTo('/api/v1/events').at(-1)?.query.fieldSelector).toBe('type=Warning');
  });

  it('lists unavailable deployments treating omitted counts as 0', async () => {
    const out = await tool('list_unavailable_deployments').execute({}, { kube });
    expect(out.content).toContain('shop/web: 0/3 available (ready 0, updated 3, unavailable 3)');
    expect(out.content).toContain('ProgressDeadlineExceeded');
    expect(out.content).toContain('shop/api: 0/1 available');
    expect(out.content).not.toContain('default/nginx');
  });

  it('shows NotReady and cordoned nodes', async () => {
    const out = await tool('get_node_conditions').execute({}, { kube });
    expect(out.content).toMatch(/node-3: NotReady \(Ready=Unknown NodeStatusUnknown: Kubelet stopped posting node status\.\)/);
    expect(out.content).toMatch(/node-2: cordoned/);
    expect(out.content).toMatch(/node-1: Ready/);
  });

  it('get_resources reads the other kinds (short names accepted) and names a bad kind', async () => {
    const policies = await tool('get_resources').execute({ kind: 'netpol', namespace: 'shop' }, { kube });
    expect(policies.content).toBe('1 networkpolicies in namespace shop:\n- shop/db-ingress: podSelector app=postgres policyTypes ["Ingress"] ingress [pods app=web ports TCP/5432]');
    const quota = await tool('get_resources').execute({ kind: 'quota' }, { kube });
    expect(quota.content).toContain('shop/compute: limits.memory 6Gi/16Gi, pods 6/20, requests.cpu 1500m/4, requests.memory 3Gi/8Gi');
    const svc = await tool('get_resources').execute({ kind: 'services', namespace: 'shop', name: 'postgres' }, { kube });
    expect(svc.content).toContain('shop/postgres: type ClusterIP clusterIP 10.96.40.2 selector app=postgresql ports 5432->5432/TCP');
    expect((await tool('get_resources').execute({ kind: 'endpoints', namespace: 'shop', name: 'postgres' }, { kube })).content).toContain('shop/postgres: ready <none>');
    expect((await tool('get_resources').execute({ kind: 'cronjobs' }, { kube })).content).toContain('batch/db-migrate: schedule "0 * * * *" suspend false');
    const bad = await tool('get_resources').execute({ kind: 'secrets' }, { kube });
    expect(bad.ok).toBe(false);
    expect(bad.content).toMatch(/invalid arguments for get_resources: kind: /);
  });

  it('lists namespaces', async () => {
    const out = await tool('list_namespaces').execute({}, { kube });
    expect(out.content).toContain('- shop (Active)');
  });

  it('turns 403 into "kubeconfig lacks permission"', async () => {
    k8s.setForbidden(['pods']);
    try {
      const out = await tool('list_unhealthy_pods').execute({}, { kube });
      expect(out.ok).toBe(false);
      expect(out.content).toMatch(/kubeconfig lacks permission to list pods in all namespaces \(403 Forbidden: pods is forbidden/);
    } finally {
      k8s.setForbidden([]);
    }
  });

  it('turns 401 into a credentials message', async () => {
    const bad = await startFakeKubernetes({ kubeconfigToken: 'wrong-token' });
    try {
      const reader = await loadKubeReader(bad.kubeconfigPath);
      const out = await tool('list_namespaces').execute({}, { kube: reader });
      expect(out.ok).toBe(false);
      expect(out.content).toMatch(/rejected the kubeconfig's credentials \(401 Unauthorized\)/);
    } finally {
      await bad.close();
    }
  });

  it('paginates lists with limit/continue', async () => {
    const reader = await loadKubeReader(k8s.kubeconfigPath, { pageSize: 3 });
    const pods = await reader.listPods(undefined);
    expect(pods).toHaveLength(8);
    expect(k8s.callsTo('/api/v1/pods').filter((c) => c.query.limit === '3')).toHaveLength(3);
  });

  it("sends all of a reader's requests through one connection pool, and close() ends it", async () => {
    const own = await startFakeKubernetes();
    try {
      const reader = await loadKubeReader(own.kubeconfigPath, { pageSize: 3 });
      await reader.listPods(undefined);
      await reader.listNamespaces();
      await reader.readPodLog({ namespace: 'shop', pod: SCENARIO.crashLoopPod.name, tailLines: 5, previous: true, limitBytes: 10_000 });
      // client-node alone builds a new pool per request: one connection per call. Shared, the
      // calls reuse connections (undici may open a second one while the first is being released).
      expect(own.calls.length).toBe(6);
      const ports = new Set(own.calls.map((c) => c.clientPort));
      expect(ports.size).toBeLessThanOrEqual(2);
      await reader.close();
      // Closed: the next request needs a new pool of its own.
      await reader.listNamespaces();
      const after = own.calls.at(-1)?.clientPort;
      expect(ports.has(after)).toBe(false);
      await reader.close();
    } finally {
      await own.close();
    }
  });

  it('reports a missing kubeconfig by path', async () => {
    const err = await loadKubeReader('/nonexistent/kube/config').catch((e: unknown) => e);
    expect(isAgentError(err, 'kubeconfig')).toBe(true);
    expect((err as Error).message).toBe('kubeconfig not found: /nonexistent/kube/config');
    const dir = await loadKubeReader(path.dirname(k8s.kubeconfigPath)).catch((e: unknown) => e);
    expect((dir as Error).message).toMatch(/^kubeconfig path is a directory/);
  });

  it('never quotes a broken kubeconfig (it may hold a token)', async () => {
    const file = path.join(path.dirname(k8s.kubeconfigPath), 'broken');
    await writeFile(file, 'users:\n- name: u\n  user:\n    token: s3cr3t-t0ken\n  bad: [unclosed\n');
    const err = await loadKubeReader(file).catch((e: unknown) => e);
    expect(isAgentError(err, 'kubeconfig')).toBe(true);
    expect((err as Error).message).toMatch(/^kubeconfig .*broken is not valid YAML \(line \d+\)$/);
    expect((err as Error).message).not.toContain('s3cr3t');
  });

  it('explains an unreachable API server', async () => {
    const down = await startFakeKubernetes();
    const reader = await loadKubeReader(down.kubeconfigPath);
    await down.close();
    const out = await tool('list_namespaces').execute({}, { kube: reader });
    expect(out.ok).toBe(false);
    expect(out.content).toBe(`error: cannot reach the Kubernetes API server at ${down.url} to list namespaces (ECONNREFUSED)`);
  });
});
