import { stamp } from './clock';
import type { Cluster, Json, KubeObject } from './cluster';
import type { NodeRef } from './nodes';
import { DEFAULT_TOLERATIONS, pod, templateSpec, type ContainerPlan, type ContainerSpec, type ContainerState, type PodPlan, type Terminated } from './pods';

/**
 * Deployments (with their replica sets), stateful sets and daemon sets, and the pods they own.
 * A controller is declared first; its pods are added with `replica()`; its status (replicas,
 * ready, available, conditions) is computed from those pods when the snapshot is built.
 */

export type PodExtras = Pick<PodPlan, 'serviceAccount' | 'tolerations' | 'nodeSelector' | 'affinity' | 'volumes' | 'initContainers' | 'hostNetwork' | 'priorityClassName' | 'imagePullSecrets'>;

export type Controller = {
  kind: 'ReplicaSet' | 'StatefulSet' | 'DaemonSet' | 'Job';
  apiVersion: string;
  namespace: string;
  /** Pod name prefix (a replica set's name, a stateful set's, a daemon set's, a job's). */
  name: string;
  uid: string;
  labels: Record<string, string>;
  containers: ContainerSpec[];
  extras: PodExtras;
  object: KubeObject;
};

/** One replica's story: where it runs, since when, and each container's state (in the controller's order). */
export type Replica = {
  node?: NodeRef;
  created: string;
  scheduledAt?: string;
  unschedulable?: { message: string; since?: string };
  /** Per container (by name); a container not named runs since `created` + a few seconds, ready. */
  states?: Record<string, { state: ContainerState; restarts?: number; last?: Terminated }>;
  /** Pod name suffix seed (default: the replica's index among its controller's pods). */
  seed?: string;
  notReadySince?: string;
  failed?: PodPlan['failed'];
  deletion?: PodPlan['deletion'];
  restartPolicy?: PodPlan['restartPolicy'];
  /** This replica's volumes (a stateful set's claim per pod), instead of the template's. */
  volumes?: Json[];
};

export function replica(c: Cluster, ctl: Controller, r: Replica): KubeObject {
  const index = c.podsOf(ctl.uid).length;
  const name =
    ctl.kind === 'StatefulSet' ? `${ctl.name}-${index}` : ctl.kind === 'Job' ? `${ctl.name}-${c.suffix(`pod/${ctl.name}/${r.seed ?? index}`)}` : `${ctl.name}-${c.suffix(`pod/${ctl.name}/${r.seed ?? index}`)}`;
  const started = stamp(Date.parse(r.created) + c.int(`start/${name}`, 3, 12) * 1000);
  const containers: ContainerPlan[] = ctl.containers.map((spec) => {
    const story = r.states?.[spec.name];
    return { ...spec, state: story?.state ?? { running: started }, ...(story?.restarts !== undefined ? { restarts: story.restarts } : {}), ...(story?.last ? { last: story.last } : {}) };
  });
  const labels = { ...ctl.labels, ...(ctl.kind === 'StatefulSet' ? { 'apps.kubernetes.io/pod-index': String(index), 'statefulset.kubernetes.io/pod-name': name } : {}) };
  return pod(c, {
    namespace: ctl.namespace,
    name,
    labels,
    owner: { apiVersion: ctl.apiVersion, kind: ctl.kind, name: ctl.name, uid: ctl.uid },
    created: r.created,
    ...(r.node ? { node: r.node } : {}),
    ...(r.scheduledAt ? { scheduledAt: r.scheduledAt } : {}),
    ...(r.unschedulable ? { unschedulable: r.unschedulable } : {}),
    ...(r.notReadySince ? { notReadySince: r.notReadySince } : {}),
    ...(r.failed ? { failed: r.failed } : {}),
    ...(r.deletion ? { deletion: r.deletion } : {}),
    restartPolicy: r.restartPolicy ?? (ctl.kind === 'Job' ? 'Never' : 'Always'),
    containers,
    ...ctl.extras,
    ...(r.volumes ? { volumes: r.volumes } : {}),
  });
}

