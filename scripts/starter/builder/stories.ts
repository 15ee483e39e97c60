import { stamp } from './clock';
import type { Cluster, KubeObject, Lines } from './cluster';
import type { NodeRef } from './nodes';
import { event } from './objects';
import { backOff, type Terminated } from './pods';
import { replica, type Controller, type Replica } from './workloads';

/**
 * The usual stories of a pod, with the events the scheduler and the kubelet write along the way:
 * started normally, crash-looping, killed by its liveness probe. Each keeps the logs consistent
 * with the container states (the lint's rules hold by construction).
 */

/** Scheduled, Pulling/Pulled (or already present), Created, Started — the events of a pod's start. */
export function startEvents(c: Cluster, p: KubeObject, o: { node: NodeRef; at: string; image: string; container: string; pullSeconds?: number }): void {
  const field = `spec.containers{${o.container}}`;
  const t = c.clock.ago(o.at);
  const after = (ms: number) => `${Math.max(0, Math.round((c.clock.rec - t - ms) / 1000))}s`;
  event(c, { on: p, reason: 'Scheduled', message: `Successfully assigned ${p.metadata.namespace}/${p.metadata.name} to ${o.node.name}`, first: o.at, component: 'default-scheduler', newApi: true });
  if (o.pullSeconds) {
    event(c, { on: p, reason: 'Pulling', message: `Pulling image "${o.image}"`, first: after(1500), component: 'kubelet', host: o.node.name, fieldPath: field });
    event(c, { on: p, reason: 'Pulled', message: `Successfully pulled image "${o.image}" in ${o.pullSeconds}s (${o.pullSeconds}s including waiting). Image size: ${c.int(`size/${o.image}`, 30_000_000, 260_000_000)} bytes.`, first: after(1500 + o.pullSeconds * 1000), component: 'kubelet', host: o.node.name, fieldPath: field });
  } else {
    event(c, { on: p, reason: 'Pulled', message: `Container image "${o.image}" already present on machine`, first: after(1500), component: 'kubelet', host: o.node.name, fieldPath: field });
  }
  const created = 2500 + (o.pullSeconds ?? 0) * 1000;
  event(c, { on: p, reason: 'Created', message: `Created container: ${o.container}`, first: after(created), component: 'kubelet', host: o.node.name, fieldPath: field });
  event(c, { on: p, reason: 'Started', message: `Started container ${o.container}`, first: after(created + 400), component: 'kubelet', host: o.node.name, fieldPath: field });
}

export type CrashLoop = {
  node: NodeRef;
  created: string;
  container: string;
  image: string;
  restarts: number;
  /** The last instance: finished `finishedAgo` before the recording after running `ranMs`. */
  finishedAgo: string;
  ranMs: number;
  exitCode: number;
  reason?: 'Error' | 'OOMKilled' | 'Completed';
  /** The last instance's log, as offsets after its start (ms) — the kubelet serves it as both current and previous. */
  log: (start: number) => Lines;
  /** First BackOff (default: two minutes after the pod was created). */
  backOffSince?: string;
  seed?: string;
  /** Other containers' states (a sidecar that runs fine…). */
  others?: Replica['states'];
  /** Not ready since (default: the first BackOff, else the pod's creation). */
  notReadySince?: string;
};

/** A replica in CrashLoopBackOff, its log and its events (BackOff, and the restarts' Pulled/Created/Started). */
export function crashLoopReplica(c: Cluster, ctl: Controller, o: CrashLoop): KubeObject {
  const finished = c.clock.ago(o.finishedAgo);
  const last: Terminated = { startedAt: stamp(finished - o.ranMs), finishedAt: stamp(finished), exitCode: o.exitCode, reason: o.reason ?? 'Error' };
  const index = c.podsOf(ctl.uid).length;
  const name = `${ctl.name}-${c.suffix(`pod/${ctl.name}/${o.seed ?? index}`)}`;
  const uid = c.uid('Pod', ctl.namespace, name);
  const p = replica(c, ctl, {
    node: o.node,
    created: c.ago(o.created),
    ...(o.seed ? { seed: o.seed } : {}),
    notReadySince: o.notReadySince ?? o.backOffSince ?? o.created,
    states: { ...o.others, [o.container]: { state: backOff(name, ctl.namespace, uid, o.container), restarts: o.restarts, last } },
  });
  const text = o.log(Date.parse(last.startedAt));
  c.log(ctl.namespace, p.metadata.name, o.container, { current: text, previous: [...text] });
  const host = o.node.name;
  const field = `spec.containers{${o.container}}`;
  const since = o.backOffSince ?? `${Math.round((c.clock.rec - c.clock.ago(o.created)) / 1000) - 120}s`;
  const lastStart = `${Math.round((c.clock.rec - Date.parse(last.startedAt)) / 1000)}s`;
  event(c, { on: p, reason: 'Pulled', message: `Container image "${o.image}" already present on machine`, first: o.created, last: lastStart, count: o.restarts + 1, component: 'kubelet', host, fieldPath: field });
  event(c, { on: p, reason: 'Created', message: `Created container: ${o.container}`, first: o.created, last: lastStart, count: o.restarts + 1, component: 'kubelet', host, fieldPath: field });
  event(c, { on: p, reason: 'Started', message: `Started container ${o.container}`, first: o.created, last: lastStart, count: o.restarts + 1, component: 'kubelet', host, fieldPath: field });
  event(c, { on: p, reason: 'BackOff', type: 'Warning', message: `Back-off restarting failed container ${o.container} in pod ${name}_${ctl.namespace}(${uid})`, first: since, last: `${c.int(`bo/${name}`, 5, 50)}s`, count: Math.max(o.restarts * 4, o.restarts + 1), component: 'kubelet', host, fieldPath: field });
  return p;
}

