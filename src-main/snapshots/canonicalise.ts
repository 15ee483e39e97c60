import { createHash } from 'node:crypto';
import {
  MAX_CONTAINER_LOGS,
  MAX_OBJECTS_PER_RESOURCE,
  SNAPSHOT_FORMAT,
  SNAPSHOT_RESOURCES,
  ContainerLogSchema,
  SnapshotEnvelopeSchema,
  snapshotObjectSchema,
  type ContainerLog,
  type SnapshotResource,
  type ValidationIssue,
} from '../../shared';
import { zodIssuesToValidation } from '../../shared/problems';
import { maskCredentialText } from './credential-text';
import { RESOURCES, apiVersionOf, resourceInfo } from './resources';
import { sanitizeLines, sanitizeObject, sanitizeServerUrl } from './sanitize';
import { sortByKey } from './sliced-sort';
import type { SlicedWork } from './time-slice';
import { SnapshotDocumentError, type CanonicalSnapshot, type Json } from './document-types';

/**
 * The checks and the canonical form of a snapshot document (see document.ts), as sliced work: it
 * yields every few hundred objects, so a document of a million objects is checked and put in
 * order without holding the event loop (runSliced), or at once for a small one (runAtOnce).
 */

/** Items handled between two pause points. */
const STEP = 256;
/** Problems collected before the checks stop (the answer lists 20). */
const MAX_ISSUES = 100;

type Validated = {
  envelope: ReturnType<typeof SnapshotEnvelopeSchema.parse>;
  objects: Record<SnapshotResource, Json[]>;
  logs: ContainerLog[];
};

function isPlainObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function prefixed(prefix: string, issues: ValidationIssue[]): ValidationIssue[] {
  return issues.map((i) => ({ path: i.path ? `${prefix}.${i.path}` : prefix, message: i.message }));
}

function* checkObjects(raw: unknown, issues: ValidationIssue[]): Generator<void, Record<SnapshotResource, Json[]>, void> {
  const objects = Object.fromEntries(SNAPSHOT_RESOURCES.map((r) => [r, [] as Json[]])) as Record<SnapshotResource, Json[]>;
  if (!isPlainObject(raw)) {
    issues.push({ path: 'objects', message: raw === undefined ? 'objects is required: one list per resource' : 'objects must be an object: one list per resource' });
    return objects;
  }
  const unknown = Object.keys(raw).filter((key) => !(SNAPSHOT_RESOURCES as readonly string[]).includes(key));
  if (unknown.length > 0) issues.push({ path: 'objects', message: `unknown field(s): ${unknown.slice(0, 10).join(', ')}` });
  for (const resource of SNAPSHOT_RESOURCES) {
    const list = raw[resource];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      issues.push({ path: `objects.${resource}`, message: 'must be a list of objects' });
      continue;
    }
    if (list.length > MAX_OBJECTS_PER_RESOURCE) issues.push({ path: `objects.${resource}`, message: `at most ${MAX_OBJECTS_PER_RESOURCE} ${resource}` });
    const schema = snapshotObjectSchema(resource);
    for (let i = 0; i < list.length && issues.length < MAX_ISSUES; i++) {
      // The object itself is kept (the schema transforms nothing); only its verdict is read.
      const checked = schema.safeParse(list[i]);
      if (!checked.success) issues.push(...prefixed(`objects.${resource}.${i}`, zodIssuesToValidation(checked.error.issues)));
      if (i % STEP === 0) yield;
    }
    objects[resource] = list as Json[];
  }
  return objects;
}

function* checkLogs(raw: unknown, issues: ValidationIssue[]): Generator<void, ContainerLog[], void> {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) {
    issues.push({ path: 'logs', message: 'must be a list of container logs' });
    return [];
  }
  if (raw.length > MAX_CONTAINER_LOGS) issues.push({ path: 'logs', message: `at most ${MAX_CONTAINER_LOGS} container logs` });
  const logs: ContainerLog[] = [];
  for (let i = 0; i < raw.length && issues.length < MAX_ISSUES; i++) {
    const checked = ContainerLogSchema.safeParse(raw[i]);
    if (checked.success) logs.push(checked.data);
    else issues.push(...prefixed(`logs.${i}`, zodIssuesToValidation(checked.error.issues)));
    if (i % STEP === 0) yield;
  }
  return logs;
}

