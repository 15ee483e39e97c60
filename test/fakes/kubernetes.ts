/**
 * Fake Kubernetes API server (reference external-apis.md §D and §E.D) for the built-in agent's
 * tests. Plain node:http on 127.0.0.1:0, with a generated kubeconfig (http:// server +
 * `insecure-skip-tls-verify: true`, which @kubernetes/client-node 2.x accepts, and a bearer token).
 *
 *   const k8s = await startFakeKubernetes();
 *   ... loadKubeReader(k8s.kubeconfigPath) ...
 *   k8s.calls  // every request: method, path, query, headers
 *   await k8s.close();
 *
 * The seeded scenario cluster (SCENARIO) has a CrashLoopBackOff pod, an ImagePullBackOff pod, an
 * OOMKilled pod, an unschedulable Pending pod, healthy pods (one with two containers), a
 * Succeeded pod, deployments with omitted counts, a NotReady node and a cordoned one, and
 * Warning events about them (one with lastTimestamp null + eventTime). Options:
 * - `token`: the bearer token the server wants (a wrong or missing one gets 401 Status).
 * - `forbidden`: resources answering 403 Status, e.g. ['pods'], ['events'], ['pods/log'].
 * - `latencyMs`: delay before every answer.
 * - `kubeconfigToken`: token written into the kubeconfig (default: `token`), to test 401.
 * Lists honour `fieldSelector` (=, ==, != on dotted fields), equality `labelSelector`, `limit` and
 * `continue`. Logs are text/plain and honour `container`, `tailLines`, `previous`, `limitBytes`,
 * with the API's 400s for multi-container pods without `container` and waiting containers.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface RecordedKubeCall {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The client's port: calls that share one connection share it. */
  clientPort: number | undefined;
  status?: number;
}

export interface FakeKubernetesOptions {
  token?: string;
  kubeconfigToken?: string;
  forbidden?: string[];
  latencyMs?: number;
}