function isReady(p: KubeObject): boolean {
  return (((p.status as Json).conditions as Json[] | undefined) ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

function live(p: KubeObject): boolean {
  const phase = (p.status as Json).phase;
  return phase !== 'Failed' && phase !== 'Succeeded' && p.metadata.deletionTimestamp === undefined;
}

export type DeploymentOptions = {
  namespace: string;
  name: string;
  replicas: number;
  containers: ContainerSpec[];
  created: string;
  /** When the current revision rolled out (its replica set was created); default: `created`. */
  rolled?: string;
  revision?: number;
  labels?: Record<string, string>;
  extras?: PodExtras;
  /** The rollout has not progressed within the deadline (600 s): Progressing=False ProgressDeadlineExceeded. */
  stalled?: boolean;
  /** When it last became unavailable, if it is (default: when the revision rolled out). */
  unavailableSince?: string;
  /** What the current replica set is asked for, when it differs from the pods it has (pods it may not create). */
  desired?: number;
  /** Recreate: the old pods go before the new ones come (default RollingUpdate 25%/25%). */
  recreate?: boolean;
  /** The replica set cannot create pods (ReplicaFailure=True FailedCreate) since then, with the API server's refusal. */
  replicaFailure?: { since: string; message: (replicaSet: string) => string };
};

export type DeploymentRef = { deploy: KubeObject; current: Controller; replicaSets: Controller[]; extras: PodExtras };

/** Pod extras as a pod spec writes them. */
export function extrasSpec(extras: PodExtras = {}): Json {
  const { initContainers, serviceAccount, ...rest } = extras;
  return {
    ...rest,
    ...(serviceAccount ? { serviceAccountName: serviceAccount } : {}),
    ...(initContainers ? { initContainers: initContainers.map(({ state: _s, restarts: _r, last: _l, ...spec }) => spec) } : {}),
  };
}

function podTemplate(labels: Record<string, string>, containers: ContainerSpec[], extras: PodExtras): Json {
  return { metadata: { labels }, spec: templateSpec(containers, extrasSpec(extras)) };
}

/** A replica set of the deployment (the current one, or an older revision still scaled up during a rollout). */
/** `replicas`: what the deployment asks of it; by default, as many as it has pods (a surge, an old revision being scaled down). */
export function replicaSet(c: Cluster, d: Omit<DeploymentRef, 'current'>, o: { revision: number; replicas?: number; containers: ContainerSpec[]; created: string }): Controller {
  const spec = d.deploy.spec as Json;
  const hash = c.suffix(`rs/${d.deploy.metadata.namespace}/${d.deploy.metadata.name}/${o.revision}`, 10);
  const name = `${d.deploy.metadata.name}-${hash}`;
  const labels = { ...(((spec.selector as Json).matchLabels as Record<string, string>) ?? {}), 'pod-template-hash': hash };
  const namespace = d.deploy.metadata.namespace ?? 'default';
  const extras = d.extras;
  const object = c.add('replicasets', {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: c.meta('ReplicaSet', name, namespace, o.created, {
      labels,
      annotations: { 'deployment.kubernetes.io/desired-replicas': String(spec.replicas), 'deployment.kubernetes.io/max-replicas': String(Number(spec.replicas) + 1), 'deployment.kubernetes.io/revision': String(o.revision) },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: d.deploy.metadata.name, uid: d.deploy.metadata.uid, controller: true, blockOwnerDeletion: true }],
    }),
    spec: { replicas: o.replicas, selector: { matchLabels: labels }, template: podTemplate(labels, o.containers, extras) },
    status: {},
  });
  const ctl: Controller = { kind: 'ReplicaSet', apiVersion: 'apps/v1', namespace, name, uid: object.metadata.uid, labels, containers: o.containers, extras, object };
  c.finish(() => {
    const pods = c.podsOf(ctl.uid).filter(live);
    const ready = pods.filter(isReady).length;
    (object.spec as Json).replicas = o.replicas ?? pods.length;
    object.status = { replicas: pods.length, fullyLabeledReplicas: pods.length, ...(ready ? { readyReplicas: ready, availableReplicas: ready } : {}), observedGeneration: 1 };
  });
  d.replicaSets.push(ctl);
  return ctl;
}

