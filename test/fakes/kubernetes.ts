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
 * Warning events about them (one with lastTimestamp null + eventTime), and the other resources a
 * snapshot records (replica sets, a stateful set, a daemon set, a job and a cron job, services
 * and endpoints, volumes and claims, a storage class, an ingress, config maps) plus a Secret. A
 * secret-looking value (SCENARIO.plantedSecret) is planted in env values, a last-applied
 * annotation, a config map and the Secret: a recording must never hold it. Options:
 * - `token`: the bearer token the server wants (a wrong or missing one gets 401 Status).
 * - `forbidden`: resources answering 403 Status, e.g. ['pods'], ['events'], ['pods/log'].
 * - `latencyMs`: delay before every answer.
 * - `kubeconfigToken`: token written into the kubeconfig (default: `token`), to test 401.
 * - `tls`: HTTPS with a self-signed CA in the kubeconfig, for the real kubectl (it never sends a
 *   bearer token over http://).
 * Lists come in the API server's order (namespace, then name) and honour `fieldSelector` (=, ==,
 * != on dotted fields), `labelSelector` (equality and set-based), `limit` and `continue`. Logs are text/plain and honour `container`, `tailLines`,
 * `previous`, `limitBytes`, with the API's 400s for multi-container pods without `container` and
 * waiting containers. kubectl's Table form (Accept: …;as=Table;g=meta.k8s.io) is answered with the
 * columns of src-main/snapshots/table.ts, the code the snapshot replay uses, ages counted from
 * now; discovery lists every resource served. Writes are 405.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RESOURCES, apiVersionOf, groupVersions, type ResourceInfo } from '../../src-main/snapshots/resources';
import { parseLabelSelector, SelectorError } from '../../src-main/snapshots/selectors';
import { acceptedForm, tableRow, toTable } from '../../src-main/snapshots/table';
import { replayCertificate } from '../../src-main/snapshots/replay/tls';
import type { SnapshotResource } from '../../shared/snapshots';

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
  /**
   * Serve HTTPS with a self-signed certificate (in the kubeconfig's certificate-authority-data):
   * the real kubectl sends its bearer token only over TLS.
   */
  tls?: boolean;
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
  /** Planted in env values, a last-applied annotation, a config map and a Secret: never in a recording. */
  plantedSecret: 'hunter2-Pl4nted-S3cret-7f3a9c',
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

/** The env a real deployment of `web` would carry: a literal password, and a reference to a Secret. */
function plantedEnv(): Json[] {
  return [
    { name: 'DB_HOST', value: 'postgres.shop.svc' },
    { name: 'DB_PASSWORD', value: SCENARIO.plantedSecret },
    { name: 'DB_USER', valueFrom: { secretKeyRef: { name: 'db-credentials', key: 'user' } } },
  ];
}

function withEnv(p: Json): Json {
  const spec = p.spec as Json;
  for (const c of spec.containers as Json[]) c.env = plantedEnv();
  return p;
}

