import { createHash } from 'node:crypto';
import {
  SNAPSHOT_FORMAT,
  SNAPSHOT_RESOURCES,
  SnapshotDocumentSchema,
  type ExportedSnapshot,
  type SnapshotCounts,
  type SnapshotDocument,
  type SnapshotResource,
  type ValidationIssue,
} from '../../shared';
import { zodIssuesToValidation } from '../../shared/problems';
import { RESOURCES, apiVersionOf, resourceInfo } from './resources';
import { maskCredentialText } from './credential-text';
import { sanitizeLines, sanitizeObject, sanitizeServerUrl } from './sanitize';

/**
 * A snapshot document, checked and put in its one canonical form, whether it was recorded or
 * written by hand: every object carries `apiVersion`, `kind`, a namespace (namespaced kinds),
 * a `uid`, a `resourceVersion` and a `creationTimestamp`; an event's `involvedObject` carries
 * the uid of the object it names (kubectl describe selects events by it); every namespace an
 * object lives in exists; collections are in the API server's order (namespace, then name);
 * logs are lines; and the never-captured rules of sanitize.ts hold.
 */
export type CanonicalSnapshot = Omit<ExportedSnapshot, 'snapshot_id'> & { snapshot_id?: string };

type Json = Record<string, unknown>;

export class SnapshotDocumentError extends Error {
  override name = 'SnapshotDocumentError';
  constructor(readonly issues: ValidationIssue[]) {
    super(`invalid snapshot document: ${issues.slice(0, 3).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`);
  }
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

function compareByNamespaceAndName(a: Json, b: Json): number {
  const ma = a.metadata as Json;
  const mb = b.metadata as Json;
  const na = `${String(ma.namespace ?? '')}\u0000${String(ma.name)}`;
  const nb = `${String(mb.namespace ?? '')}\u0000${String(mb.name)}`;
  return na < nb ? -1 : na > nb ? 1 : 0;
}

const RESOURCE_BY_KIND = new Map(RESOURCES.map((r) => [r.kind, r.resource]));

/** Parses, checks and canonicalises a document; throws SnapshotDocumentError naming the paths. */
export function canonicalSnapshot(raw: unknown): CanonicalSnapshot {
  const parsed = SnapshotDocumentSchema.safeParse(raw);
  if (!parsed.success) throw new SnapshotDocumentError(zodIssuesToValidation(parsed.error.issues));
  return canonicalise(structuredClone(parsed.data));
}

function canonicalise(doc: SnapshotDocument): CanonicalSnapshot {
  const issues: ValidationIssue[] = [];
  const recordedAt = doc.recorded_at;
  const objects = doc.objects as Record<SnapshotResource, Json[]>;
  const seen = new Map<string, string>();
  const uidOf = new Map<string, string>();

  for (const resource of SNAPSHOT_RESOURCES) {
    const info = resourceInfo(resource);
    objects[resource].forEach((object, index) => {
      const path = `objects.${resource}.${index}`;
      const metadata = object.metadata as Json;
      if (info.namespaced) metadata.namespace ??= 'default';
      else if (metadata.namespace !== undefined) {
        issues.push({ path: `${path}.metadata.namespace`, message: `${resource} are cluster-scoped: remove metadata.namespace` });
      }
      const namespace = String(metadata.namespace ?? '');
      const name = String(metadata.name);
      const key = `${resource}/${namespace}/${name}`;
      const first = seen.get(key);
      if (first !== undefined) issues.push({ path: `${path}.metadata.name`, message: `the same ${info.singular} as ${first} (${namespace ? `${namespace}/` : ''}${name})` });
      else seen.set(key, path);
      metadata.uid ??= derivedUid(resource, namespace, name);
      metadata.resourceVersion ??= '1';
      metadata.creationTimestamp ??= recordedAt;
      uidOf.set(`${info.kind}/${namespace}/${name}`, String(metadata.uid));
      object.apiVersion = apiVersionOf(info);
      object.kind = info.kind;
      sanitizeObject(resource, object);
    });
  }

  // Every namespace an object lives in exists (a hand-written document may leave them out).
  const known = new Set(objects.namespaces.map((ns) => String((ns.metadata as Json).name)));
  for (const resource of SNAPSHOT_RESOURCES) {
    if (!resourceInfo(resource).namespaced) continue;
    for (const object of objects[resource]) {
      const namespace = String((object.metadata as Json).namespace);
      if (known.has(namespace)) continue;
      known.add(namespace);
      const uid = derivedUid('namespaces', '', namespace);
      uidOf.set(`Namespace//${namespace}`, uid);
      objects.namespaces.push({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: namespace, uid, resourceVersion: '1', creationTimestamp: recordedAt, labels: { 'kubernetes.io/metadata.name': namespace } },
        spec: { finalizers: ['kubernetes'] },
        status: { phase: 'Active' },
      });
    }
  }

