import { jsonNumber as n, jsonObject as o, jsonObjects as a, jsonString as s, type Json } from '../../shared/json-read';
import type { SnapshotLintWarning } from '../../shared/snapshots';
import { logLineTime } from './log-time';

/**
 * The snapshot lint's checks of containers against their own logs (lint.ts runs them): a log
 * stamped after the recording, a log written outside the run of the instance it belongs to, a
 * log of an instance that never ran, and container states that contradict themselves.
 */

export type Warn = (check: SnapshotLintWarning['check'], object: string, message: string) => void;
export type ContainerLog = { current: string[] | null; previous: string[] | null };

/** Container status times have second resolution; log stamps have sub-second ones. */
export const STATUS_ROUNDING_MS = 1_000;
/** Tolerated lead of a stamp over `recorded_at` (a node's clock a little ahead of the recorder's). */
export const CLOCK_SKEW_MS = 5_000;

export function time(value: unknown): number | null {
  if (typeof value !== 'string' || value === '') return null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : t;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

type Window = { from: number | null; to: number | null; what: string };

/** The stamped lines of a log: [time, line]. */
function stamped(lines: readonly string[], recordedAt: number): [number, string][] {
  const out: [number, string][] = [];
  for (const line of lines) {
    const t = logLineTime(line, recordedAt);
    if (t !== null) out.push([t, line]);
  }
  return out;
}

function clip(line: string): string {
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}

/**
 * Which run of the container each log is (kubelet's GetContainerLogs): `previous` is always the
 * last terminated instance; the current log is the running instance's, else the terminated
 * one's, else — a container waiting to restart — the last terminated instance's.
 */
function windows(cs: Json): { current: Window | null; previous: Window | null } {
  const state = o(cs.state);
  const last = o(o(cs.lastState).terminated);
  const hasLast = Object.keys(last).length > 0;
  const lastWindow: Window | null = hasLast ? { from: time(last.startedAt), to: time(last.finishedAt), what: 'the last terminated instance' } : null;
  if (state.running) return { current: { from: time(o(state.running).startedAt), to: null, what: 'the running instance' }, previous: lastWindow };
  if (state.terminated) return { current: { from: time(o(state.terminated).startedAt), to: time(o(state.terminated).finishedAt), what: 'the terminated instance' }, previous: lastWindow };
  return { current: lastWindow, previous: lastWindow };
}

function checkWindow(warn: Warn, object: string, label: string, lines: readonly [number, string][], window: Window): void {
  const early = window.from === null ? [] : lines.filter(([t]) => t < (window.from as number) - STATUS_ROUNDING_MS);
  const late = window.to === null ? [] : lines.filter(([t]) => t > (window.to as number) + STATUS_ROUNDING_MS);
  if (early.length > 0) {
    const [t, line] = early[0] as [number, string];
    warn('log-outside-run', object, `${label} has ${early.length} line(s) stamped before ${window.what} started (${iso(window.from as number)}), the first at ${iso(t)}: "${clip(line)}"`);
  }
  if (late.length > 0) {
    const [t, line] = late[late.length - 1] as [number, string];
    warn('log-outside-run', object, `${label} has ${late.length} line(s) stamped after ${window.what} finished (${iso(window.to as number)}), the last at ${iso(t)}: "${clip(line)}"`);
  }
}

function checkLog(warn: Warn, object: string, label: string, lines: string[] | null, window: Window | null, recordedAt: number): void {
  if (lines === null || lines.length === 0) return;
  if (window === null) {
    warn('log-without-run', object, `${label} is recorded, but the container has no instance it could come from (it never ran${label.startsWith('previous') ? ', or never restarted' : ''})`);
    return;
  }
  const times = stamped(lines, recordedAt);
  const future = times.filter(([t]) => t > recordedAt + CLOCK_SKEW_MS);
  if (future.length > 0) {
    const [t, line] = future[future.length - 1] as [number, string];
    warn('log-after-recording', object, `${label} has ${future.length} line(s) stamped after the recording (${iso(recordedAt)}), the last at ${iso(t)}: "${clip(line)}"`);
  }
  checkWindow(warn, object, label, times, window);
}

function checkTerminated(warn: Warn, object: string, label: string, terminated: Json): void {
  if (Object.keys(terminated).length === 0) return;
  const started = time(terminated.startedAt);
  const finished = time(terminated.finishedAt);
  if (started !== null && finished !== null && finished < started) {
    warn('container-times', object, `${label} finished (${iso(finished)}) before it started (${iso(started)})`);
  }
  const reason = s(terminated.reason);
  const code = n(terminated.exitCode);
  if (reason === 'OOMKilled' && code !== 137) warn('exit-code', object, `${label} was OOMKilled with exit code ${code}; the kernel's kill is signal 9, exit code 137`);
  if (reason === 'Completed' && code !== 0) warn('exit-code', object, `${label} Completed with exit code ${code}; Completed means exit code 0`);
  if (reason === 'Error' && code === 0) warn('exit-code', object, `${label} ended in Error with exit code 0; exit code 0 is Completed`);
}

function checkStatus(warn: Warn, object: string, cs: Json, podCreated: number | null): void {
  const state = o(cs.state);
  const last = o(o(cs.lastState).terminated);
  const restarts = n(cs.restartCount);
  if (restarts === 0 && Object.keys(last).length > 0) warn('restart-count', object, 'a last terminated state but a restart count of 0 (a container that ended before has restarted at least once)');
  if (restarts === 0 && s(o(state.waiting).reason) === 'CrashLoopBackOff') warn('restart-count', object, 'CrashLoopBackOff with a restart count of 0');
  checkTerminated(warn, object, 'its last terminated instance', last);
  checkTerminated(warn, object, 'its terminated instance', o(state.terminated));
  const running = time(o(state.running).startedAt);
  const lastFinished = time(last.finishedAt);
  if (running !== null && lastFinished !== null && lastFinished > running + STATUS_ROUNDING_MS) {
    warn('container-times', object, `its last instance finished (${iso(lastFinished)}) after the running one started (${iso(running)})`);
  }
  const starts = [running, time(o(state.terminated).startedAt), time(last.startedAt)].filter((t): t is number => t !== null);
  const first = starts.length > 0 ? Math.min(...starts) : null;
  if (podCreated !== null && first !== null && first < podCreated - STATUS_ROUNDING_MS) {
    warn('container-times', object, `an instance started (${iso(first)}) before its pod was created (${iso(podCreated)})`);
  }
}

/** Every container of every pod: its statuses, and its logs against them. */
export function lintContainers(warn: Warn, pods: readonly Json[], logs: ReadonlyMap<string, ContainerLog>, recordedAt: number): void {
  for (const pod of pods) {
    const metadata = o(pod.metadata);
    const podRef = `pod/${s(metadata.namespace)}/${s(metadata.name)}`;
    const podCreated = time(metadata.creationTimestamp);
    const statuses = [...a(o(pod.status).initContainerStatuses), ...a(o(pod.status).containerStatuses)];
    const byName = new Map(statuses.map((cs) => [s(cs.name), cs]));
    const names = ['initContainers', 'containers'].flatMap((k) => a(o(pod.spec)[k]).map((c) => s(c.name)));
    for (const name of names) {
      const cs = byName.get(name);
      if (cs) checkStatus((check, object, message) => warn(check, object, `container ${name}: ${message}`), podRef, cs, podCreated);
      const log = logs.get(`${s(metadata.namespace)}/${s(metadata.name)}/${name}`);
      if (!log) continue;
      const w = cs ? windows(cs) : { current: null, previous: null };
      checkLog(warn, podRef, `the current log of container ${name}`, log.current, w.current, recordedAt);
      checkLog(warn, podRef, `the previous log of container ${name}`, log.previous, w.previous, recordedAt);
    }
  }
}
