import https from 'node:https';
import { existsSync, statSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCENARIO } from '../fakes/kubernetes';
import { withFakeSnapshot } from './helpers';
import type { ReplayServer } from '../../src-main/snapshots/replay/server';

/**
 * The read-only replay of a recorded snapshot of the fake cluster, over real HTTPS: discovery,
 * lists and gets, selectors, paging, the Table form, logs, writes refused, watch; then the same
 * through @kubernetes/client-node, as the built-in agent reads it.
 */

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
let s: Awaited<ReturnType<typeof withFakeSnapshot>>;
let replay: ReplayServer;

beforeAll(async () => {
  s = await withFakeSnapshot();
  replay = s.replay;
});
afterAll(async () => {
  await s.close();
});

type Answer = { status: number; type: string; text: string; json: () => Record<string, unknown> };

function request(pathAndQuery: string, options: { accept?: string; token?: string | null; method?: string } = {}): Promise<Answer> {
  const url = new URL(pathAndQuery, replay.url);
  return new Promise((resolve, reject) => {
    const req = https.request(
      url,
      {
        method: options.method ?? 'GET',
        ca: replay.caPem,
        headers: { accept: options.accept ?? 'application/json', ...(options.token === null ? {} : { authorization: `Bearer ${options.token ?? replay.token}` }) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), text, json: () => JSON.parse(text) as Record<string, unknown> }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

type Item = { metadata: { name: string; namespace?: string } };
const names = (a: Answer) => (a.json().items as Item[]).map((i) => i.metadata.name);

describe('the replay over HTTPS', () => {
  it('needs the kubeconfig token (401 Status without it), and its kubeconfig is 0600 in a private dir', async () => {
    expect((await request('/api/v1/pods', { token: null })).json()).toMatchObject({ kind: 'Status', code: 401, reason: 'Unauthorized' });
    expect((await request('/api/v1/pods', { token: 'nope' })).status).toBe(401);
    expect(statSync(replay.kubeconfigPath).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(replay.kubeconfigPath)).mode & 0o777).toBe(0o700);
    const kubeconfig = readFileSync(replay.kubeconfigPath, 'utf8');
    expect(kubeconfig).toContain(`server: "${replay.url}"`);
    expect(kubeconfig).toContain('certificate-authority-data: ');
  });

  it('discovery: version, core and group resource lists with verbs and short names', async () => {
    expect((await request('/version')).json()).toMatchObject({ major: '1', minor: '31', gitVersion: 'v1.31.0' });
    expect((await request('/api')).json()).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    const groups = (await request('/apis')).json().groups as { name: string }[];
    // authorization.k8s.io: the access reviews kubectl auth can-i creates.
    expect(groups.map((g) => g.name)).toEqual(['apps', 'batch', 'storage.k8s.io', 'networking.k8s.io', 'rbac.authorization.k8s.io', 'authorization.k8s.io']);
    const core = (await request('/api/v1')).json().resources as { name: string; verbs: string[]; shortNames?: string[]; namespaced: boolean }[];
    expect(core.find((r) => r.name === 'pods')).toMatchObject({ namespaced: true, kind: 'Pod', verbs: ['get', 'list', 'watch'], shortNames: ['po'] });
    expect(core.find((r) => r.name === 'pods/log')).toMatchObject({ verbs: ['get'] });
    expect(core.find((r) => r.name === 'nodes')).toMatchObject({ namespaced: false, shortNames: ['no'] });
    expect(core.some((r) => r.name === 'secrets')).toBe(false);
    expect(((await request('/apis/apps/v1')).json().resources as { name: string }[]).map((r) => r.name)).toEqual(['deployments', 'replicasets', 'statefulsets', 'daemonsets']);
    expect((await request('/apis/batch')).json()).toMatchObject({ kind: 'APIGroup', preferredVersion: { groupVersion: 'batch/v1' } });
    expect((await request('/apis/policy/v1')).status).toBe(404);
    // The OpenAPI documents kubectl downloads before a write: minimal, valid, one path per resource.
    const v2 = (await request('/openapi/v2')).json() as { swagger: string; paths: Record<string, unknown> };
    expect(v2.swagger).toBe('2.0');
    expect(Object.keys(v2.paths)).toContain('/api/v1/namespaces/{namespace}/pods/{name}');
    const v3 = (await request('/openapi/v3')).json() as { paths: Record<string, { serverRelativeURL: string }> };
    const appsUrl = v3.paths['apis/apps/v1']?.serverRelativeURL ?? '';
    expect(appsUrl).toMatch(/^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]+$/);
    const apps = (await request(appsUrl)).json() as { openapi: string; paths: Record<string, { patch?: Record<string, unknown> }> };
    expect(apps.openapi).toBe('3.0.0');
    expect(apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']?.patch).toMatchObject({
      'x-kubernetes-group-version-kind': { group: 'apps', version: 'v1', kind: 'Deployment' },
      parameters: [{ name: 'fieldValidation', in: 'query' }],
    });
    expect((await request('/openapi/v3/apis/policy/v1')).status).toBe(404);
  });

  it('list and get, cluster-wide and per namespace, with the API server answers for what is not there', async () => {
    const all = await request('/api/v1/pods');
    expect(all.json()).toMatchObject({ kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' } });
    expect(names(all)).toHaveLength(8);
    expect(names(await request('/api/v1/namespaces/shop/pods'))).toEqual(['api-5f6d7c8b9-p8r2m', 'cart-6b7c8d9e0-k3j4h', 'search-indexer-0', SCENARIO.crashLoopPod.name]);
    expect(names(await request('/api/v1/namespaces/nowhere/pods'))).toEqual([]);
    const pod = (await request(`/api/v1/namespaces/shop/pods/${SCENARIO.crashLoopPod.name}`)).json();
    expect(pod).toMatchObject({ kind: 'Pod', apiVersion: 'v1', metadata: { name: SCENARIO.crashLoopPod.name, namespace: 'shop' } });
    expect((await request('/apis/apps/v1/namespaces/shop/deployments/web')).json()).toMatchObject({ kind: 'Deployment', spec: { replicas: 3 } });
    expect((await request('/api/v1/nodes/node-3')).json()).toMatchObject({ kind: 'Node' });
    expect((await request('/api/v1/namespaces/shop')).json()).toMatchObject({ kind: 'Namespace', status: { phase: 'Active' } });
    expect((await request('/api/v1/namespaces/shop/pods/nope')).json()).toMatchObject({ kind: 'Status', code: 404, reason: 'NotFound', message: 'pods "nope" not found' });
    expect((await request('/apis/apps/v1/namespaces/shop/deployments/nope')).json()).toMatchObject({ message: 'deployments.apps "nope" not found', details: { group: 'apps' } });
    expect((await request('/api/v1/secrets')).status).toBe(404);
    for (const p of ['/apis/batch/v1/cronjobs', '/apis/networking.k8s.io/v1/ingresses', '/apis/storage.k8s.io/v1/storageclasses', '/api/v1/persistentvolumes', '/api/v1/namespaces/shop/endpoints', '/api/v1/configmaps']) {
      expect(names(await request(p)).length, p).toBeGreaterThan(0);
    }
  });

  it('labelSelector: equality and set-based; a bad one is a 400 Status', async () => {
    expect(names(await request('/api/v1/pods?labelSelector=app%3Dweb'))).toEqual([SCENARIO.crashLoopPod.name]);
    expect(names(await request(`/api/v1/pods?labelSelector=${encodeURIComponent('app in (web,api),app!=api')}`))).toEqual([SCENARIO.crashLoopPod.name]);
    expect(names(await request(`/api/v1/pods?labelSelector=${encodeURIComponent('app notin (web,api,cart,search,nginx,coredns,db,report)')}`))).toEqual([]);
    expect(names(await request(`/apis/apps/v1/replicasets?labelSelector=${encodeURIComponent('pod-template-hash')}`))).toEqual(['web-7d9c8b6f5']);
    expect((await request('/api/v1/pods?labelSelector=app%3D%3D%3D')).json()).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest' });
  });

  it('fieldSelector: name, namespace, phase, node, involvedObject.*; an unsupported field is a 400', async () => {
    expect(names(await request('/api/v1/pods?fieldSelector=status.phase%3DPending'))).toEqual(['api-5f6d7c8b9-p8r2m', 'search-indexer-0']);
    expect(names(await request(`/api/v1/pods?fieldSelector=${encodeURIComponent('spec.nodeName=')}`))).toEqual(['search-indexer-0']);
    expect(names(await request(`/api/v1/pods?fieldSelector=${encodeURIComponent('metadata.namespace=shop,status.phase!=Pending')}`))).toEqual(['cart-6b7c8d9e0-k3j4h', SCENARIO.crashLoopPod.name]);
    expect(names(await request(`/api/v1/nodes?fieldSelector=${encodeURIComponent('metadata.name=node-2')}`))).toEqual(['node-2']);
    const uid = ((await request(`/api/v1/namespaces/shop/pods/${SCENARIO.crashLoopPod.name}`)).json().metadata as { uid: string }).uid;
    // What kubectl describe pod asks for.
    const describe = `involvedObject.name=${SCENARIO.crashLoopPod.name},involvedObject.namespace=shop,involvedObject.uid=${uid}`;
    const events = (await request(`/api/v1/namespaces/shop/events?fieldSelector=${encodeURIComponent(describe)}`)).json().items as { reason: string }[];
    expect(events.map((e) => e.reason)).toEqual(['BackOff']);
    expect(names(await request(`/api/v1/events?fieldSelector=${encodeURIComponent('type=Warning,involvedObject.kind=Node')}`))).toEqual(['node-3.1']);
    expect((await request('/api/v1/pods?fieldSelector=spec.containers%3Dx')).json()).toMatchObject({ code: 400, message: 'field label not supported: spec.containers' });
  });

  it('limit and continue page through a list; a forged token is a 400', async () => {
    const first = (await request('/api/v1/pods?limit=3')).json();
    expect((first.items as Item[]).length).toBe(3);
    const meta = first.metadata as { continue: string; remainingItemCount: number };
    expect(meta.remainingItemCount).toBe(5);
    const seen = (first.items as Item[]).map((i) => i.metadata.name);
    let cont: string | undefined = meta.continue;
    while (cont) {
      const page = (await request(`/api/v1/pods?limit=3&continue=${encodeURIComponent(cont)}`)).json();
      seen.push(...(page.items as Item[]).map((i) => i.metadata.name));
      cont = (page.metadata as { continue?: string }).continue;
    }
    expect(seen).toEqual(names(await request('/api/v1/pods')));
    expect((await request('/api/v1/pods?limit=3&continue=garbage')).status).toBe(400);
    expect((await request('/api/v1/pods?limit=-1')).status).toBe(400);
  });

  it("the Table form kubectl asks for: kubectl's columns, STATUS as kubectl computes it, ages at recorded_at", async () => {
    const table = (await request('/api/v1/pods?limit=500', { accept: TABLE })).json();
    expect(table).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect((table.columnDefinitions as { name: string }[]).map((c) => c.name)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
    const rows = table.rows as { cells: unknown[]; object: { kind: string; metadata: { namespace: string } } }[];
    const byName = new Map(rows.map((r) => [r.cells[0], r]));
    expect(byName.get(SCENARIO.crashLoopPod.name)?.cells.slice(1, 5)).toEqual(['0/1', 'CrashLoopBackOff', '7 (9m ago)', '30m']);
    expect(byName.get(SCENARIO.imagePullPod.name)?.cells[2]).toBe('ImagePullBackOff');
    expect(byName.get(SCENARIO.pendingPod.name)?.cells[2]).toBe('Pending');
    expect(byName.get('db-migrate-28734120-5kq7d')?.cells[2]).toBe('Completed');
    expect(byName.get(SCENARIO.oomPod.name)?.cells.slice(1, 4)).toEqual(['1/1', 'Running', '3 (18m ago)']);
    expect(byName.get(SCENARIO.multiContainerPod.name)?.cells[1]).toBe('2/2');
    expect(byName.get(SCENARIO.crashLoopPod.name)?.object).toMatchObject({ kind: 'PartialObjectMetadata', metadata: { namespace: 'shop' } });

    const nodes = (await request('/api/v1/nodes', { accept: TABLE })).json().rows as { cells: unknown[] }[];
    expect(nodes.map((r) => r.cells.slice(0, 5))).toEqual([
      ['node-1', 'Ready', '<none>', '30m', 'v1.31.0'],
      ['node-2', 'Ready,SchedulingDisabled', '<none>', '30m', 'v1.31.0'],
      ['node-3', 'NotReady', '<none>', '30m', 'v1.31.0'],
    ]);
    const deploys = (await request('/apis/apps/v1/namespaces/shop/deployments', { accept: TABLE })).json().rows as { cells: unknown[] }[];
    expect(deploys.map((r) => r.cells.slice(0, 4))).toEqual([
      ['api', '0/1', 1, 0],
      ['web', '0/3', 3, 0],
    ]);
    const events = (await request('/api/v1/namespaces/shop/events', { accept: TABLE })).json().rows as { cells: unknown[] }[];
    expect(events.find((r) => r.cells[2] === 'FailedScheduling')?.cells.slice(0, 4)).toEqual(['3m29s', 'Warning', 'FailedScheduling', 'pod/search-indexer-0']);
    // One object: a Table with one row; v1beta1 when only that is asked; includeObject=Object.
    const one = (await request('/api/v1/nodes/node-3', { accept: TABLE })).json();
    expect((one.rows as unknown[]).length).toBe(1);
    expect((await request('/api/v1/nodes', { accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' })).json().apiVersion).toBe('meta.k8s.io/v1beta1');
    const withObject = (await request('/api/v1/nodes?includeObject=Object', { accept: TABLE })).json().rows as { object: { kind: string } }[];
    expect(withObject[0]?.object.kind).toBe('Node');
  });

  it('pod logs: container, previous, tailLines, limitBytes, and the kubelet 400s', async () => {
    const logs = `/api/v1/namespaces/shop/pods/${SCENARIO.crashLoopPod.name}/log`;
    const previous = await request(`${logs}?previous=true`);
    expect(previous.type).toBe('text/plain');
    expect(previous.text).toContain(SCENARIO.crashLogLine);
    expect((await request(`${logs}?previous=true&tailLines=1`)).text).toBe('exiting with status 1\n');
    expect((await request(`${logs}?container=web&limitBytes=8`)).text).toBe('starting');
    const multi = `/api/v1/namespaces/shop/pods/${SCENARIO.multiContainerPod.name}/log`;
    expect((await request(multi)).json()).toMatchObject({ code: 400, message: `a container name must be specified for pod ${SCENARIO.multiContainerPod.name}, choose one of: [cart envoy]` });
    expect((await request(`${multi}?container=envoy`)).text).toBe('envoy started\n');
    expect((await request(`${multi}?container=nope`)).json()).toMatchObject({ code: 400, message: `container nope is not valid for pod ${SCENARIO.multiContainerPod.name}` });
    expect((await request(`${multi}?container=envoy&previous=true`)).json()).toMatchObject({ code: 400, message: `previous terminated container "envoy" in pod "${SCENARIO.multiContainerPod.name}" not found` });
    expect((await request(`/api/v1/namespaces/shop/pods/${SCENARIO.imagePullPod.name}/log`)).json()).toMatchObject({ code: 400, message: `container "api" in pod "${SCENARIO.imagePullPod.name}" is waiting to start: trying and failing to pull image` });
    expect((await request(`/api/v1/namespaces/shop/pods/${SCENARIO.pendingPod.name}/log`)).text).toBe('');
    expect((await request('/api/v1/namespaces/shop/pods/nope/log')).status).toBe(404);
  });

  it('writes are 403 with a Status saying the cluster is a read-only snapshot', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const answer = await request(`/api/v1/namespaces/shop/pods/${SCENARIO.crashLoopPod.name}`, { method });
      expect(answer.status, method).toBe(403);
      expect(answer.json()).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403, message: expect.stringContaining('is forbidden: this cluster is a read-only snapshot') });
    }
    // exec, attach and port-forward (a GET upgraded to a WebSocket by recent kubectl) are refused the same way.
    for (const sub of ['exec?command=sh', 'attach', 'portforward']) {
      const answer = await request(`/api/v1/namespaces/shop/pods/${SCENARIO.crashLoopPod.name}/${sub}`);
      expect(answer.json(), sub).toMatchObject({ reason: 'Forbidden', code: 403 });
    }
  });

  it('a watch lists once and then ends at its timeout', async () => {
    const answer = await request('/api/v1/namespaces/shop/pods?watch=true&timeoutSeconds=1');
    const lines = answer.text.trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: Item });
    expect(lines.map((l) => l.type)).toEqual(['ADDED', 'ADDED', 'ADDED', 'ADDED']);
    expect((await request('/api/v1/namespaces/shop/pods?watch=true&timeoutSeconds=1&resourceVersion=1')).text).toBe('');
  });
});

describe('the replay through @kubernetes/client-node', () => {
  it('lists, pages, selects events and reads previous logs as the built-in agent does', async () => {
    const k8s = await import('@kubernetes/client-node');
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(replay.kubeconfigPath);
    const core = kc.makeApiClient(k8s.CoreV1Api);
    const apps = kc.makeApiClient(k8s.AppsV1Api);
    const page = await core.listPodForAllNamespaces({ limit: 5 });
    expect(page.items).toHaveLength(5);
    const rest = await core.listPodForAllNamespaces({ limit: 5, _continue: page.metadata?._continue });
    expect(rest.items).toHaveLength(3);
    const crash = page.items.concat(rest.items).find((p) => p.metadata?.name === SCENARIO.crashLoopPod.name);
    expect(crash?.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe('CrashLoopBackOff');
    expect(crash?.metadata?.creationTimestamp).toBeInstanceOf(Date);
    const events = await core.listNamespacedEvent({ namespace: 'shop', fieldSelector: `involvedObject.name=${SCENARIO.imagePullPod.name}` });
    expect(events.items.map((e) => e.reason).sort()).toEqual(['BackOff', 'Failed']);
    const log = await core.readNamespacedPodLog({ name: SCENARIO.crashLoopPod.name, namespace: 'shop', container: 'web', previous: true, tailLines: 2 });
    expect(log).toBe(`${SCENARIO.crashLogLine}\nexiting with status 1\n`);
    expect((await apps.listDeploymentForAllNamespaces()).items.map((d) => d.metadata?.name)).toEqual(['nginx', 'api', 'web']);
    const err = await core.deleteNamespacedPod({ name: SCENARIO.crashLoopPod.name, namespace: 'shop' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 403 });
  });

  it('closing the replay removes its kubeconfig and stops answering', async () => {
    const other = await withFakeSnapshot();
    const kubeconfig = other.replay.kubeconfigPath;
    await other.close();
    expect(existsSync(path.dirname(kubeconfig))).toBe(false);
    await expect(fetch(`${other.replay.url}/version`)).rejects.toThrow();
  });
});
