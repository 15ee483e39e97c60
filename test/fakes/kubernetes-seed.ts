/**
 * The seeded scenario cluster of the fake Kubernetes API (kubernetes.ts): its objects, logs and
 * the planted secrets a snapshot must never hold. Split from the server so each file has one job.
 */
export { seedOthers, seedSecrets } from './kubernetes-seed-others';

export type Json = Record<string, unknown>;
export type ContainerLogs = { current: string; previous?: string; waiting?: string };

/** Where the seeded story starts: fixed for tests that record at a fixed time, or moved (seedClock) to just before now. */
const FIXED_T0 = Date.parse('2026-08-20T10:00:00Z');
let T0 = FIXED_T0;
export const at = (minutes: number): string => new Date(T0 + minutes * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Seeds built inside `build` tell their story ending `endsAgoMs` before now instead of at the fixed
 * date: a recording made now then sees fresh heartbeats, as from a real cluster (the snapshot lint
 * flags a heartbeat older than a kubelet's status interval).
 */
export function withLiveClock<T>(build: () => T, endsAgoMs = 60_000): { value: T; t0: number } {
  // The story's last stamp is the scheduler event at(26.5): it ends endsAgoMs before now.
  const t0 = Date.now() - endsAgoMs - 26.5 * 60_000;
  T0 = t0;
  try {
    return { value: build(), t0 };
  } finally {
    T0 = FIXED_T0;
  }
}

/** The time `minutes` into a story that starts at `t0` (the fixed date unless the clock is live), as the seed stamps it. */
export function storyTime(minutes: number, t0 = FIXED_T0): string {
  return new Date(t0 + minutes * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

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
  /**
   * Planted in env values, last-applied annotations (a cron job's jobTemplate too), a config map's
   * data and stringData, flexVolume options, a PV's CSI attributes, a storage class's parameters,
   * an event message, a termination message and a Secret: never in a recording.
   */
  plantedSecret: 'hunter2-Pl4nted-S3cret-7f3a9c',
} as const;

export function meta(name: string, namespace: string | null, minutes: number, extra: Json = {}): Json {
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
export function plantedEnv(): Json[] {
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

export function seedPods(): { pods: Json[]; logs: Map<string, ContainerLogs> } {
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
    pod('default', 'nginx-7c5ddbdf54-2xq9v', ['nginx'], { phase: 'Running', containerStatuses: [runningStatus('nginx', 'nginx:1.27')] }, {
      // A flexVolume's options are free-form: drivers take passwords there.
      volumes: [{ name: 'share', flexVolume: { driver: 'acme/cifs', secretRef: { name: 'cifs-credentials' }, options: { user: 'web', password: s.plantedSecret, mountToken: s.plantedSecret } } }],
    }),
    pod('kube-system', 'coredns-76f75df574-8hk2p', ['coredns'], { phase: 'Running', containerStatuses: [runningStatus('coredns', 'coredns:1.11')] }),
    pod('batch', 'db-migrate-28734120-5kq7d', ['migrate'], {
      phase: 'Succeeded',
      // A termination message that quotes the URL it used, credentials included.
      containerStatuses: [{ name: 'migrate', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed', finishedAt: at(3), message: `migrated postgres://migrator:${s.plantedSecret}@postgres.shop.svc:5432/shop` } } }],
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
  // A log line that prints a credential.
  logs.set(key('kube-system', 'coredns-76f75df574-8hk2p', 'coredns'), { current: `.:53\nplugin/forward: upstream auth with token=${s.plantedSecret}\n` });
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

export function seedEvents(): Json[] {
  const s = SCENARIO;
  const podRef = (p: { namespace: string; name: string }): Json => ({ kind: 'Pod', namespace: p.namespace, name: p.name, apiVersion: 'v1' });
  return [
    event('shop', `${s.crashLoopPod.name}.1`, podRef(s.crashLoopPod), 'BackOff', `Back-off restarting failed container web in pod ${s.crashLoopPod.name}_shop(uid)`, 'Warning', at(25), { count: 97 }),
    event('shop', `${s.imagePullPod.name}.1`, podRef(s.imagePullPod), 'Failed', 'Failed to pull image "ghcr.io/acme/api:9.9.9": manifest unknown', 'Warning', at(24), { count: 12 }),
    event('shop', `${s.imagePullPod.name}.2`, podRef(s.imagePullPod), 'BackOff', 'Back-off pulling image "ghcr.io/acme/api:9.9.9"', 'Warning', at(23), { count: 40 }),
    // Created through events.k8s.io/v1 by the scheduler: no lastTimestamp, no count, eventTime set.
    event('shop', `${s.pendingPod.name}.1`, podRef(s.pendingPod), 'FailedScheduling', '0/3 nodes are available: 2 Insufficient cpu.', 'Warning', null, {
      eventTime: `${at(26.5).slice(0, -1)}.123456Z`,
      reportingComponent: 'default-scheduler',
      source: {},
    }),
    event('batch', `${s.oomPod.name}.1`, podRef(s.oomPod), 'BackOff', `Back-off restarting failed container worker in pod ${s.oomPod.name}`, 'Warning', at(13), { count: 3 }),
    event('default', 'node-3.1', { kind: 'Node', name: 'node-3', apiVersion: 'v1' }, 'NodeNotReady', 'Node node-3 status is now: NodeNotReady', 'Warning', at(5)),
    event('default', 'nginx-7c5ddbdf54-2xq9v.1', { kind: 'Pod', namespace: 'default', name: 'nginx-7c5ddbdf54-2xq9v' }, 'Started', `Started container nginx (image pulled with password=${s.plantedSecret})`, 'Normal', at(2)),
  ];
}

export function seedDeployments(): Json[] {
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

export function seedNodes(): Json[] {
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

/** `count` running pods in `bulk`, sharing one current log of `logBytes` (numbered lines of about 100 bytes). */
export function addBulkPods(pods: Json[], logs: Map<string, ContainerLogs>, bulk: { count: number; logBytes: number }): void {
  const lines: string[] = [];
  for (let n = 0, size = 0; size < bulk.logBytes; n++) {
    const line = `${String(n).padStart(6, '0')} ${'request served in 12 ms; upstream ok; cache hit; '.repeat(2)}`;
    lines.push(line);
    size += line.length + 1;
  }
  const text = `${lines.join('\n')}\n`.slice(-bulk.logBytes);
  for (let i = 0; i < bulk.count; i++) {
    const name = `bulk-${String(i).padStart(5, '0')}`;
    pods.push(pod('bulk', name, ['app'], { phase: 'Running', containerStatuses: [runningStatus('app', 'ghcr.io/acme/app:1.0')] }));
    logs.set(`bulk/${name}/app`, { current: text });
  }
}

export const NAMESPACES = ['default', 'kube-system', 'shop', 'batch'];