/** Checks a parsed document against the format, object by object; throws SnapshotDocumentError naming every path. */
export function* validateDocument(raw: unknown): SlicedWork<Validated> {
  if (!isPlainObject(raw)) throw new SnapshotDocumentError([{ path: '', message: 'a snapshot document is a JSON object (what GET /v1/snapshots/{id}/export answers)' }]);
  const { objects: rawObjects, logs: rawLogs, ...rawEnvelope } = raw;
  const issues: ValidationIssue[] = [];
  const envelope = SnapshotEnvelopeSchema.safeParse(rawEnvelope);
  if (!envelope.success) issues.push(...zodIssuesToValidation(envelope.error.issues));
  const objects = yield* checkObjects(rawObjects, issues);
  const logs = yield* checkLogs(rawLogs, issues);
  if (issues.length > 0 || !envelope.success) throw new SnapshotDocumentError(issues);
  return { envelope: envelope.data, objects, logs };
}

/** A stable UUID-shaped id for an object written without one. */
function derivedUid(resource: string, namespace: string, name: string): string {
  const h = createHash('sha256').update(`${resource}/${namespace}/${name}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

function linesOf(text: string | string[] | null): string[] | null {
  if (text === null) return null;
  if (Array.isArray(text)) return text;
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

const metaOf = (object: Json): Json => object.metadata as Json;
const orderKey = (object: Json): string => `${String(metaOf(object).namespace ?? '')}\u0000${String(metaOf(object).name)}`;
const RESOURCE_BY_KIND = new Map(RESOURCES.map((r) => [r.kind, r.resource]));

/** apiVersion, kind, namespace, uid, resourceVersion, creationTimestamp, and the never-captured rules. */
function* fillObjects(objects: Record<SnapshotResource, Json[]>, recordedAt: string, issues: ValidationIssue[]): Generator<void, void, void> {
  for (const resource of SNAPSHOT_RESOURCES) {
    const info = resourceInfo(resource);
    const list = objects[resource];
    for (let index = 0; index < list.length; index++) {
      const object = list[index] as Json;
      const metadata = metaOf(object);
      if (info.namespaced) metadata.namespace ??= 'default';
      else if (metadata.namespace !== undefined) {
        issues.push({ path: `objects.${resource}.${index}.metadata.namespace`, message: `${resource} are cluster-scoped: remove metadata.namespace` });
      }
      metadata.uid ??= derivedUid(resource, String(metadata.namespace ?? ''), String(metadata.name));
      metadata.resourceVersion ??= '1';
      metadata.creationTimestamp ??= recordedAt;
      object.apiVersion = apiVersionOf(info);
      object.kind = info.kind;
      sanitizeObject(resource, object);
      if (index % STEP === 0) yield;
    }
  }
}

/** Every namespace an object lives in exists (a hand-written document may leave them out). */
function* completeNamespaces(objects: Record<SnapshotResource, Json[]>, recordedAt: string): Generator<void, void, void> {
  const known = new Set(objects.namespaces.map((ns) => String(metaOf(ns).name)));
  for (const resource of SNAPSHOT_RESOURCES) {
    if (!resourceInfo(resource).namespaced) continue;
    const list = objects[resource];
    for (let i = 0; i < list.length; i++) {
      const namespace = String(metaOf(list[i] as Json).namespace);
      if (i % STEP === 0) yield;
      if (known.has(namespace)) continue;
      known.add(namespace);
      objects.namespaces.push({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: namespace, uid: derivedUid('namespaces', '', namespace), resourceVersion: '1', creationTimestamp: recordedAt, labels: { 'kubernetes.io/metadata.name': namespace } },
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Active' },
      });
    }
  }
}

/** An event's involvedObject gets the namespace, apiVersion and uid of the object it names (kubectl describe selects by uid). */
function* linkEvents(objects: Record<SnapshotResource, Json[]>): Generator<void, void, void> {
  const wanted = new Set<string>();
  for (const event of objects.events) {
    const involved = event.involvedObject as Json;
    const resource = RESOURCE_BY_KIND.get(String(involved.kind));
    if (resource && resourceInfo(resource).namespaced) involved.namespace ??= metaOf(event).namespace;
    if (resource) involved.apiVersion ??= apiVersionOf(resourceInfo(resource));
    if (involved.uid === undefined && typeof involved.name === 'string') wanted.add(`${String(involved.kind)}/${String(involved.namespace ?? '')}/${involved.name}`);
  }
  if (wanted.size === 0) return;
  // Only the objects some event names without a uid are looked up: no map of every object.
  const uidOf = new Map<string, string>();
  for (const resource of SNAPSHOT_RESOURCES) {
    const kind = resourceInfo(resource).kind;
    const list = objects[resource];
    for (let i = 0; i < list.length; i++) {
      const metadata = metaOf(list[i] as Json);
      const key = `${kind}/${String(metadata.namespace ?? '')}/${String(metadata.name)}`;
      if (wanted.has(key)) uidOf.set(key, String(metadata.uid));
      if (i % STEP === 0) yield;
    }
  }
  for (const event of objects.events) {
    const involved = event.involvedObject as Json;
    if (involved.uid !== undefined || typeof involved.name !== 'string') continue;
    const uid = uidOf.get(`${String(involved.kind)}/${String(involved.namespace ?? '')}/${involved.name}`);
    if (uid) involved.uid = uid;
  }
}

/** Lists in the API server's order (namespace, then name); two objects of one key are refused. */
function* orderObjects(objects: Record<SnapshotResource, Json[]>, issues: ValidationIssue[]): Generator<void, void, void> {
  for (const resource of SNAPSHOT_RESOURCES) {
    const info = resourceInfo(resource);
    const list = objects[resource];
    const { sorted, duplicates } = yield* sortByKey(list, orderKey);
    for (const [first, second] of duplicates) {
      const metadata = metaOf(list[second] as Json);
      const ns = String(metadata.namespace ?? '');
      issues.push({ path: `objects.${resource}.${second}.metadata.name`, message: `the same ${info.singular} as objects.${resource}.${first} (${ns ? `${ns}/` : ''}${String(metadata.name)})` });
    }
    objects[resource] = sorted;
  }
}

type CanonicalLog = CanonicalSnapshot['logs'][number];

function* checkAndOrderLogs(logs: ContainerLog[], pods: Json[], issues: ValidationIssue[]): Generator<void, CanonicalLog[], void> {
  const containersOf = new Map<string, string[]>();
  for (const pod of pods) {
    const spec = pod.spec as Json;
    const names = ['containers', 'initContainers', 'ephemeralContainers'].flatMap((k) => (Array.isArray(spec[k]) ? (spec[k] as Json[]).map((c) => String(c.name)) : []));
    containersOf.set(`${String(metaOf(pod).namespace)}/${String(metaOf(pod).name)}`, names);
  }
  const out: CanonicalLog[] = [];
  for (let index = 0; index < logs.length; index++) {
    const log = logs[index] as ContainerLog;
    const names = containersOf.get(`${log.namespace}/${log.pod}`);
    const path = `logs.${index}`;
    if (!names) issues.push({ path: `${path}.pod`, message: `no pod ${log.namespace}/${log.pod} in objects.pods` });
    else if (!names.includes(log.container)) issues.push({ path: `${path}.container`, message: `pod ${log.namespace}/${log.pod} has no container ${log.container} (it has: ${names.join(', ')})` });
    out.push({ namespace: log.namespace, pod: log.pod, container: log.container, current: sanitizeLines(linesOf(log.current)), previous: sanitizeLines(linesOf(log.previous)) });
    if (index % STEP === 0) yield;
  }
  const { sorted, duplicates } = yield* sortByKey(out, (l) => `${l.namespace}/${l.pod}/${l.container}`);
  for (const [, second] of duplicates) {
    const log = out[second] as CanonicalLog;
    issues.push({ path: `logs.${second}`, message: `a second log for container ${log.namespace}/${log.pod}/${log.container}` });
  }
  return sorted;
}

/** Checks, completes, sanitises and orders a parsed document the caller owns (it is changed in place). */
export function* canonicalise(raw: unknown): SlicedWork<CanonicalSnapshot> {
  const { envelope, objects, logs } = yield* validateDocument(raw);
  const issues: ValidationIssue[] = [];
  const recordedAt = envelope.recorded_at;
  yield* fillObjects(objects, recordedAt, issues);
  yield* completeNamespaces(objects, recordedAt);
  yield* linkEvents(objects);
  yield* orderObjects(objects, issues);
  const canonicalLogs = yield* checkAndOrderLogs(logs, objects.pods, issues);
  if (issues.length > 0) throw new SnapshotDocumentError(issues.sort((a, b) => issueOrder(a.path) - issueOrder(b.path)));
  const source = envelope.source;
  return {
    format: SNAPSHOT_FORMAT,
    ...(envelope.snapshot_id ? { snapshot_id: envelope.snapshot_id } : {}),
    name: envelope.name,
    description: envelope.description === undefined || envelope.description === null ? null : maskCredentialText(envelope.description),
    recorded_at: recordedAt,
    source: { server: sanitizeServerUrl(source.server), kubernetes_version: source.kubernetes_version ?? null, ...(source.namespace ? { namespace: source.namespace } : {}) },
    ...(envelope.log_tail_lines !== undefined ? { log_tail_lines: envelope.log_tail_lines } : {}),
    objects: objects as CanonicalSnapshot['objects'],
    logs: canonicalLogs,
    warnings: envelope.warnings.map(maskCredentialText),
  };
}

/** Objects' problems first (in resource order), then logs'. */
function issueOrder(path: string): number {
  if (path.startsWith('logs')) return 1_000;
  const resource = path.split('.')[1] as SnapshotResource;
  const index = SNAPSHOT_RESOURCES.indexOf(resource);
  return index < 0 ? 0 : index;
}