function seedPods(): { pods: Json[]; logs: Map<string, ContainerLogs> } {
  const s = SCENARIO;
  const logs = new Map<string, ContainerLogs>();
  const key = (ns: string, p: string, c: string): string => `${ns}/${p}/${c}`;
  const pods: Json[] = [
    withEnv(pod(s.crashLoopPod.namespace, s.crashLoopPod.name, ['web'], {
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
    })),
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
          // Restarted after the OOM kill: the running instance began after the last one ended.
          state: { running: { startedAt: at(12.5) } },
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
    // An event seen once was first seen when it was last seen (the snapshot lint checks it).
    firstTimestamp: last ? (typeof extra.count === 'number' && extra.count > 1 ? at(1) : last) : null,
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
      metadata: meta('web', 'shop', 0, {
        generation: 3,
        labels: { app: 'web' },
        // kubectl apply keeps the whole applied object here, env values included.
        annotations: {
          'deployment.kubernetes.io/revision': '3',
          'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', spec: { template: { spec: { containers: [{ name: 'web', env: plantedEnv() }] } } } }),
        },
      }),
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'ghcr.io/acme/web:1.4.2', env: plantedEnv() }] } },
      },
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
  // The node controller sets every condition of a node whose kubelet stopped posting to Unknown,
  // at least its grace period (40 s) after the last heartbeat.
  const lost = { status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastHeartbeatTime: at(4), lastTransitionTime: at(5) };
  const node = (name: string, ready: Json, spec: Json = {}): Json => ({
    metadata: meta(name, null, 0, { labels: { 'kubernetes.io/hostname': name } }),
    spec,
    status: {
      conditions: [
        healthy('KubeletHasSufficientMemory', 'MemoryPressure'),
        healthy('KubeletHasNoDiskPressure', 'DiskPressure'),
        healthy('KubeletHasSufficientPID', 'PIDPressure'),
        { lastHeartbeatTime: at(25), lastTransitionTime: at(0), ...ready },
      ].map((c) => (ready.status === 'Unknown' ? { ...c, ...lost } : c)),
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

/** A pod template as controllers carry it, with the planted env (init containers too). */
function template(app: string, image: string, extra: Json = {}): Json {
  return { metadata: { labels: { app } }, spec: { containers: [{ name: app, image, env: plantedEnv() }], ...extra } };
}

/** Every other resource a snapshot records, seeded around the same scenario. */
function seedOthers(): Partial<Record<SnapshotResource, Json[]>> {
  const owner = (kind: string, name: string): Json[] => [{ apiVersion: 'apps/v1', kind, name, uid: `uid-${name}`, controller: true, blockOwnerDeletion: true }];
  return {
    replicasets: [
      {
        metadata: meta('web-7d9c8b6f5', 'shop', 0, { labels: { app: 'web', 'pod-template-hash': '7d9c8b6f5' }, ownerReferences: owner('Deployment', 'web') }),
        spec: { replicas: 3, selector: { matchLabels: { app: 'web', 'pod-template-hash': '7d9c8b6f5' } }, template: template('web', 'ghcr.io/acme/web:1.4.2') },
        status: { replicas: 3, fullyLabeledReplicas: 3, observedGeneration: 3 },
      },
      {
        metadata: meta('nginx-7c5ddbdf54', 'default', 0, { labels: { app: 'nginx' }, ownerReferences: owner('Deployment', 'nginx') }),
        spec: { replicas: 1, selector: { matchLabels: { app: 'nginx' } }, template: template('nginx', 'nginx:1.27') },
        status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 },
      },
    ],
    statefulsets: [
      {
        metadata: meta('search-indexer', 'shop', 0, { labels: { app: 'search' } }),
        spec: {
          replicas: 1,
          serviceName: 'search',
          selector: { matchLabels: { app: 'search' } },
          template: template('indexer', 'ghcr.io/acme/indexer:2.0', { initContainers: [{ name: 'init-schema', image: 'ghcr.io/acme/indexer:2.0', env: plantedEnv() }] }),
          volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'fast-ssd', resources: { requests: { storage: '50Gi' } } } }],
        },
        status: { replicas: 1, currentReplicas: 1, updatedReplicas: 1, availableReplicas: 0 },
      },
    ],
    daemonsets: [
      {
        metadata: meta('node-exporter', 'kube-system', 0, { labels: { app: 'node-exporter' } }),
        spec: { selector: { matchLabels: { app: 'node-exporter' } }, template: template('node-exporter', 'prom/node-exporter:v1.8.2', { nodeSelector: { 'kubernetes.io/os': 'linux' } }) },
        status: { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 3, numberAvailable: 2, numberUnavailable: 1 },
      },
    ],
    jobs: [
      {
        metadata: meta('db-migrate-28734120', 'batch', 0, { labels: { 'job-name': 'db-migrate-28734120' } }),
        spec: { completions: 1, parallelism: 1, backoffLimit: 6, template: template('migrate', 'ghcr.io/acme/migrate:1.0', { restartPolicy: 'Never' }) },
        status: { succeeded: 1, startTime: at(1), completionTime: at(3), conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: at(3) }] },
      },
    ],
    cronjobs: [
      {
        metadata: meta('db-migrate', 'batch', 0),
        spec: {
          schedule: '0 * * * *',
          suspend: false,
          jobTemplate: { spec: { template: template('migrate', 'ghcr.io/acme/migrate:1.0', { restartPolicy: 'Never', initContainers: [{ name: 'wait-db', image: 'busybox:1.36', env: plantedEnv() }] }) } },
        },
        status: { lastScheduleTime: at(0), lastSuccessfulTime: at(3) },
      },
    ],
    services: [
      {
        metadata: meta('web', 'shop', 0, { labels: { app: 'web' } }),
        spec: { type: 'ClusterIP', clusterIP: '10.96.12.34', clusterIPs: ['10.96.12.34'], selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] },
        status: { loadBalancer: {} },
      },
      {
        // Its selector matches no pod.
        metadata: meta('postgres', 'shop', 0),
        spec: { type: 'ClusterIP', clusterIP: '10.96.40.2', clusterIPs: ['10.96.40.2'], selector: { app: 'postgresql' }, ports: [{ port: 5432, targetPort: 5432, protocol: 'TCP' }] },
        status: { loadBalancer: {} },
      },
      {
        metadata: meta('kubernetes', 'default', 0, { labels: { component: 'apiserver', provider: 'kubernetes' } }),
        spec: { type: 'ClusterIP', clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], ports: [{ name: 'https', port: 443, targetPort: 6443, protocol: 'TCP' }] },
        status: { loadBalancer: {} },
      },
    ],
    endpoints: [
      {
        metadata: meta('web', 'shop', 0, { labels: { app: 'web' } }),
        subsets: [{ notReadyAddresses: [{ ip: '10.244.1.17', targetRef: { kind: 'Pod', namespace: 'shop', name: SCENARIO.crashLoopPod.name } }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }],
      },
      { metadata: meta('postgres', 'shop', 0) },
      { metadata: meta('kubernetes', 'default', 0), subsets: [{ addresses: [{ ip: '10.0.0.10' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }] },
    ],
    persistentvolumeclaims: [
      {
        metadata: meta('data-search-indexer-0', 'shop', 0, { labels: { app: 'search' } }),
        spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'fast-ssd', volumeMode: 'Filesystem', resources: { requests: { storage: '50Gi' } } },
        status: { phase: 'Pending' },
      },
      {
        metadata: meta('reports', 'batch', 0),
        spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'standard', volumeName: 'pv-reports', volumeMode: 'Filesystem', resources: { requests: { storage: '10Gi' } } },
        status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '10Gi' } },
      },
    ],
    persistentvolumes: [
      {
        metadata: meta('pv-reports', null, 0),
        spec: {
          capacity: { storage: '10Gi' },
          accessModes: ['ReadWriteOnce'],
          persistentVolumeReclaimPolicy: 'Delete',
          storageClassName: 'standard',
          volumeMode: 'Filesystem',
          claimRef: { kind: 'PersistentVolumeClaim', namespace: 'batch', name: 'reports' },
          hostPath: { path: '/var/lib/reports' },
        },
        status: { phase: 'Bound' },
      },
    ],
    storageclasses: [
      {
        metadata: meta('standard', null, 0, { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }),
        provisioner: 'rancher.io/local-path',
        reclaimPolicy: 'Delete',
        volumeBindingMode: 'WaitForFirstConsumer',
      },
    ],
    ingresses: [
      {
        metadata: meta('web', 'shop', 0),
        spec: {
          ingressClassName: 'nginx',
          rules: [{ host: 'shop.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }],
        },
        status: { loadBalancer: { ingress: [{ ip: '203.0.113.20' }] } },
      },
    ],
    networkpolicies: [
      {
        metadata: meta('db-ingress', 'shop', 0),
        spec: {
          podSelector: { matchLabels: { app: 'postgres' } },
          policyTypes: ['Ingress'],
          ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }], ports: [{ protocol: 'TCP', port: 5432 }] }],
        },
      },
    ],
    resourcequotas: [
      {
        metadata: meta('compute', 'shop', 0),
        spec: { hard: { 'requests.cpu': '4', 'requests.memory': '8Gi', 'limits.memory': '16Gi', pods: '20' } },
        status: { hard: { 'requests.cpu': '4', 'requests.memory': '8Gi', 'limits.memory': '16Gi', pods: '20' }, used: { 'requests.cpu': '1500m', 'requests.memory': '3Gi', 'limits.memory': '6Gi', pods: '6' } },
      },
    ],
    roles: [
      {
        metadata: meta('pod-reader', 'shop', 0),
        rules: [{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list', 'watch'] }],
      },
    ],
    rolebindings: [
      {
        metadata: meta('web-pod-reader', 'shop', 0),
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'web', namespace: 'shop' }, { kind: 'User', name: 'alice@example.com', apiGroup: 'rbac.authorization.k8s.io' }],
      },
    ],
    configmaps: [
      {
        metadata: meta('web-config', 'shop', 0, {
          annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({ data: { DATABASE_URL: `postgres://app:${SCENARIO.plantedSecret}@postgres.shop.svc:5432/shop` } }) },
        }),
        data: { DATABASE_URL: `postgres://app:${SCENARIO.plantedSecret}@postgres.shop.svc:5432/shop`, LOG_LEVEL: 'info' },
        binaryData: { 'cert.der': Buffer.from(SCENARIO.plantedSecret).toString('base64') },
      },
      { metadata: meta('kube-root-ca.crt', 'default', 0), data: { 'ca.crt': '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' } },
    ],
  };
}

