import { MAX_LOG_BYTES_PER_CONTAINER, MAX_LOG_BYTES_PER_SNAPSHOT } from '../../shared/snapshots';
import { KubeHttpError, type KubeHttp } from './kube-http';

/**
 * The container logs of a recording, bounded: each log keeps at most its newest
 * MAX_LOG_BYTES_PER_CONTAINER bytes, and all of them together MAX_LOG_BYTES_PER_SNAPSHOT (a
 * cluster of 2,000 pods with 256 KiB logs once ended in a plain 500, "Invalid string length",
 * with nothing stored). Every log gets an equal share of the snapshot's bound; the newest lines
 * are what a troubleshooter reads, so a log longer than its share keeps its end.
 */

type Json = Record<string, unknown>;

export type LogTarget = { namespace: string; pod: string; container: string; current: boolean; previous: boolean };
export type RecordedLog = { namespace: string; pod: string; container: string; current: string | null; previous: string | null };

export type LogBounds = { perContainer: number; perSnapshot: number };
export const DEFAULT_LOG_BOUNDS: LogBounds = { perContainer: MAX_LOG_BYTES_PER_CONTAINER, perSnapshot: MAX_LOG_BYTES_PER_SNAPSHOT };
/** A share never below this: a few dozen lines, whatever the number of containers. */
const MIN_SHARE_BYTES = 4 * 1024;

/** Which logs exist to read: a container that ran (or is running) has a current log; one with a last terminated state, a previous one. */
export function logTargets(pods: readonly Json[]): LogTarget[] {
  const targets: LogTarget[] = [];
  for (const pod of pods) {
    const metadata = pod.metadata as Json;
    const spec = (pod.spec ?? {}) as Json;
    if (!spec.nodeName) continue;
    const status = (pod.status ?? {}) as Json;
    for (const key of ['initContainerStatuses', 'containerStatuses']) {
      const statuses = Array.isArray(status[key]) ? (status[key] as Json[]) : [];
      for (const cs of statuses) {
        const state = (cs.state ?? {}) as Json;
        const last = ((cs.lastState ?? {}) as Json).terminated;
        const previous = last !== undefined && last !== null;
        const current = state.running !== undefined || state.terminated !== undefined || previous;
        if (current || previous) targets.push({ namespace: String(metadata.namespace), pod: String(metadata.name), container: String(cs.name), current, previous });
      }
    }
  }
  return targets;
}

/** The newest whole lines of `text` that fit in `bytes` (UTF-8). */
export function newestWithin(text: string, bytes: number): string {
  if (Buffer.byteLength(text) <= bytes) return text;
  const buffer = Buffer.from(text);
  let start = buffer.length - bytes;
  // Start after a newline, so the first line kept is whole.
  const newline = buffer.indexOf(0x0a, start - 1);
  start = newline < 0 ? buffer.length : newline + 1;
  return buffer.subarray(start).toString('utf8');
}

/** The bytes of all logs: each read reserves its share first and gives back what it did not use. */
export class LogBudget {
  readonly share: number;
  private left: number;
  used = 0;
  cut = 0;
  skipped = 0;

  constructor(bounds: LogBounds, reads: number) {
    this.left = bounds.perSnapshot;
    this.share = Math.max(Math.min(MIN_SHARE_BYTES, bounds.perContainer), Math.min(bounds.perContainer, Math.floor(bounds.perSnapshot / Math.max(1, reads))));
  }

  reserve(): number {
    const granted = Math.min(this.share, this.left);
    this.left -= granted;
    return granted;
  }

  settle(granted: number, kept: number): void {
    this.left += granted - kept;
    this.used += kept;
  }

  warnings(): string[] {
    const mib = (n: number) => `${Math.round((n / (1024 * 1024)) * 10) / 10} MiB`;
    return [
      ...(this.cut > 0 ? [`${this.cut} log(s) kept their newest ${Math.round(this.share / 1024)} KiB only (each log is bounded so that all of them stay within ${mib(this.used + this.left)})`] : []),
      ...(this.skipped > 0 ? [`${this.skipped} log(s) not recorded: the bound for all logs of a snapshot was reached`] : []),
    ];
  }
}

/**
 * Reads one log within `bytes`, keeping its newest lines. The API's limitBytes cuts the end of
 * what tailLines selected (the newest lines), so a log that comes back cut is asked again for as
 * many of its last lines as fit, judged from the length of the lines that came.
 */
export async function readBoundedLog(http: KubeHttp, path: string, query: { container: string; tailLines: number; previous?: boolean }, bytes: number, signal: AbortSignal): Promise<{ text: string; cut: boolean }> {
  const first = await http.getText(path, { ...query, limitBytes: bytes }, signal);
  if (Buffer.byteLength(first) < bytes) return { text: first, cut: false };
  const lines = Math.max(1, first.split('\n').length - 1);
  const fit = Math.max(1, Math.floor((lines * bytes) / Buffer.byteLength(first)) - 1);
  const second = await http.getText(path, { ...query, tailLines: Math.min(query.tailLines, fit), limitBytes: bytes }, signal);
  // Still cut (the newest lines are longer): keep whole lines only.
  const text = Buffer.byteLength(second) >= bytes ? second.slice(0, second.lastIndexOf('\n') + 1) : second;
  return { text: newestWithin(text, bytes), cut: true };
}

/** Reads a target's current and previous log within the budget; null for a log it could not give. */
export async function readTargetLogs(
  http: KubeHttp,
  target: LogTarget,
  tail: number,
  budget: LogBudget,
  signal: AbortSignal,
  onFailure: () => void,
): Promise<RecordedLog | null> {
  const path = `/api/v1/namespaces/${encodeURIComponent(target.namespace)}/pods/${encodeURIComponent(target.pod)}/log`;
  const read = async (previous: boolean): Promise<string | null> => {
    const granted = budget.reserve();
    if (granted <= 0) {
      budget.skipped++;
      return null;
    }
    let kept = 0;
    try {
      const { text, cut } = await readBoundedLog(http, path, { container: target.container, tailLines: tail, ...(previous ? { previous: true } : {}) }, granted, signal);
      kept = Buffer.byteLength(text);
      if (cut) budget.cut++;
      return text;
    } catch (err) {
      if (err instanceof KubeHttpError && err.kind === 'unreachable') throw err;
      onFailure();
      return null;
    } finally {
      budget.settle(granted, kept);
    }
  };
  const current = target.current ? await read(false) : null;
  const previous = target.previous ? await read(true) : null;
  return current !== null || previous !== null ? { namespace: target.namespace, pod: target.pod, container: target.container, current, previous } : null;
}
