import { jsonObject as o, jsonObjects as a, jsonString as s, type Json } from '../../shared/json-read';
import { CLOCK_SKEW_MS, iso, time, type Warn } from './lint-containers';

/**
 * The snapshot lint's checks of nodes and of where pods sit (lint.ts runs them): a node the node
 * controller calls Unknown while its kubelet's heartbeat is fresh, a node posting status whose
 * heartbeat is too old, and a pod on a node whose taint it does not tolerate.
 */

/** The node controller's grace period (node-monitor-grace-period: 40 s, 50 s from Kubernetes 1.32): never less. */
export const NODE_GRACE_MS = 40_000;
/** A kubelet posts its conditions at least every 5 minutes (nodeStatusReportFrequency), with a minute's margin. */
export const NODE_REPORT_MS = 6 * 60_000;
const KUBELET_CONDITIONS = ['MemoryPressure', 'DiskPressure', 'PIDPressure'];

function checkNode(warn: Warn, node: Json, recordedAt: number): void {
  const ref = `node/${s(o(node.metadata).name)}`;
  const conditions = a(o(node.status).conditions);
  const ready = conditions.find((c) => s(c.type) === 'Ready');
  if (!ready) return;
  const heartbeat = time(ready.lastHeartbeatTime);
  const transition = time(ready.lastTransitionTime);
  if (s(ready.status) === 'Unknown') {
    if (heartbeat !== null && recordedAt - heartbeat < NODE_GRACE_MS) {
      warn('node-unknown-heartbeat', ref, `is Ready=Unknown, but its kubelet's last heartbeat (${iso(heartbeat)}) is ${Math.round((recordedAt - heartbeat) / 1000)} s before the recording: the node controller waits at least ${NODE_GRACE_MS / 1000} s without one`);
    } else if (heartbeat !== null && transition !== null && transition < heartbeat + NODE_GRACE_MS - 1_000) {
      warn('node-unknown-heartbeat', ref, `became Ready=Unknown at ${iso(transition)}, less than ${NODE_GRACE_MS / 1000} s after its kubelet's last heartbeat (${iso(heartbeat)})`);
    }
    const known = conditions.filter((c) => KUBELET_CONDITIONS.includes(s(c.type)) && s(c.status) !== 'Unknown');
    if (known.length > 0) {
      warn('node-unknown-partial', ref, `is Ready=Unknown (the kubelet stopped posting), yet ${known.map((c) => `${s(c.type)}=${s(c.status)}`).join(', ')}: the node controller sets every condition the kubelet posts to Unknown together`);
    }
  } else if (heartbeat !== null && recordedAt - heartbeat > NODE_REPORT_MS) {
    warn('node-stale-heartbeat', ref, `reports Ready=${s(ready.status)} with a heartbeat from ${iso(heartbeat)}, ${Math.round((recordedAt - heartbeat) / 60_000)} min before the recording: a kubelet posts its status at least every 5 minutes, and without it the node would be Unknown`);
  }
}

/** When a taint was put on the node, as far as the node tells. */
function taintSince(node: Json, taint: Json): number | null {
  const added = time(taint.timeAdded);
  if (added !== null) return added;
  const key = s(taint.key);
  const condition = (type: string) => time(a(o(node.status).conditions).find((c) => s(c.type) === type)?.lastTransitionTime);
  if (key === 'node.kubernetes.io/not-ready' || key === 'node.kubernetes.io/unreachable') return condition('Ready');
  if (key === 'node.kubernetes.io/memory-pressure') return condition('MemoryPressure');
  if (key === 'node.kubernetes.io/disk-pressure') return condition('DiskPressure');
  if (key === 'node.kubernetes.io/pid-pressure') return condition('PIDPressure');
  // A cordon keeps the pods it finds; its time is not recorded anywhere.
  if (key === 'node.kubernetes.io/unschedulable') return null;
  // Any other taint: assumed to be there since the node registered (kubelet --register-with-taints).
  return time(o(node.metadata).creationTimestamp);
}