  for (const event of objects.events) {
    const involved = event.involvedObject as Json;
    const kind = String(involved.kind);
    const resource = RESOURCE_BY_KIND.get(kind);
    if (resource && resourceInfo(resource).namespaced) involved.namespace ??= (event.metadata as Json).namespace;
    if (resource) involved.apiVersion ??= apiVersionOf(resourceInfo(resource));
    if (involved.uid === undefined && typeof involved.name === 'string') {
      const uid = uidOf.get(`${kind}/${String(involved.namespace ?? '')}/${involved.name}`);
      if (uid) involved.uid = uid;
    }
  }

  for (const resource of SNAPSHOT_RESOURCES) objects[resource].sort(compareByNamespaceAndName);

  const pods = new Map(objects.pods.map((p) => [`${String((p.metadata as Json).namespace)}/${String((p.metadata as Json).name)}`, p]));
  const logKeys = new Set<string>();
  const logs = doc.logs.map((log, index) => {
    const pod = pods.get(`${log.namespace}/${log.pod}`);
    const path = `logs.${index}`;
    if (!pod) issues.push({ path: `${path}.pod`, message: `no pod ${log.namespace}/${log.pod} in objects.pods` });
    else {
      const spec = pod.spec as Json;
      const names = ['containers', 'initContainers', 'ephemeralContainers'].flatMap((k) => (Array.isArray(spec[k]) ? (spec[k] as Json[]).map((c) => String(c.name)) : []));
      if (!names.includes(log.container)) issues.push({ path: `${path}.container`, message: `pod ${log.namespace}/${log.pod} has no container ${log.container} (it has: ${names.join(', ')})` });
    }
    const key = `${log.namespace}/${log.pod}/${log.container}`;
    if (logKeys.has(key)) issues.push({ path, message: `a second log for container ${key}` });
    logKeys.add(key);
    return { namespace: log.namespace, pod: log.pod, container: log.container, current: sanitizeLines(linesOf(log.current)), previous: sanitizeLines(linesOf(log.previous)) };
  });
  logs.sort((a, b) => (`${a.namespace}/${a.pod}/${a.container}` < `${b.namespace}/${b.pod}/${b.container}` ? -1 : 1));

  if (issues.length > 0) throw new SnapshotDocumentError(issues);
  const canonical: CanonicalSnapshot = {
    format: SNAPSHOT_FORMAT,
    ...(doc.snapshot_id ? { snapshot_id: doc.snapshot_id } : {}),
    name: doc.name,
    description: doc.description === undefined || doc.description === null ? null : maskCredentialText(doc.description),
    recorded_at: recordedAt,
    source: { server: sanitizeServerUrl(doc.source.server), kubernetes_version: doc.source.kubernetes_version ?? null },
    ...(doc.log_tail_lines !== undefined ? { log_tail_lines: doc.log_tail_lines } : {}),
    objects: doc.objects,
    logs,
    warnings: doc.warnings.map(maskCredentialText),
  };
  return canonical;
}

export function countsOf(doc: CanonicalSnapshot): SnapshotCounts {
  const counts = Object.fromEntries(SNAPSHOT_RESOURCES.map((r) => [r, doc.objects[r].length])) as Record<SnapshotResource, number>;
  return { ...counts, logs: doc.logs.length };
}

/** The API server's host:port, without scheme or credentials. */
export function sourceHost(server: string): string {
  try {
    return new URL(server).host || server;
  } catch {
    return server;
  }
}

/** JSON with object keys sorted: the same content gives the same text, whatever order its keys were written in. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Json).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** SHA-256 of the document without its id: two imports of the same content are the same snapshot. */
export function contentHash(doc: CanonicalSnapshot): string {
  const { snapshot_id: _id, ...content } = doc;
  return createHash('sha256').update(stableJson(content)).digest('hex');
}