/** A replica whose image cannot be pulled: ImagePullBackOff, and the kubelet's events of the pull attempts. */
export function imagePullReplica(c: Cluster, ctl: Controller, o: { node: NodeRef; created: string; container: string; image: string; error: string; seed?: string; others?: Replica['states'] }): KubeObject {
  const p = replica(c, ctl, {
    node: o.node,
    created: c.ago(o.created),
    ...(o.seed ? { seed: o.seed } : {}),
    states: { ...o.others, [o.container]: { state: { waiting: 'ImagePullBackOff', message: `Back-off pulling image "${o.image}": ErrImagePull: ${o.error}` } } },
  });
  const host = o.node.name;
  const field = `spec.containers{${o.container}}`;
  const minutes = Math.max(1, Math.round((c.clock.rec - c.clock.ago(o.created)) / 60_000));
  // The kubelet retries a failed pull with a back-off up to 5 minutes.
  const pulls = Math.min(minutes, 5) + Math.max(0, Math.floor((minutes - 5) / 5));
  const lastPull = `${c.int(`pull/${p.metadata.name}`, 40, 280)}s`;
  event(c, { on: p, reason: 'Scheduled', message: `Successfully assigned ${ctl.namespace}/${p.metadata.name} to ${host}`, first: o.created, component: 'default-scheduler', newApi: true });
  event(c, { on: p, reason: 'Pulling', message: `Pulling image "${o.image}"`, first: o.created, last: lastPull, count: pulls, component: 'kubelet', host, fieldPath: field });
  event(c, { on: p, reason: 'Failed', type: 'Warning', message: `Failed to pull image "${o.image}": ${o.error}`, first: o.created, last: lastPull, count: pulls, component: 'kubelet', host, fieldPath: field });
  event(c, { on: p, reason: 'Failed', type: 'Warning', message: 'Error: ErrImagePull', first: o.created, last: lastPull, count: pulls, component: 'kubelet', host, fieldPath: field });
  event(c, { on: p, reason: 'BackOff', message: `Back-off pulling image "${o.image}"`, first: o.created, last: `${c.int(`bo/${p.metadata.name}`, 3, 30)}s`, count: minutes * 4, component: 'kubelet', host, fieldPath: field });
  event(c, { on: p, reason: 'Failed', type: 'Warning', message: 'Error: ImagePullBackOff', first: o.created, last: `${c.int(`bo/${p.metadata.name}`, 3, 30)}s`, count: minutes * 4, component: 'kubelet', host, fieldPath: field });
  return p;
}

/** A replica the scheduler cannot place: Pending, PodScheduled=False, and its FailedScheduling event (events.k8s.io, with a series). */
export function pendingReplica(c: Cluster, ctl: Controller, o: { created: string; message: string; seed?: string; lastTry?: string; volumes?: Replica['volumes'] }): KubeObject {
  const p = replica(c, ctl, { created: c.ago(o.created), unschedulable: { message: o.message }, ...(o.seed ? { seed: o.seed } : {}), ...(o.volumes ? { volumes: o.volumes } : {}) });
  const minutes = Math.max(1, Math.round((c.clock.rec - c.clock.ago(o.created)) / 60_000));
  event(c, { on: p, reason: 'FailedScheduling', type: 'Warning', message: o.message, first: o.created, last: o.lastTry ?? `${c.int(`fs/${p.metadata.name}`, 20, 200)}s`, count: Math.max(2, Math.round(minutes / 5) + 1), component: 'default-scheduler', newApi: true });
  return p;
}

/** A replica the kubelet evicted: Failed, reason Evicted, its container terminated at the eviction. */
export function evictedReplica(c: Cluster, ctl: Controller, o: { node: NodeRef; created: string; at: string; message: string; container: string; seed?: string }): KubeObject {
  const at = c.ago(o.at);
  const p = replica(c, ctl, {
    node: o.node,
    created: c.ago(o.created),
    ...(o.seed ? { seed: o.seed } : {}),
    failed: { reason: 'Evicted', message: o.message, at },
    notReadySince: o.at,
    states: { [o.container]: { state: { terminated: { startedAt: stamp(Date.parse(c.ago(o.created)) + 6000), finishedAt: at, exitCode: 137, reason: 'Error' } } } },
  });
  event(c, { on: p, reason: 'Evicted', type: 'Warning', message: o.message, first: o.at, component: 'kubelet', host: o.node.name });
  event(c, { on: p, reason: 'Killing', message: `Stopping container ${o.container}`, first: o.at, component: 'kubelet', host: o.node.name, fieldPath: `spec.containers{${o.container}}` });
  return p;
}