/** The toleration of the pod that tolerates the taint (v1helper.TolerationsTolerateTaint), if any. */
function toleration(pod: Json, taint: Json): Json | undefined {
  return a(o(pod.spec).tolerations).find((t) => {
    if (s(t.effect) !== '' && s(t.effect) !== s(taint.effect)) return false;
    if (s(t.key) === '') return s(t.operator) === 'Exists';
    if (s(t.key) !== s(taint.key)) return false;
    return s(t.operator) === 'Exists' || s(t.value) === s(taint.value);
  });
}

function taintText(taint: Json): string {
  return `${s(taint.key)}${s(taint.value) ? `=${s(taint.value)}` : ''}:${s(taint.effect)}`;
}

function scheduledAt(pod: Json): number | null {
  const condition = a(o(pod.status).conditions).find((c) => s(c.type) === 'PodScheduled' && s(c.status) === 'True');
  return time(condition?.lastTransitionTime) ?? time(o(pod.metadata).creationTimestamp);
}

function checkPodTaints(warn: Warn, pod: Json, node: Json, recordedAt: number): void {
  const ref = `pod/${s(o(pod.metadata).namespace)}/${s(o(pod.metadata).name)}`;
  const nodeName = s(o(node.metadata).name);
  const deleting = time(o(pod.metadata).deletionTimestamp) !== null;
  for (const taint of a(o(node.spec).taints)) {
    const effect = s(taint.effect);
    const since = taintSince(node, taint);
    const tolerated = toleration(pod, taint);
    if (effect === 'NoSchedule' && !tolerated) {
      const scheduled = scheduledAt(pod);
      if (since !== null && scheduled !== null && scheduled >= since) {
        warn('untolerated-taint', ref, `was scheduled on ${nodeName} at ${iso(scheduled)}, when the node had the taint ${taintText(taint)} (since ${iso(since)}), which the pod does not tolerate`);
      }
    } else if (effect === 'NoExecute' && !deleting) {
      const seconds = tolerated && typeof tolerated.tolerationSeconds === 'number' ? tolerated.tolerationSeconds : null;
      if (!tolerated && (since === null || since + CLOCK_SKEW_MS < recordedAt)) {
        warn('untolerated-taint', ref, `is still bound to ${nodeName}, whose taint ${taintText(taint)} it does not tolerate: the taint manager would have evicted it`);
      } else if (seconds !== null && since !== null && since + seconds * 1000 + CLOCK_SKEW_MS < recordedAt) {
        warn('untolerated-taint', ref, `tolerates ${taintText(taint)} for ${seconds} s only, the taint is on ${nodeName} since ${iso(since)}, and the pod is not being deleted: it would have been evicted at ${iso(since + seconds * 1000)}`);
      }
    }
  }
}

export function lintNodes(warn: Warn, nodes: readonly Json[], pods: readonly Json[], recordedAt: number): void {
  for (const node of nodes) checkNode(warn, node, recordedAt);
  const byName = new Map(nodes.map((node) => [s(o(node.metadata).name), node]));
  for (const pod of pods) {
    const nodeName = s(o(pod.spec).nodeName);
    const phase = s(o(pod.status).phase);
    if (nodeName === '' || phase === 'Succeeded' || phase === 'Failed') continue;
    // Static (mirror) pods are run by the kubelet itself, whatever the taints.
    if (o(o(pod.metadata).annotations)['kubernetes.io/config.mirror'] !== undefined) continue;
    const node = byName.get(nodeName);
    if (!node) {
      if (nodes.length > 0) warn('pod-on-missing-node', `pod/${s(o(pod.metadata).namespace)}/${s(o(pod.metadata).name)}`, `is bound to node ${nodeName}, which the snapshot does not have`);
      continue;
    }
    const scheduled = scheduledAt(pod);
    const nodeCreated = time(o(node.metadata).creationTimestamp);
    if (scheduled !== null && nodeCreated !== null && scheduled < nodeCreated - 1_000) {
      warn('pod-before-node', `pod/${s(o(pod.metadata).namespace)}/${s(o(pod.metadata).name)}`, `was scheduled on ${nodeName} at ${iso(scheduled)}, before that node registered (${iso(nodeCreated)})`);
    }
    checkPodTaints(warn, pod, node, recordedAt);
  }
}
