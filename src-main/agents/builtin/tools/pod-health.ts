import type { KubeContainerStatus, KubePod } from '../kube-wire';
import { isoTime, oneLine } from './format';

/**
 * Decides whether a pod is unhealthy and says why in one line. A CrashLoopBackOff pod is
 * usually phase Running, so phase alone is not enough: container waiting reasons, restarts
 * with a failed last termination, unready containers and the scheduling condition all count.
 */

/** Waiting reasons that are a normal step of starting up, not a problem by themselves. */
const TRANSIENT_WAITING = new Set(['ContainerCreating', 'PodInitializing']);

function containerProblem(cs: KubeContainerStatus, phase: string, kind: 'container' | 'init container'): string | null {
  const parts: string[] = [];
  const waiting = cs.state?.waiting;
  const terminated = cs.state?.terminated;
  const last = cs.lastState?.terminated;
  const restarts = cs.restartCount ?? 0;

  if (waiting?.reason && !TRANSIENT_WAITING.has(waiting.reason)) {
    parts.push(`waiting: ${waiting.reason}${waiting.message ? ` (${oneLine(waiting.message, 200)})` : ''}`);
  }
  if (terminated && terminated.exitCode !== 0 && kind === 'container') {
    parts.push(`terminated: ${terminated.reason ?? 'Error'}, exit code ${terminated.exitCode}`);
  }
  const lastFailed = last && (last.exitCode !== 0 || (last.reason && last.reason !== 'Completed'));
  if (restarts > 0 && (lastFailed || parts.length > 0)) parts.push(`restarts: ${restarts}`);
  if (last && lastFailed) {
    const when = isoTime(last.finishedAt);
    parts.push(`last termination: ${last.reason ?? 'Error'}, exit code ${last.exitCode}${last.signal ? `, signal ${last.signal}` : ''}${when ? ` at ${when}` : ''}`);
  }
  if (parts.length === 0 && phase === 'Running' && kind === 'container' && cs.ready === false && !waiting) {
    parts.push('not ready (readiness probe failing or still starting)');
  }
  return parts.length ? `${kind} ${cs.name}: ${parts.join('; ')}` : null;
}

/** null when the pod looks healthy, else a description of its problems. */
export function describePodProblems(pod: KubePod): string | null {
  const phase = pod.status?.phase ?? 'Unknown';
  if (phase === 'Succeeded') return null;
  const problems: string[] = [];

  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled && scheduled.status === 'False') {
    problems.push(`unschedulable: ${scheduled.reason ?? 'not scheduled'}${scheduled.message ? ` (${oneLine(scheduled.message, 300)})` : ''}`);
  }
  for (const cs of pod.status?.initContainerStatuses ?? []) {
    const p = containerProblem(cs, phase, 'init container');
    if (p) problems.push(p);
  }
  for (const cs of pod.status?.containerStatuses ?? []) {
    const p = containerProblem(cs, phase, 'container');
    if (p) problems.push(p);
  }
  if (phase === 'Failed' || phase === 'Unknown') {
    problems.unshift(`pod ${phase}${pod.status?.reason ? `: ${pod.status.reason}` : ''}${pod.status?.message ? ` (${oneLine(pod.status.message, 200)})` : ''}`);
  } else if (phase === 'Pending' && problems.length === 0) {
    problems.push('pending (containers not started yet)');
  }
  if (problems.length === 0) return null;
  const node = pod.spec?.nodeName ? `, node ${pod.spec.nodeName}` : '';
  return `phase ${phase}${node}; ${problems.join('; ')}`;
}