export interface FakeKubernetes {
  url: string;
  kubeconfigPath: string;
  token: string;
  calls: RecordedKubeCall[];
  /** Calls whose path starts with this prefix. */
  callsTo(prefix: string): RecordedKubeCall[];
  setForbidden(resources: string[]): void;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
type ContainerLogs = { current: string; previous?: string; waiting?: string };

const T0 = Date.parse('2026-08-20T10:00:00Z');
const at = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Names of the seeded objects, for assertions. */
export const SCENARIO = {
  crashLoopPod: { namespace: 'shop', name: 'web-7d9c8b6f5-x2k4q', container: 'web' },
  imagePullPod: { namespace: 'shop', name: 'api-5f6d7c8b9-p8r2m', container: 'api' },
  oomPod: { namespace: 'batch', name: 'report-worker-6c8d9f7b5-zzq1p', container: 'worker' },
  pendingPod: { namespace: 'shop', name: 'search-indexer-0' },
  multiContainerPod: { namespace: 'shop', name: 'cart-6b7c8d9e0-k3j4h', containers: ['cart', 'envoy'] },
  notReadyNode: 'node-3',
  cordonedNode: 'node-2',
  crashLogLine: 'FATAL: could not connect to database postgres.shop.svc:5432: connection refused',
} as const;

function meta(name: string, namespace: string | null, minutes: number, extra: Json = {}): Json {
  return {
    name,
    ...(namespace ? { namespace } : {}),
    uid: `uid-${name}`,
    resourceVersion: String(1000 + minutes),
    creationTimestamp: at(minutes),
    ...extra,
  };
}

function runningStatus(name: string, image: string, extra: Json = {}): Json {
  return { name, image, imageID: `${image}@sha256:0`, ready: true, started: true, restartCount: 0, state: { running: { startedAt: at(1) } }, ...extra };
}

function pod(namespace: string, name: string, containers: string[], status: Json, extraSpec: Json = {}): Json {
  return {
    metadata: meta(name, namespace, 0, { labels: { app: name.split('-')[0] } }),
    spec: { nodeName: 'node-1', restartPolicy: 'Always', containers: containers.map((c) => ({ name: c, image: `ghcr.io/acme/${c}:1.0` })), ...extraSpec },
    status,
  };
}

function seedPods(): { pods: Json[]; logs: Map<string, ContainerLogs> } {
  const s = SCENARIO;
  const logs = new Map<string, ContainerLogs>();
  const key = (ns: string, p: string, c: string): string => `${ns}/${p}/${c}`;
  const pods: Json[] = [
    pod(s.crashLoopPod.namespace, s.crashLoopPod.name, ['web'], {
      phase: 'Running',
      conditions: [
        { type: 'PodScheduled', status: 'True' },
        { type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [web]' },
      ],
      containerStatuses: [
        {
          name: 'web',
          image: 'ghcr.io/acme/web:1.4.2',
          ready: false,
          started: false,
          restartCount: 7,
          state: { waiting: { reason: 'CrashLoopBackOff', message: `back-off 5m0s restarting failed container=web pod=${s.crashLoopPod.name}_shop(uid)` } },
          lastState: { terminated: { exitCode: 1, reason: 'Error', startedAt: at(20), finishedAt: at(21) } },
        },
      ],
    }),
    pod(s.imagePullPod.namespace, s.imagePullPod.name, ['api'], {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'True' }],
      containerStatuses: [
        {
          name: 'api',
          image: 'ghcr.io/acme/api:9.9.9',
          ready: false,
          restartCount: 0,
          state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "ghcr.io/acme/api:9.9.9"' } },
        },
      ],
    }),
    pod(s.oomPod.namespace, s.oomPod.name, ['worker'], {
      phase: 'Running',
      conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: 'True' }],
      containerStatuses: [
        runningStatus('worker', 'ghcr.io/acme/worker:2.1', {
          restartCount: 3,
          lastState: { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: at(10), finishedAt: at(12) } },
        }),
      ],
    }),
    pod(s.pendingPod.namespace, s.pendingPod.name, ['indexer'], {
      phase: 'Pending',
      conditions: [
        { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 2 Insufficient cpu.' },
      ],
    }, { nodeName: undefined }),
    pod(s.multiContainerPod.namespace, s.multiContainerPod.name, ['cart', 'envoy'], {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: [runningStatus('cart', 'ghcr.io/acme/cart:3.0'), runningStatus('envoy', 'envoyproxy/envoy:v1.31')],
    }),
    pod('default', 'nginx-7c5ddbdf54-2xq9v', ['nginx'], { phase: 'Running', containerStatuses: [runningStatus('nginx', 'nginx:1.27')] }),
    pod('kube-system', 'coredns-76f75df574-8hk2p', ['coredns'], { phase: 'Running', containerStatuses: [runningStatus('coredns', 'coredns:1.11')] }),
    pod('batch', 'db-migrate-28734120-5kq7d', ['migrate'], {
      phase: 'Succeeded',
      containerStatuses: [{ name: 'migrate', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed', finishedAt: at(3) } } }],
    }),
  ];
  logs.set(key('shop', s.crashLoopPod.name, 'web'), {
    current: 'starting web 1.4.2\nconnecting to postgres.shop.svc:5432\n',
    previous: `starting web 1.4.2\nconnecting to postgres.shop.svc:5432\n${s.crashLogLine}\nexiting with status 1\n`,
  });
  logs.set(key('shop', s.imagePullPod.name, 'api'), {
    current: '',
    waiting: `container "api" in pod "${s.imagePullPod.name}" is waiting to start: trying and failing to pull image`,
  });
  logs.set(key('batch', s.oomPod.name, 'worker'), {
    current: 'loading report batch 1/40\n',
    previous: Array.from({ length: 30 }, (_, i) => `loading report batch ${i + 1}/40`).join('\n') + '\n',
  });
  logs.set(key('shop', s.multiContainerPod.name, 'cart'), { current: 'cart ready on :8080\n' });
  logs.set(key('shop', s.multiContainerPod.name, 'envoy'), { current: 'envoy started\n' });
  logs.set(key('default', 'nginx-7c5ddbdf54-2xq9v', 'nginx'), { current: '127.0.0.1 - - "GET / HTTP/1.1" 200\n' });
  logs.set(key('kube-system', 'coredns-76f75df574-8hk2p', 'coredns'), { current: '.:53\n' });
  logs.set(key('batch', 'db-migrate-28734120-5kq7d', 'migrate'), { current: 'migrations applied\n' });
  return { pods, logs };
}

function event(namespace: string, name: string, involved: Json, reason: string, message: string, type: string, last: string | null, extra: Json = {}): Json {
  return {
    metadata: meta(name, namespace, 1),
    involvedObject: involved,
    reason,
    message,
    source: { component: 'kubelet', host: 'node-1' },
    firstTimestamp: last ? at(1) : null,
    lastTimestamp: last,
    count: last ? 1 : undefined,
    type,
    eventTime: null,
    reportingComponent: 'kubelet',
    reportingInstance: 'node-1',
    ...extra,
  };
}

function seedEvents(): Json[] {
  const s = SCENARIO;
  const podRef = (p: { namespace: string; name: string }): Json => ({ kind: 'Pod', namespace: p.namespace, name: p.name, apiVersion: 'v1' });
  return [
    event('shop', `${s.crashLoopPod.name}.1`, podRef(s.crashLoopPod), 'BackOff', `Back-off restarting failed container web in pod ${s.crashLoopPod.name}_shop(uid)`, 'Warning', at(25), { count: 97 }),
    event('shop', `${s.imagePullPod.name}.1`, podRef(s.imagePullPod), 'Failed', 'Failed to pull image "ghcr.io/acme/api:9.9.9": manifest unknown', 'Warning', at(24), { count: 12 }),
    event('shop', `${s.imagePullPod.name}.2`, podRef(s.imagePullPod), 'BackOff', 'Back-off pulling image "ghcr.io/acme/api:9.9.9"', 'Warning', at(23), { count: 40 }),
    // Created through events.k8s.io/v1 by the scheduler: no lastTimestamp, no count, eventTime set.
    event('shop', `${s.pendingPod.name}.1`, podRef(s.pendingPod), 'FailedScheduling', '0/3 nodes are available: 2 Insufficient cpu.', 'Warning', null, {
      eventTime: '2026-08-20T10:26:30.123456Z',
      reportingComponent: 'default-scheduler',
      source: {},
    }),
    event('batch', `${s.oomPod.name}.1`, podRef(s.oomPod), 'BackOff', `Back-off restarting failed container worker in pod ${s.oomPod.name}`, 'Warning', at(13), { count: 3 }),
    event('default', 'node-3.1', { kind: 'Node', name: 'node-3', apiVersion: 'v1' }, 'NodeNotReady', 'Node node-3 status is now: NodeNotReady', 'Warning', at(5)),
    event('default', 'nginx-7c5ddbdf54-2xq9v.1', { kind: 'Pod', namespace: 'default', name: 'nginx-7c5ddbdf54-2xq9v' }, 'Started', 'Started container nginx', 'Normal', at(2)),
  ];
}

function seedDeployments(): Json[] {
  const cond = (type: string, status: string, reason: string, message: string): Json => ({ type, status, reason, message, lastUpdateTime: at(20), lastTransitionTime: at(20) });
  return [
    {
      metadata: meta('web', 'shop', 0, { generation: 3 }),
      spec: { replicas: 3, selector: { matchLabels: { app: 'web' } } },
      // readyReplicas and availableReplicas omitted: they are 0.
      status: {
        observedGeneration: 3,
        replicas: 3,
        updatedReplicas: 3,
        unavailableReplicas: 3,
        conditions: [
          cond('Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.'),
          cond('Progressing', 'False', 'ProgressDeadlineExceeded', 'ReplicaSet "web-7d9c8b6f5" has timed out progressing.'),
        ],
      },
    },
    {
      metadata: meta('api', 'shop', 0, { generation: 1 }),
      spec: { replicas: 1, selector: { matchLabels: { app: 'api' } } },
      status: { observedGeneration: 1, replicas: 1, updatedReplicas: 1, unavailableReplicas: 1, conditions: [cond('Available', 'False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.')] },
    },
    {
      metadata: meta('nginx', 'default', 0, { generation: 1 }),
      spec: { replicas: 1, selector: { matchLabels: { app: 'nginx' } } },
      status: { observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1, conditions: [cond('Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.')] },
    },
  ];
}

function seedNodes(): Json[] {
  const healthy = (reason: string, type: string): Json => ({ type, status: 'False', reason, message: `kubelet has ${reason}`, lastHeartbeatTime: at(25), lastTransitionTime: at(0) });
  const node = (name: string, ready: Json, spec: Json = {}): Json => ({
    metadata: meta(name, null, 0, { labels: { 'kubernetes.io/hostname': name } }),
    spec,
    status: {
      conditions: [
        healthy('KubeletHasSufficientMemory', 'MemoryPressure'),
        healthy('KubeletHasNoDiskPressure', 'DiskPressure'),
        healthy('KubeletHasSufficientPID', 'PIDPressure'),
        { lastHeartbeatTime: at(25), lastTransitionTime: at(0), ...ready },
      ],
      capacity: { cpu: '4', memory: '16315452Ki', pods: '110' },
      allocatable: { cpu: '4', memory: '16213052Ki', pods: '110' },
      nodeInfo: { kubeletVersion: 'v1.31.0' },
    },
  });
  return [
    node('node-1', { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }),
    node('node-2', { type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'kubelet is posting ready status' }, {
      unschedulable: true,
      taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }],
    }),
    node('node-3', { type: 'Ready', status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.' }, {
      taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' }],
    }),
  ];
}

