import type { ServerResponse } from 'node:http';
import { RESOURCES, type ResourceInfo } from '../resources';
import type { ReplayIndex } from './replay-index';
import { send, sendStatus, type Json } from './respond';

/** `pods/{name}/log` on the replay: the recorded text, under the API server's rules. */

function flag(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  return value === 'true' || value === '1';
}

function notFoundPod(res: ServerResponse, name: string): void {
  const info = RESOURCES.find((r) => r.resource === 'pods') as ResourceInfo;
  sendStatus(res, 404, 'NotFound', `pods "${name}" not found`, { name, kind: info.resource });
}

/** kubelet's rules (validateContainerLogStatus) over the recorded states, with the recorded text. */
export function podLog(index: ReplayIndex, res: ServerResponse, namespace: string, name: string, query: URLSearchParams): void {
  const entry = index.find('pods', namespace, name);
  if (!entry) return notFoundPod(res, name);
  const spec = (entry.object.spec ?? {}) as Json;
  const names = (key: string) => (Array.isArray(spec[key]) ? (spec[key] as Json[]).map((c) => String(c.name)) : []);
  const containers = names('containers');
  const inits = names('initContainers');
  const ephemeral = names('ephemeralContainers');
  let container = query.get('container') ?? '';
  if (!container) {
    const defaulted = ((entry.object.metadata as Json).annotations as Record<string, string> | undefined)?.['kubectl.kubernetes.io/default-container'];
    if (containers.length === 1) container = containers[0] as string;
    else if (defaulted && containers.includes(defaulted)) container = defaulted;
    else {
      const initText = inits.length > 0 ? ` or one of the init containers: [${inits.join(' ')}]` : '';
      return sendStatus(res, 400, 'BadRequest', `a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]${initText}`);
    }
  }
  if (![...containers, ...inits, ...ephemeral].includes(container)) {
    return sendStatus(res, 400, 'BadRequest', `container ${container} is not valid for pod ${name}`);
  }
  const status = (entry.object.status ?? {}) as Json;
  const statuses = [status.containerStatuses, status.initContainerStatuses, status.ephemeralContainerStatuses].flatMap((s) => (Array.isArray(s) ? (s as Json[]) : []));
  const cs = statuses.find((s) => s.name === container);
  const state = (cs?.state ?? {}) as Json;
  const lastTerminated = ((cs?.lastState ?? {}) as Json).terminated;
  const recorded = index.log(namespace, name, container);
  let text: string;
  if (flag(query, 'previous')) {
    if (lastTerminated === undefined || lastTerminated === null) {
      return sendStatus(res, 400, 'BadRequest', `previous terminated container "${container}" in pod "${name}" not found`);
    }
    text = recorded?.previous ?? '';
  } else if (!spec.nodeName) {
    // The API server has no node to ask: an empty log, as for a pod that was never scheduled.
    text = '';
  } else if (state.waiting !== undefined && !recorded?.current && (lastTerminated === undefined || lastTerminated === null)) {
    const reason = String((state.waiting as Json).reason ?? '');
    const why = reason === 'ErrImagePull' ? "image can't be pulled" : reason === 'ImagePullBackOff' ? 'trying and failing to pull image' : reason;
    return sendStatus(res, 400, 'BadRequest', `container "${container}" in pod "${name}" is waiting to start: ${why}`);
  } else if (cs === undefined && !recorded?.current) {
    return sendStatus(res, 400, 'BadRequest', `container "${container}" in pod "${name}" is waiting to start - no logs yet`);
  } else {
    // A waiting container that ran before (CrashLoopBackOff) shows its last instance's log.
    text = recorded?.current ?? (state.running === undefined ? (recorded?.previous ?? '') : '');
  }
  const tail = query.get('tailLines');
  if (tail !== null && tail !== '') {
    const n = Number(tail);
    if (!Number.isInteger(n) || n < 0) return sendStatus(res, 400, 'BadRequest', `tailLines: Invalid value: "${tail}": must be a non-negative integer`);
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    const kept = n === 0 ? [] : lines.slice(-n);
    text = kept.length === 0 ? '' : `${kept.join('\n')}\n`;
  }
  const limitBytes = query.get('limitBytes');
  if (limitBytes !== null && limitBytes !== '') {
    const n = Number(limitBytes);
    if (!Number.isInteger(n) || n < 1) return sendStatus(res, 400, 'BadRequest', `limitBytes: Invalid value: "${limitBytes}": must be greater than 0`);
    text = Buffer.from(text).subarray(0, n).toString('utf8');
  }
  send(res, 200, text, 'text/plain');
}
