import { jsonNumber as n, jsonObject as o, jsonString as s, type Json } from '../../shared/json-read';
import { SNAPSHOT_RESOURCES, type SnapshotLintWarning } from '../../shared/snapshots';
import type { CanonicalSnapshot } from './document';
import { CLOCK_SKEW_MS, STATUS_ROUNDING_MS, iso, lintContainers, time, type ContainerLog, type Warn } from './lint-containers';
import { lintNodes } from './lint-nodes';
import { resourceInfo } from './resources';
import { runAtOnce, runSliced, type SlicedWork } from './time-slice';

/**
 * The snapshot lint (design §12b): the timeline impossibilities a real cluster cannot show, so a
 * hand-written or edited snapshot that has them is caught before an agent is scored on it —
 * stamps after `recorded_at` (objects, events, log lines), logs that contradict the container
 * states they belong to, pods on nodes whose taints they do not tolerate, and nodes the node
 * controller calls Unknown while their heartbeat is fresh. Pure: the same document always gives
 * the same warnings, in the document's order. docs/snapshots.md lists the checks.
 */

/** Fields that hold a time something happened, which cannot be after the recording. (deletionTimestamp can: it is the end of a grace period.) */
const TIME_FIELDS = new Set([
  'creationTimestamp',
  'lastTransitionTime',
  'lastHeartbeatTime',
  'lastProbeTime',
  'lastUpdateTime',
  'startedAt',
  'finishedAt',
  'startTime',
  'completionTime',
  'lastScheduleTime',
  'lastSuccessfulTime',
  'timeAdded',
]);

function refOf(resource: string, object: Json): string {
  const metadata = o(object.metadata);
  const kind = resourceInfo(resource as (typeof SNAPSHOT_RESOURCES)[number]).kind.toLowerCase();
  return metadata.namespace ? `${kind}/${s(metadata.namespace)}/${s(metadata.name)}` : `${kind}/${s(metadata.name)}`;
}

/** The first time field (depth-first, in document order) stamped after `limit`, with its path. */
function firstFuture(value: unknown, limit: number, path: string): { path: string; at: number } | null {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstFuture(value[i], limit, `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, child] of Object.entries(value)) {
    const here = path ? `${path}.${key}` : key;
    if (TIME_FIELDS.has(key)) {
      const t = time(child);
      if (t !== null && t > limit) return { path: here, at: t };
    } else {
      const found = firstFuture(child, limit, here);
      if (found) return found;
    }
  }
  return null;
}

function lintEvent(warn: Warn, event: Json, recordedAt: number, created: ReadonlyMap<string, number>): void {
  const metadata = o(event.metadata);
  const ref = `event/${s(metadata.namespace)}/${s(metadata.name)}`;
  const first = time(event.firstTimestamp) ?? time(event.eventTime);
  const last = time(o(event.series).lastObservedTime) ?? time(event.lastTimestamp) ?? first;
  const stamps: [string, number | null][] = [
    ['firstTimestamp', time(event.firstTimestamp)],
    ['lastTimestamp', time(event.lastTimestamp)],
    ['eventTime', time(event.eventTime)],
    ['series.lastObservedTime', time(o(event.series).lastObservedTime)],
    ['metadata.creationTimestamp', time(metadata.creationTimestamp)],
  ];
  const future = stamps.find(([, t]) => t !== null && t > recordedAt + CLOCK_SKEW_MS);
  if (future) warn('event-after-recording', ref, `${s(event.reason)}: ${future[0]} ${iso(future[1] as number)} is after the recording (${iso(recordedAt)})`);
  if (first !== null && last !== null && last < first) warn('event-order', ref, `${s(event.reason)}: last seen (${iso(last)}) before first seen (${iso(first)})`);
  const count = n(event.count);
  const lastTs = time(event.lastTimestamp);
  const firstTs = time(event.firstTimestamp);
  if (count === 1 && firstTs !== null && lastTs !== null && lastTs - firstTs > STATUS_ROUNDING_MS) {
    warn('event-order', ref, `${s(event.reason)}: seen once (count 1) but from ${iso(firstTs)} to ${iso(lastTs)}; each repeat raises the count`);
  }
  const involved = o(event.involvedObject);
  const objectCreated = created.get(`${s(involved.kind)}/${s(involved.namespace)}/${s(involved.name)}/${s(involved.uid)}`);
  if (first !== null && objectCreated !== undefined && first < objectCreated - STATUS_ROUNDING_MS) {
    warn('event-before-object', ref, `${s(event.reason)} about ${s(involved.kind).toLowerCase()}/${s(involved.name)} was first seen at ${iso(first)}, before that object was created (${iso(objectCreated)})`);
  }
}

export function lintSnapshot(doc: CanonicalSnapshot): SnapshotLintWarning[] {
  return runAtOnce(lintWork(doc));
}

/** The same lint in slices: a document of a million objects hands the event loop back as it goes. */
export function lintSnapshotSliced(doc: CanonicalSnapshot): Promise<SnapshotLintWarning[]> {
  return runSliced(lintWork(doc));
}

/** How many objects are read between two safe points. */
const OBJECTS_PER_STEP = 256;

function* lintWork(doc: CanonicalSnapshot): SlicedWork<SnapshotLintWarning[]> {
  const recordedAt = Date.parse(doc.recorded_at);
  const warnings: SnapshotLintWarning[] = [];
  const warn: Warn = (check, object, message) => warnings.push({ check, object, message: `${object} ${message}` });
  const objects = doc.objects as Record<(typeof SNAPSHOT_RESOURCES)[number], Json[]>;
  const created = new Map<string, number>();
  let read = 0;

  for (const resource of SNAPSHOT_RESOURCES) {
    if (resource === 'events') continue;
    const kind = resourceInfo(resource).kind;
    for (const object of objects[resource]) {
      const metadata = o(object.metadata);
      const t = time(metadata.creationTimestamp);
      if (t !== null) created.set(`${kind}/${s(metadata.namespace)}/${s(metadata.name)}/${s(metadata.uid)}`, t);
      const future = firstFuture(object, recordedAt + CLOCK_SKEW_MS, '');
      if (future) warn('future-timestamp', refOf(resource, object), `has ${future.path} ${iso(future.at)}, after the recording (${iso(recordedAt)})`);
      if (++read % OBJECTS_PER_STEP === 0) yield;
    }
  }
  for (const event of objects.events) {
    lintEvent(warn, event, recordedAt, created);
    if (++read % OBJECTS_PER_STEP === 0) yield;
  }

  const logs = new Map<string, ContainerLog>(doc.logs.map((l) => [`${l.namespace}/${l.pod}/${l.container}`, { current: l.current, previous: l.previous }]));
  lintContainers(warn, objects.pods, logs, recordedAt);
  lintNodes(warn, objects.nodes, objects.pods, recordedAt);
  return warnings;
}

/** A lint warning as one line of a summary's `warnings`. */
export function lintSentence(warning: SnapshotLintWarning): string {
  return `lint (${warning.check}): ${warning.message}`;
}