const NAMESPACES = ['default', 'kube-system', 'shop', 'batch'];

function getField(obj: unknown, dotted: string): string | undefined {
  let cur: unknown = obj;
  for (const part of dotted.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Json)[part];
  }
  return cur === undefined || cur === null ? undefined : String(cur);
}

/** fieldSelector / equality labelSelector: terms joined by ",", each k=v, k==v or k!=v. */
function matches(selector: string | undefined, read: (key: string) => string | undefined): boolean {
  if (!selector) return true;
  for (const term of selector.split(',')) {
    const m = /^([^!=]+)(!=|==|=)(.*)$/.exec(term.trim());
    if (!m) continue;
    const [, key = '', op, value = ''] = m;
    const actual = read(key.trim()) ?? '';
    if (op === '!=' ? actual === value : actual !== value) return false;
  }
  return true;
}

function status(code: number, reason: string, message: string, details?: Json): Json {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}

function kubeconfigYaml(server: string, token: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'current-context: fake',
    'clusters:',
    '- name: fake-cluster',
    '  cluster:',
    `    server: ${server}`,
    '    insecure-skip-tls-verify: true',
    'users:',
    '- name: fake-user',
    '  user:',
    `    token: ${token}`,
    'contexts:',
    '- name: fake',
    '  context:',
    '    cluster: fake-cluster',
    '    user: fake-user',
    '',
  ].join('\n');
}