export function deployment(c: Cluster, o: DeploymentOptions): DeploymentRef {
  const selector = o.labels ?? { app: o.name };
  const revision = o.revision ?? 1;
  const deploy = c.add('deployments', {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: c.meta('Deployment', o.name, o.namespace, o.created, { generation: revision, labels: selector, annotations: { 'deployment.kubernetes.io/revision': String(revision) } }),
    spec: {
      replicas: o.replicas,
      selector: { matchLabels: selector },
      template: podTemplate(selector, o.containers, o.extras ?? {}),
      strategy: o.recreate ? { type: 'Recreate' } : { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
    status: {},
  });
  const base = { deploy, replicaSets: [] as Controller[], extras: o.extras ?? {} };
  const ref: DeploymentRef = { ...base, current: replicaSet(c, base, { revision, ...(o.desired !== undefined ? { replicas: o.desired } : {}), containers: o.containers, created: o.rolled ?? o.created }) };
  c.finish(() => finishDeployment(c, ref, o));
  return ref;
}

function finishDeployment(c: Cluster, d: DeploymentRef, o: DeploymentOptions): void {
  const all = d.replicaSets.flatMap((rs) => c.podsOf(rs.uid)).filter(live);
  const updated = c.podsOf(d.current.uid).filter(live);
  const ready = all.filter(isReady).length;
  const rolled = o.rolled ?? o.created;
  const available = o.replicas === 0 || ready >= Math.max(1, o.replicas - Math.floor(o.replicas / 4));
  const since = stamp(Date.parse(rolled) + 1000);
  const down = o.unavailableSince ? c.ago(o.unavailableSince) : since;
  const conditions = [
    available
      ? { type: 'Available', status: 'True', lastUpdateTime: since, lastTransitionTime: since, reason: 'MinimumReplicasAvailable', message: 'Deployment has minimum availability.' }
      : { type: 'Available', status: 'False', lastUpdateTime: down, lastTransitionTime: down, reason: 'MinimumReplicasUnavailable', message: 'Deployment does not have minimum availability.' },
    o.stalled
      ? { type: 'Progressing', status: 'False', lastUpdateTime: stamp(Date.parse(rolled) + 600_000), lastTransitionTime: stamp(Date.parse(rolled) + 600_000), reason: 'ProgressDeadlineExceeded', message: `ReplicaSet "${d.current.name}" has timed out progressing.` }
      : updated.length === o.replicas && updated.every(isReady)
        ? { type: 'Progressing', status: 'True', lastUpdateTime: since, lastTransitionTime: o.created, reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${d.current.name}" has successfully progressed.` }
        : { type: 'Progressing', status: 'True', lastUpdateTime: since, lastTransitionTime: o.created, reason: 'ReplicaSetUpdated', message: `ReplicaSet "${d.current.name}" is progressing.` },
  ];
  if (o.replicaFailure) {
    const at = c.ago(o.replicaFailure.since);
    conditions.push({ type: 'ReplicaFailure', status: 'True', lastUpdateTime: at, lastTransitionTime: at, reason: 'FailedCreate', message: o.replicaFailure.message(d.current.name) });
  }
  d.deploy.status = {
    observedGeneration: o.revision ?? 1,
    replicas: all.length,
    ...(updated.length ? { updatedReplicas: updated.length } : {}),
    ...(ready ? { readyReplicas: ready, availableReplicas: ready } : {}),
    ...(all.length - ready > 0 ? { unavailableReplicas: Math.max(o.replicas, all.length) - ready } : {}),
    conditions,
  };
}

/** A deployment whose replicas all run and are ready, spread over the nodes. */
export function healthyDeployment(c: Cluster, o: DeploymentOptions, nodes: NodeRef[], since?: string): DeploymentRef {
  const d = deployment(c, o);
  for (let i = 0; i < o.replicas; i++) replica(c, d.current, { node: nodes[i % nodes.length] as NodeRef, created: since ?? o.rolled ?? o.created });
  return d;
}

export function statefulSet(c: Cluster, o: { namespace: string; name: string; replicas: number; containers: ContainerSpec[]; created: string; serviceName?: string; claims?: Json[]; extras?: PodExtras }): Controller {
  const labels = { app: o.name };
  const revisionHash = `${o.name}-${c.suffix(`sts/${o.name}`, 10)}`;
  const object = c.add('statefulsets', {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: c.meta('StatefulSet', o.name, o.namespace, o.created, { generation: 1, labels }),
    spec: {
      replicas: o.replicas,
      selector: { matchLabels: labels },
      serviceName: o.serviceName ?? o.name,
      template: podTemplate(labels, o.containers, o.extras ?? {}),
      ...(o.claims ? { volumeClaimTemplates: o.claims } : {}),
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
    },
    status: {},
  });
  const ctl: Controller = { kind: 'StatefulSet', apiVersion: 'apps/v1', namespace: o.namespace, name: o.name, uid: object.metadata.uid, labels: { ...labels, 'controller-revision-hash': revisionHash }, containers: o.containers, extras: o.extras ?? {}, object };
  c.finish(() => {
    const pods = c.podsOf(ctl.uid).filter(live);
    const ready = pods.filter(isReady).length;
    object.status = { observedGeneration: 1, replicas: pods.length, ...(ready ? { readyReplicas: ready, availableReplicas: ready } : {}), currentReplicas: pods.length, updatedReplicas: pods.length, currentRevision: revisionHash, updateRevision: revisionHash, collisionCount: 0 };
  });
  return ctl;
}

/** What the DaemonSet controller adds to its pods' tolerations. */
export const DAEMONSET_TOLERATIONS: Json[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];

export function daemonSet(c: Cluster, o: { namespace: string; name: string; containers: ContainerSpec[]; created: string; labels?: Record<string, string>; extras?: PodExtras; tolerations?: Json[]; desired?: number }): Controller {
  const labels = o.labels ?? { 'k8s-app': o.name };
  const extras: PodExtras = { ...o.extras, tolerations: [...(o.tolerations ?? [{ operator: 'Exists' }]), ...DAEMONSET_TOLERATIONS] };
  const object = c.add('daemonsets', {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: c.meta('DaemonSet', o.name, o.namespace, o.created, { generation: 1, labels }),
    spec: { selector: { matchLabels: labels }, template: podTemplate(labels, o.containers, { ...o.extras, tolerations: o.tolerations ?? [{ operator: 'Exists' }] }), updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } } },
    status: {},
  });
  const ctl: Controller = { kind: 'DaemonSet', apiVersion: 'apps/v1', namespace: o.namespace, name: o.name, uid: object.metadata.uid, labels: { ...labels, 'controller-revision-hash': c.suffix(`ds/${o.name}`, 10), 'pod-template-generation': '1' }, containers: o.containers, extras, object };
  c.finish(() => {
    const pods = c.podsOf(ctl.uid).filter(live);
    const ready = pods.filter(isReady).length;
    const desired = o.desired ?? c.list('nodes').length;
    object.status = { currentNumberScheduled: pods.length, desiredNumberScheduled: desired, numberMisscheduled: 0, numberReady: ready, observedGeneration: 1, updatedNumberScheduled: pods.length, numberAvailable: ready, ...(desired - ready > 0 ? { numberUnavailable: desired - ready } : {}) };
  });
  return ctl;
}

export { DEFAULT_TOLERATIONS };
