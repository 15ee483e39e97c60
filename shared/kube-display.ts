/**
 * How kubectl shows a pod, a node and an age, as pure functions over plain Kubernetes JSON: the
 * replay's Table answers (src-main/snapshots/table.ts) and the renderer's snapshot browser use
 * these, so both say "CrashLoopBackOff" where `kubectl get pods` would. Ported from Kubernetes'
 * server-side printers (pkg/printers/internalversion/printers.go: printPod, printNode) and
 * apimachinery's duration.HumanDuration.
 */

import { jsonNumber as num, jsonObject as obj, jsonObjects as arr, jsonString as str, type Json } from './json-read';

function time(value: unknown): number | null {
  if (typeof value !== 'string' || value === '') return null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : t;
}

/** kubectl's short duration: 45s, 5m10s, 3h12m, 2d4h, 1y30d (duration.HumanDuration). */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    return days === 0 ? `${Math.trunc(hours / 24 / 365)}y` : `${Math.trunc(hours / 24 / 365)}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** The age of a timestamp at `now` as kubectl prints it; `<unknown>` without one. */
export function ageAt(timestamp: unknown, now: number): string {
  const t = time(timestamp);
  return t === null ? '<unknown>' : humanDuration(now - t);
}

export type PodDisplay = {
  /** READY: ready containers / containers ("1/2"). */
  ready: string;
  /** STATUS: the reason kubectl shows (CrashLoopBackOff, OOMKilled, Init:0/1, Completed, Terminating…), else the phase. */
  status: string;
  restarts: number;
  /** When the last restart's container ended (for "7 (5m ago)"), or null. */
  lastRestartAt: number | null;
};

function isRestartableInit(container: Json | undefined): boolean {
  return str(container?.restartPolicy) === 'Always';
}

function terminatedReason(terminated: Json, prefix: string): string {
  const reason = str(terminated.reason);
  if (reason) return `${prefix}${reason}`;
  const signal = num(terminated.signal);
  return signal !== 0 ? `${prefix}Signal:${signal}` : `${prefix}ExitCode:${num(terminated.exitCode)}`;
}

function hasCondition(status: Json, type: string): boolean {
  return arr(status.conditions).some((c) => str(c.type) === type && str(c.status) === 'True');
}

/** READY, STATUS and RESTARTS of a pod, computed as `kubectl get pods` does (printPod). */
export function podDisplay(pod: unknown): PodDisplay {
  const p = obj(pod);
  const spec = obj(p.spec);
  const status = obj(p.status);
  const metadata = obj(p.metadata);
  const containers = arr(spec.containers);
  const initSpecs = arr(spec.initContainers);
  let totalContainers = containers.length;
  let readyContainers = 0;
  let restarts = 0;
  let restartableInitRestarts = 0;
  let lastRestart: number | null = null;
  let lastRestartableInitRestart: number | null = null;
  const later = (a: number | null, b: number | null): number | null => (b !== null && (a === null || b > a) ? b : a);

  const phase = str(status.phase);
  let reason = str(status.reason) || phase;
  for (const condition of arr(status.conditions)) {
    if (str(condition.type) === 'PodScheduled' && str(condition.reason) === 'SchedulingGated') reason = 'SchedulingGated';
  }

  const initByName = new Map<string, Json>();
  for (const c of initSpecs) {
    initByName.set(str(c.name), c);
    if (isRestartableInit(c)) totalContainers++;
  }

  let initializing = false;
  const initStatuses = arr(status.initContainerStatuses);
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i] as Json;
    const state = obj(c.state);
    const lastTerminated = obj(obj(c.lastState).terminated);
    restarts += num(c.restartCount);
    lastRestart = later(lastRestart, time(lastTerminated.finishedAt));
    const restartable = isRestartableInit(initByName.get(str(c.name)));
    if (restartable) {
      restartableInitRestarts += num(c.restartCount);
      lastRestartableInitRestart = later(lastRestartableInitRestart, time(lastTerminated.finishedAt));
    }
    const terminated = state.terminated === undefined ? null : obj(state.terminated);
    const waiting = state.waiting === undefined ? null : obj(state.waiting);
    if (terminated && num(terminated.exitCode) === 0) continue;
    if (restartable && c.started === true) {
      if (c.ready === true) readyContainers++;
      continue;
    }
    if (terminated) reason = terminatedReason(terminated, 'Init:');
    else if (waiting && str(waiting.reason) && str(waiting.reason) !== 'PodInitializing') reason = `Init:${str(waiting.reason)}`;
    else reason = `Init:${i}/${initSpecs.length}`;
    initializing = true;
    break;
  }

  if (!initializing || hasCondition(status, 'Initialized')) {
    restarts = restartableInitRestarts;
    lastRestart = lastRestartableInitRestart;
    let hasRunning = false;
    const statuses = arr(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const c = statuses[i] as Json;
      const state = obj(c.state);
      restarts += num(c.restartCount);
      lastRestart = later(lastRestart, time(obj(obj(c.lastState).terminated).finishedAt));
      const waiting = state.waiting === undefined ? null : obj(state.waiting);
      const terminated = state.terminated === undefined ? null : obj(state.terminated);
      if (waiting && str(waiting.reason)) reason = str(waiting.reason);
      else if (terminated) reason = terminatedReason(terminated, '');
      else if (c.ready === true && state.running !== undefined) {
        hasRunning = true;
        readyContainers++;
      }
    }
    if (reason === 'Completed' && hasRunning) reason = hasCondition(status, 'Ready') ? 'Running' : 'NotReady';
  }

  const deleting = metadata.deletionTimestamp !== undefined && metadata.deletionTimestamp !== null;
  if (deleting && str(status.reason) === 'NodeLost') reason = 'Unknown';
  else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  return { ready: `${readyContainers}/${totalContainers}`, status: reason, restarts, lastRestartAt: lastRestart };
}

/** RESTARTS as kubectl prints it at `now`: "7" or "7 (5m ago)". */
export function restartsText(display: PodDisplay, now: number): string {
  if (display.restarts !== 0 && display.lastRestartAt !== null) return `${display.restarts} (${humanDuration(now - display.lastRestartAt)} ago)`;
  return String(display.restarts);
}

/** STATUS of a node as kubectl prints it: Ready, NotReady, Unknown, plus ",SchedulingDisabled" when cordoned. */
export function nodeStatus(node: unknown): string {
  const n = obj(node);
  const ready = arr(obj(n.status).conditions).find((c) => str(c.type) === 'Ready');
  const parts = [ready ? (str(ready.status) === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (obj(n.spec).unschedulable === true) parts.push('SchedulingDisabled');
  return parts.join(',');
}

/** ROLES of a node: from node-role.kubernetes.io/<role> and kubernetes.io/role labels, or "<none>". */
export function nodeRoles(node: unknown): string {
  const labels = obj(obj(obj(node).metadata).labels);
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(labels)) {
    if (key.startsWith('node-role.kubernetes.io/')) {
      const role = key.slice('node-role.kubernetes.io/'.length);
      if (role) roles.add(role);
    } else if (key === 'kubernetes.io/role' && typeof value === 'string' && value) {
      roles.add(value);
    }
  }
  return roles.size > 0 ? [...roles].sort().join(',') : '<none>';
}