export async function startFakeKubernetes(options: FakeKubernetesOptions = {}): Promise<FakeKubernetes> {
  const token = options.token ?? randomBytes(16).toString('hex');
  let forbidden = new Set(options.forbidden ?? []);
  const { pods, logs } = seedPods();
  const events = seedEvents();
  const deployments = seedDeployments();
  const nodes = seedNodes();
  const namespaces = NAMESPACES.map((n) => ({ metadata: meta(n, null, 0), spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } }));
  const calls: RecordedKubeCall[] = [];
  let port = 0;

  const sendJson = (res: ServerResponse, code: number, body: unknown): void => {
    const text = JSON.stringify(body);
    res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const sendText = (res: ServerResponse, code: number, body: string): void => {
    res.writeHead(code, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };

  const list = (res: ServerResponse, kind: string, items: Json[], query: Record<string, string>): void => {
    let filtered = items.filter(
      (it) => matches(query.fieldSelector, (k) => getField(it, k)) && matches(query.labelSelector, (k) => getField(it, `metadata.labels.${k}`)),
    );
    const offset = query.continue ? Number(Buffer.from(query.continue, 'base64url').toString('utf8')) : 0;
    const limit = query.limit ? Number(query.limit) : 0;
    let cont: string | undefined;
    filtered = filtered.slice(offset);
    if (limit > 0 && filtered.length > limit) {
      filtered = filtered.slice(0, limit);
      cont = Buffer.from(String(offset + limit)).toString('base64url');
    }
    sendJson(res, 200, {
      kind,
      apiVersion: kind === 'DeploymentList' ? 'apps/v1' : 'v1',
      metadata: { resourceVersion: '2000', ...(cont ? { continue: cont } : {}) },
      items: filtered,
    });
  };

  const forbid = (res: ServerResponse, resource: string, namespace?: string): boolean => {
    if (!forbidden.has(resource)) return false;
    const [plural = resource, sub] = resource.split('/');
    const scope = namespace ? `in the namespace "${namespace}"` : 'at the cluster scope';
    const verb = sub === 'log' ? 'get' : 'list';
    sendJson(
      res,
      403,
      status(403, 'Forbidden', `${resource} is forbidden: User "system:serviceaccount:ro:agent" cannot ${verb} resource "${plural}"${sub ? ` subresource "${sub}"` : ''} in API group "${plural === 'deployments' ? 'apps' : ''}" ${scope}`, { kind: plural }),
    );
    return true;
  };

  const podLog = (res: ServerResponse, ns: string, name: string, query: Record<string, string>): void => {
    const p = pods.find((x) => getField(x, 'metadata.namespace') === ns && getField(x, 'metadata.name') === name);
    if (!p) return sendJson(res, 404, status(404, 'NotFound', `pods "${name}" not found`, { name, kind: 'pods' }));
    const containers = ((p.spec as Json).containers as Json[]).map((c) => String(c.name));
    let container = query.container;
    if (!container) {
      if (containers.length > 1) {
        return sendJson(res, 400, status(400, 'BadRequest', `a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`));
      }
      container = containers[0] ?? '';
    }
    if (!containers.includes(container)) {
      return sendJson(res, 400, status(400, 'BadRequest', `container ${container} is not valid for pod ${name}`));
    }
    const entry = logs.get(`${ns}/${name}/${container}`) ?? { current: '' };
    if (entry.waiting) return sendJson(res, 400, status(400, 'BadRequest', entry.waiting));
    let text: string;
    if (query.previous === 'true') {
      if (entry.previous === undefined) {
        return sendJson(res, 400, status(400, 'BadRequest', `previous terminated container "${container}" in pod "${name}" not found`));
      }
      text = entry.previous;
    } else {
      text = entry.current;
    }
    if (query.tailLines) {
      const lines = text.split('\n');
      const trailing = lines[lines.length - 1] === '' ? lines.pop() : undefined;
      text = lines.slice(-Number(query.tailLines)).join('\n') + (trailing === '' ? '\n' : '');
    }
    if (query.limitBytes) text = Buffer.from(text).subarray(0, Number(query.limitBytes)).toString('utf8');
    sendText(res, 200, text);
  };

  const route = (req: IncomingMessage, res: ServerResponse, pathname: string, query: Record<string, string>): void => {
    if (req.method !== 'GET') return sendJson(res, 405, status(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'));
    if (req.headers.authorization !== `Bearer ${token}`) return sendJson(res, 401, status(401, 'Unauthorized', 'Unauthorized'));

    if (pathname === '/version') {
      return sendJson(res, 200, { major: '1', minor: '31', gitVersion: 'v1.31.0', platform: 'linux/amd64', goVersion: 'go1.22.5' });
    }
    if (pathname === '/api') {
      return sendJson(res, 200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${port}` }] });
    }
    if (pathname === '/apis') {
      return sendJson(res, 200, {
        kind: 'APIGroupList',
        apiVersion: 'v1',
        groups: [{ name: 'apps', versions: [{ groupVersion: 'apps/v1', version: 'v1' }], preferredVersion: { groupVersion: 'apps/v1', version: 'v1' } }],
      });
    }

    const nsOf = (it: Json): string | undefined => getField(it, 'metadata.namespace');
    let m: RegExpExecArray | null;
    if (pathname === '/api/v1/namespaces') return forbid(res, 'namespaces') ? undefined : list(res, 'NamespaceList', namespaces, query);
    if (pathname === '/api/v1/pods') return forbid(res, 'pods') ? undefined : list(res, 'PodList', pods, query);
    if (pathname === '/api/v1/events') return forbid(res, 'events') ? undefined : list(res, 'EventList', events, query);
    if (pathname === '/api/v1/nodes') return forbid(res, 'nodes') ? undefined : list(res, 'NodeList', nodes, query);
    if (pathname === '/apis/apps/v1/deployments') return forbid(res, 'deployments') ? undefined : list(res, 'DeploymentList', deployments, query);
    if ((m = /^\/api\/v1\/nodes\/([^/]+)$/.exec(pathname))) {
      const node = nodes.find((n) => getField(n, 'metadata.name') === m?.[1]);
      return node ? sendJson(res, 200, node) : sendJson(res, 404, status(404, 'NotFound', `nodes "${m[1]}" not found`, { name: m[1], kind: 'nodes' }));
    }
    if ((m = /^\/api\/v1\/namespaces\/([^/]+)\/(pods|events)(?:\/([^/]+)(\/log)?)?$/.exec(pathname))) {
      const [, ns = '', resource = '', name, log] = m;
      if (log && name) return forbid(res, 'pods/log', ns) ? undefined : podLog(res, ns, name, query);
      if (forbid(res, resource, ns)) return;
      const items = (resource === 'pods' ? pods : events).filter((it) => nsOf(it) === ns);
      if (!name) return list(res, resource === 'pods' ? 'PodList' : 'EventList', items, query);
      const item = items.find((it) => getField(it, 'metadata.name') === name);
      return item ? sendJson(res, 200, item) : sendJson(res, 404, status(404, 'NotFound', `${resource} "${name}" not found`, { name, kind: resource }));
    }
    if ((m = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/deployments(?:\/([^/]+))?$/.exec(pathname))) {
      const [, ns = '', name] = m;
      if (forbid(res, 'deployments', ns)) return;
      const items = deployments.filter((it) => nsOf(it) === ns);
      if (!name) return list(res, 'DeploymentList', items, query);
      const item = items.find((it) => getField(it, 'metadata.name') === name);
      return item ? sendJson(res, 200, item) : sendJson(res, 404, status(404, 'NotFound', `deployments.apps "${name}" not found`, { name, kind: 'deployments' }));
    }
    sendJson(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const query = Object.fromEntries(url.searchParams.entries());
    const call: RecordedKubeCall = { method: req.method ?? 'GET', path: url.pathname, query, headers: req.headers, clientPort: req.socket.remotePort };
    calls.push(call);
    res.on('finish', () => {
      call.status = res.statusCode;
    });
    req.resume();
    const answer = (): void => {
      try {
        route(req, res, url.pathname, query);
      } catch (err) {
        sendJson(res, 500, status(500, 'InternalError', `fake kubernetes: ${String(err)}`));
      }
    };
    if (options.latencyMs) setTimeout(answer, options.latencyMs);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'benchdesk-fake-k8s-'));
  const kubeconfigPath = path.join(dir, 'kubeconfig');
  await writeFile(kubeconfigPath, kubeconfigYaml(url, options.kubeconfigToken ?? token), { mode: 0o600 });

  return {
    url,
    kubeconfigPath,
    token,
    calls,
    callsTo: (prefix) => calls.filter((c) => c.path.startsWith(prefix)),
    setForbidden: (resources) => {
      forbidden = new Set(resources);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