/** A Secret the recorder must never read (it is served, so a read would be seen in `calls`). */
function seedSecrets(): Json[] {
  return [
    {
      metadata: meta('db-credentials', 'shop', 0),
      type: 'Opaque',
      data: { user: Buffer.from('app').toString('base64'), password: Buffer.from(SCENARIO.plantedSecret).toString('base64') },
      stringData: { password: SCENARIO.plantedSecret },
    },
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

/** fieldSelector: terms joined by ",", each k=v, k==v or k!=v over a dotted field. */
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

function kubeconfigYaml(server: string, token: string, caPem?: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'current-context: fake',
    'clusters:',
    '- name: fake-cluster',
    '  cluster:',
    `    server: ${server}`,
    caPem ? `    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}` : '    insecure-skip-tls-verify: true',
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

/** Secrets are served (so a read would show in `calls`) but are no snapshot resource: no Table for them. */
const SECRETS = { resource: 'secrets', group: '', version: 'v1', kind: 'Secret', singular: 'secret', namespaced: true, shortNames: [] } as unknown as ResourceInfo;
const INFO_BY_PATH = new Map<string, ResourceInfo>(RESOURCES.map((r) => [`${r.group}/${r.version}/${r.resource}`, r]));

export async function startFakeKubernetes(options: FakeKubernetesOptions = {}): Promise<FakeKubernetes> {
  const token = options.token ?? randomBytes(16).toString('hex');
  let forbidden = new Set(options.forbidden ?? []);
  const { pods, logs } = seedPods();
  const objects = new Map<string, Json[]>([
    ['namespaces', NAMESPACES.map((n) => ({ metadata: meta(n, null, 0), spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } }))],
    ['nodes', seedNodes()],
    ['pods', pods],
    ['deployments', seedDeployments()],
    ['events', seedEvents()],
    ...Object.entries(seedOthers()),
    ['secrets', seedSecrets()],
  ]);
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

  const list = (req: IncomingMessage, res: ServerResponse, info: ResourceInfo, items: Json[], query: Record<string, string>): void => {
    let labels: ReturnType<typeof parseLabelSelector>;
    try {
      labels = parseLabelSelector(query.labelSelector);
    } catch (err) {
      if (err instanceof SelectorError) return sendJson(res, 400, status(400, 'BadRequest', err.message));
      throw err;
    }
    // In the API server's order (etcd keys: namespace, then name), as a real list comes.
    const ordered = [...items].sort((a, b) => {
      const ka = `${getField(a, 'metadata.namespace') ?? ''}/${getField(a, 'metadata.name') ?? ''}`;
      const kb = `${getField(b, 'metadata.namespace') ?? ''}/${getField(b, 'metadata.name') ?? ''}`;
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
    let filtered = ordered.filter((it) => matches(query.fieldSelector, (k) => getField(it, k)) && labels((it.metadata as Json).labels as Record<string, string> | undefined));
    const offset = query.continue ? Number(Buffer.from(query.continue, 'base64url').toString('utf8')) : 0;
    const limit = query.limit ? Number(query.limit) : 0;
    let cont: string | undefined;
    filtered = filtered.slice(offset);
    if (limit > 0 && filtered.length > limit) {
      filtered = filtered.slice(0, limit);
      cont = Buffer.from(String(offset + limit)).toString('base64url');
    }
    const form = acceptedForm(req.headers.accept);
    if (form.form === 'table' && info.kind !== 'Secret') {
      return sendJson(res, 200, toTable(info.resource, filtered, Date.now(), { resourceVersion: '2000', ...(cont ? { continueToken: cont } : {}), tableVersion: form.version }));
    }
    sendJson(res, 200, {
      kind: `${info.kind}List`,
      apiVersion: apiVersionOf(info),
      metadata: { resourceVersion: '2000', ...(cont ? { continue: cont } : {}) },
      items: filtered,
    });
  };

  const forbid = (res: ServerResponse, resource: string, namespace?: string): boolean => {
    if (!forbidden.has(resource)) return false;
    const [plural = resource, sub] = resource.split('/');
    const scope = namespace ? `in the namespace "${namespace}"` : 'at the cluster scope';
    const verb = sub === 'log' ? 'get' : 'list';
    const group = RESOURCES.find((r) => r.resource === plural)?.group ?? '';
    sendJson(
      res,
      403,
      status(403, 'Forbidden', `${resource} is forbidden: User "system:serviceaccount:ro:agent" cannot ${verb} resource "${plural}"${sub ? ` subresource "${sub}"` : ''} in API group "${group}" ${scope}`, { kind: plural }),
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

  const notFound = (res: ServerResponse, info: ResourceInfo, name: string): void =>
    sendJson(res, 404, status(404, 'NotFound', `${info.group ? `${info.resource}.${info.group}` : info.resource} "${name}" not found`, { name, kind: info.resource }));

  /** Discovery as the real API server answers it: every resource this fake serves, with its verbs and short names. */
  const discovery = (pathname: string): Json | undefined => {
    if (pathname === '/api') return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${port}` }] };
    const gvs = groupVersions();
    if (pathname === '/apis') {
      const groups = [...new Set(gvs.map((g) => g.group).filter(Boolean))];
      return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map((name) => ({ name, versions: [{ groupVersion: `${name}/v1`, version: 'v1' }], preferredVersion: { groupVersion: `${name}/v1`, version: 'v1' } })) };
    }
    const gv = gvs.find((g) => (g.group ? `/apis/${g.group}/${g.version}` : `/api/${g.version}`) === pathname);
    if (!gv) return undefined;
    const resources: Json[] = gv.resources.map((r) => ({ name: r.resource, singularName: r.singular, namespaced: r.namespaced, kind: r.kind, verbs: ['get', 'list'], ...(r.shortNames.length ? { shortNames: r.shortNames } : {}) }));
    if (!gv.group) resources.push({ name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] }, { name: 'secrets', singularName: 'secret', namespaced: true, kind: 'Secret', verbs: ['get', 'list'] });
    return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv.group ? `${gv.group}/${gv.version}` : gv.version, resources };
  };

  const route = (req: IncomingMessage, res: ServerResponse, pathname: string, query: Record<string, string>): void => {
    if (req.method !== 'GET') return sendJson(res, 405, status(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'));
    if (req.headers.authorization !== `Bearer ${token}`) return sendJson(res, 401, status(401, 'Unauthorized', 'Unauthorized'));

    if (pathname === '/version') {
      return sendJson(res, 200, { major: '1', minor: '31', gitVersion: 'v1.31.0', platform: 'linux/amd64', goVersion: 'go1.22.5' });
    }
    const found = discovery(pathname);
    if (found) return sendJson(res, 200, found);

    // /api/v1/[namespaces/{ns}/]{resource}[/{name}[/log]] and /apis/{group}/{version}/…
    const m = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))\/(.+)$/.exec(pathname);
    if (m) {
      const group = m[2] ?? '';
      const version = m[1] ?? m[3] ?? '';
      let rest = (m[4] ?? '').split('/');
      let ns: string | undefined;
      if (rest[0] === 'namespaces' && rest.length >= 3) {
        ns = rest[1];
        rest = rest.slice(2);
      }
      const [resource = '', name, sub] = rest;
      const info = resource === 'secrets' && !group ? SECRETS : INFO_BY_PATH.get(`${group}/${version}/${resource}`);
      if (info && rest.length <= 3 && (ns === undefined || info.namespaced)) {
        if (sub === 'log' && resource === 'pods' && ns && name) return forbid(res, 'pods/log', ns) ? undefined : podLog(res, ns, name, query);
        if (sub) return sendJson(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
        if (forbid(res, resource, ns)) return;
        const all = objects.get(resource) ?? [];
        const items = ns === undefined ? all : all.filter((it) => getField(it, 'metadata.namespace') === ns);
        if (!name) return list(req, res, info, items, query);
        if (info.namespaced && ns === undefined) return sendJson(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
        const item = items.find((it) => getField(it, 'metadata.name') === name);
        if (!item) return notFound(res, info, name);
        const form = acceptedForm(req.headers.accept);
        if (form.form === 'table' && info.kind !== 'Secret') return sendJson(res, 200, { ...toTable(info.resource, [], Date.now(), { tableVersion: form.version }), rows: [tableRow(info.resource, item, Date.now())] });
        return sendJson(res, 200, { kind: info.kind, apiVersion: apiVersionOf(info), ...item });
      }
    }
    sendJson(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
  };

  const certificate = options.tls ? await replayCertificate() : undefined;
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
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
  };
  const server = certificate ? https.createServer({ key: certificate.key, cert: certificate.cert }, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  const url = `${certificate ? 'https' : 'http'}://127.0.0.1:${port}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'benchdesk-fake-k8s-'));
  const kubeconfigPath = path.join(dir, 'kubeconfig');
  await writeFile(kubeconfigPath, kubeconfigYaml(url, options.kubeconfigToken ?? token, certificate?.cert), { mode: 0o600 });

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
