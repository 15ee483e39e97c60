import { stamp } from './clock';
import type { Cluster, Json, KubeObject } from './cluster';
import type { NodeRef } from './nodes';

/**
 * A pod and its status, written from what happened to it: where and when it was scheduled (or
 * why it could not be), and each container's story (running since, waiting and why, crashed and
 * restarted N times, terminated). The phase, conditions, IPs, QoS class and container statuses are
 * derived from that story the way the kubelet and scheduler would write them.
 */

export type Terminated = { startedAt: string; finishedAt: string; exitCode: number; reason: string; message?: string; signal?: number };

export type ContainerState =
  | { running: string; ready?: boolean }
  | { waiting: string; message?: string }
  | { terminated: Terminated };

export type ContainerSpec = {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  ports?: Json[];
  env?: Json[];
  envFrom?: Json[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  readinessProbe?: Json;
  livenessProbe?: Json;
  startupProbe?: Json;
  volumeMounts?: Json[];
};

export type ContainerPlan = ContainerSpec & { state: ContainerState; restarts?: number; last?: Terminated };

export type PodPlan = {
  namespace: string;
  name: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  owner?: { apiVersion: string; kind: string; name: string; uid: string };
  created: string;
  /** Unset: not scheduled (then `unschedulable` says why). */
  node?: NodeRef;
  scheduledAt?: string;
  unschedulable?: { message: string; since?: string };
  containers: ContainerPlan[];
  initContainers?: ContainerPlan[];
  restartPolicy?: 'Always' | 'Never' | 'OnFailure';
  serviceAccount?: string;
  /** Replaces the admission defaults (not-ready/unreachable NoExecute for 300 s). */
  tolerations?: Json[];
  nodeSelector?: Record<string, string>;
  affinity?: Json;
  volumes?: Json[];
  hostNetwork?: boolean;
  priorityClassName?: string;
  imagePullSecrets?: Json[];
  /** When the pod stopped being ready (default: its creation), for a pod that is not ready. */
  notReadySince?: string;
  /** A failed pod's reason and message (Evicted, …). */
  failed?: { reason: string; message: string; at: string };
  deletion?: { at: string; graceSeconds: number };
};

export const DEFAULT_TOLERATIONS: Json[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
];

function containerSpec(s: ContainerSpec): Json {
  const { name, image, command, args, ports, env, envFrom, resources, readinessProbe, livenessProbe, startupProbe, volumeMounts } = s;
  return {
    name,
    image,
    ...(command ? { command } : {}),
    ...(args ? { args } : {}),
    ...(ports ? { ports } : {}),
    ...(envFrom ? { envFrom } : {}),
    ...(env ? { env } : {}),
    resources: resources ?? {},
    ...(volumeMounts ? { volumeMounts } : {}),
    ...(livenessProbe ? { livenessProbe } : {}),
    ...(readinessProbe ? { readinessProbe } : {}),
    ...(startupProbe ? { startupProbe } : {}),
    imagePullPolicy: 'IfNotPresent',
  };
}

/** A pod template's spec (deployments, jobs…): the containers without their stories. */
export function templateSpec(containers: ContainerSpec[], extra: Json = {}): Json {
  // Only what a diagnosis reads: the API's defaults (dnsPolicy, schedulerName, securityContext…) are left out to keep snapshots small.
  return { containers: containers.map(containerSpec), restartPolicy: 'Always', ...extra };
}

function qosClass(containers: ContainerSpec[]): string {
  const all = containers.map((c) => c.resources ?? {});
  if (all.every((r) => !r.requests && !r.limits)) return 'BestEffort';
  const guaranteed = all.every((r) => r.limits?.cpu && r.limits.memory && (!r.requests || (r.requests.cpu === r.limits.cpu && r.requests.memory === r.limits.memory)));
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

function imageId(c: Cluster, image: string): string {
  return `${image.split(':')[0]}@sha256:${c.hex(`image/${image}`, 64)}`;
}

function terminatedJson(c: Cluster, pod: string, name: string, t: Terminated, n: number): Json {
  return { terminated: { exitCode: t.exitCode, reason: t.reason, ...(t.message ? { message: t.message } : {}), ...(t.signal ? { signal: t.signal } : {}), startedAt: t.startedAt, finishedAt: t.finishedAt, containerID: `containerd://${c.hex(`cid/${pod}/${name}/${n}`, 64)}` } };
}

function everRan(p: ContainerPlan): boolean {
  return !('waiting' in p.state) || p.last !== undefined || (p.restarts ?? 0) > 0;
}

function containerStatus(c: Cluster, pod: string, p: ContainerPlan): Json {
  const restarts = p.restarts ?? 0;
  let state: Json;
  let ready = false;
  if ('running' in p.state) {
    state = { running: { startedAt: p.state.running } };
    ready = p.state.ready !== false;
  } else if ('waiting' in p.state) state = { waiting: { reason: p.state.waiting, ...(p.state.message ? { message: p.state.message } : {}) } };
  else state = terminatedJson(c, pod, p.name, p.state.terminated, restarts + 1);
  const ran = everRan(p);
  return {
    name: p.name,
    state,
    lastState: p.last ? terminatedJson(c, pod, p.name, p.last, restarts) : {},
    ready,
    restartCount: restarts,
    image: p.image,
    imageID: ran ? imageId(c, p.image) : '',
    ...('running' in p.state ? { containerID: `containerd://${c.hex(`cid/${pod}/${p.name}/${restarts + 1}`, 64)}` } : {}),
    started: 'running' in p.state,
  };
}

function latest(times: (string | undefined)[]): string | undefined {
  return times.filter((t): t is string => t !== undefined).sort().at(-1);
}

function podStatus(c: Cluster, plan: PodPlan, ip: string | undefined): Json {
  const scheduled = plan.scheduledAt ?? plan.created;
  if (!plan.node) {
    return {
      phase: 'Pending',
      conditions: [{ type: 'PodScheduled', status: 'False', lastTransitionTime: plan.unschedulable?.since ? c.ago(plan.unschedulable.since) : plan.created, reason: 'Unschedulable', message: plan.unschedulable?.message ?? '' }],
      qosClass: qosClass(plan.containers),
    };
  }
  const statuses = plan.containers.map((p) => containerStatus(c, plan.name, p));
  const initStatuses = (plan.initContainers ?? []).map((p) => containerStatus(c, plan.name, p));
  const initialized = (plan.initContainers ?? []).every((p) => 'terminated' in p.state && p.state.terminated.exitCode === 0);
  const allReady = statuses.every((s) => s.ready === true);
  const terminal = plan.containers.every((p) => 'terminated' in p.state) && plan.restartPolicy !== 'Always' && plan.restartPolicy !== undefined;
  let phase = 'Running';
  if (plan.failed) phase = 'Failed';
  else if (terminal) phase = plan.containers.every((p) => 'terminated' in p.state && p.state.terminated.exitCode === 0) ? 'Succeeded' : 'Failed';
  else if (!initialized || plan.containers.every((p) => !everRan(p))) phase = 'Pending';
  const startedTimes = plan.containers.map((p) => ('running' in p.state ? p.state.running : undefined));
  const readyAt = latest(startedTimes) ?? scheduled;
  const sandbox = stamp(Date.parse(scheduled) + 2000);
  const readyCondition = allReady
    ? { status: 'True', lastTransitionTime: stamp(Date.parse(readyAt) + c.int(`ready/${plan.name}`, 3, 9) * 1000) }
    : { status: 'False', lastTransitionTime: plan.notReadySince ? c.ago(plan.notReadySince) : plan.created, reason: phase === 'Failed' || phase === 'Succeeded' ? 'PodCompleted' : 'ContainersNotReady', message: phase === 'Failed' || phase === 'Succeeded' ? undefined : `containers with unready status: [${plan.containers.filter((_, i) => statuses[i]?.ready !== true).map((p) => p.name).join(' ')}]` };
  const clean = (o: Json) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  return {
    phase,
    ...(plan.failed ? { reason: plan.failed.reason, message: plan.failed.message } : {}),
    conditions: [
      { type: 'PodReadyToStartContainers', status: phase === 'Failed' && plan.failed ? 'False' : 'True', lastTransitionTime: plan.failed ? plan.failed.at : sandbox },
      { type: 'Initialized', status: initialized ? 'True' : 'False', lastTransitionTime: sandbox, ...(initialized ? {} : { reason: 'ContainersNotInitialized', message: `containers with incomplete status: [${(plan.initContainers ?? []).map((p) => p.name).join(' ')}]` }) },
      // The node controller marks the pods of a node that went NotReady or Unknown not ready (only that condition).
      clean({ type: 'Ready', ...(plan.node.down && phase === 'Running' ? { status: 'False', lastTransitionTime: c.ago(plan.node.down) } : readyCondition) }),
      clean({ type: 'ContainersReady', ...readyCondition }),
      { type: 'PodScheduled', status: 'True', lastTransitionTime: scheduled },
    ],
    hostIP: plan.node.ip,
    ...(ip ? { podIP: ip, podIPs: [{ ip }] } : {}),
    startTime: stamp(Date.parse(scheduled) + 1000),
    ...(initStatuses.length > 0 ? { initContainerStatuses: initStatuses } : {}),
    containerStatuses: statuses,
    qosClass: qosClass(plan.containers),
  };
}

/** Adds the pod to the cluster and answers it. */
export function pod(c: Cluster, plan: PodPlan): KubeObject {
  const ip = plan.node ? (plan.hostNetwork ? plan.node.ip : c.podIp(plan.node.ip)) : undefined;
  const extraMeta: Json = {
    ...(plan.labels ? { labels: plan.labels } : {}),
    ...(plan.annotations ? { annotations: plan.annotations } : {}),
    ...(plan.owner ? { ownerReferences: [{ ...plan.owner, controller: true, blockOwnerDeletion: true }] } : {}),
    ...(plan.deletion ? { deletionTimestamp: c.ago(plan.deletion.at), deletionGracePeriodSeconds: plan.deletion.graceSeconds } : {}),
  };
  const spec = templateSpec(plan.containers, {
    ...(plan.initContainers ? { initContainers: plan.initContainers.map((p) => containerSpec(p)) } : {}),
    restartPolicy: plan.restartPolicy ?? 'Always',
    serviceAccountName: plan.serviceAccount ?? 'default',
    ...(plan.node ? { nodeName: plan.node.name } : {}),
    ...(plan.nodeSelector ? { nodeSelector: plan.nodeSelector } : {}),
    ...(plan.affinity ? { affinity: plan.affinity } : {}),
    ...(plan.hostNetwork ? { hostNetwork: true } : {}),
    ...(plan.priorityClassName ? { priorityClassName: plan.priorityClassName } : {}),
    ...(plan.imagePullSecrets ? { imagePullSecrets: plan.imagePullSecrets } : {}),
    ...(plan.volumes ? { volumes: plan.volumes } : {}),
    tolerations: plan.tolerations ?? DEFAULT_TOLERATIONS,
  });
  return c.add('pods', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: c.meta('Pod', plan.name, plan.namespace, plan.created, extraMeta),
    spec,
    status: podStatus(c, plan, ip),
  });
}

/** A container's previous instance: started `ran` before it finished at `finished` ago. */
export function crashed(c: Cluster, finishedAgo: string, ranMs: number, exitCode: number, reason = 'Error', message?: string): Terminated {
  const finished = c.clock.ago(finishedAgo);
  return { startedAt: stamp(finished - ranMs), finishedAt: stamp(finished), exitCode, reason, ...(message ? { message } : {}) };
}

/** The CrashLoopBackOff waiting state, with the kubelet's message. */
export function backOff(podName: string, namespace: string, podUid: string, container: string, delay = '5m0s'): ContainerState {
  return { waiting: 'CrashLoopBackOff', message: `back-off ${delay} restarting failed container=${container} pod=${podName}_${namespace}(${podUid})` };
}
