import type { SnapshotResource } from '../../../shared/snapshots';
import { SNAPSHOT_RESOURCES } from '../../../shared/snapshots';
import type { CanonicalSnapshot } from '../document';
import { resourceInfo } from '../resources';
import { PRINTERS, tableRow, type IncludeObject } from '../table';
import { SelectorError, type FieldRequirement } from '../selectors';

/**
 * One snapshot prepared for serving: per resource, its objects with their JSON bytes already written
 * (a list of 1,000 pods is assembled from cached strings, not serialised per request), their
 * Table rows built on first use, and the container logs as text. Immutable once built.
 */

type Json = Record<string, unknown>;

export type ReplayEntry = {
  readonly object: Json;
  readonly namespace: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>> | undefined;
  /** The UTF-8 bytes of JSON.stringify(object), written once: lists are assembled from these. */
  readonly bytes: Buffer;
};

export type ContainerLogText = { current: string | null; previous: string | null };

/** Fields each resource can be selected by, beyond metadata.name and metadata.namespace (as the API server allows). */
const SELECTABLE_FIELDS: Partial<Record<SnapshotResource, readonly string[]>> = {
  pods: ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.nominatedNodeName'],
  events: [
    'involvedObject.kind',
    'involvedObject.namespace',
    'involvedObject.name',
    'involvedObject.uid',
    'involvedObject.apiVersion',
    'involvedObject.resourceVersion',
    'involvedObject.fieldPath',
    'reason',
    'reportingComponent',
    'source',
    'type',
  ],
  nodes: ['spec.unschedulable'],
  namespaces: ['status.phase'],
  replicasets: ['status.replicas'],
  jobs: ['status.successful'],
};

/** Where a selectable field is read when its name is not its path. */
const FIELD_PATHS: Readonly<Record<string, string>> = { source: 'source.component', 'status.successful': 'status.succeeded' };
/** Booleans that read as "false" when absent (the API server's field sets always carry them). */
const BOOLEAN_FIELDS = new Set(['spec.hostNetwork', 'spec.unschedulable']);

function readPath(object: Json, dotted: string): unknown {
  let cur: unknown = object;
  for (const part of dotted.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Json)[part];
  }
  return cur;
}

function joinLines(lines: string[] | null): string | null {
  if (lines === null) return null;
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

export class ReplayIndex {
  /** The replay's clock: ages are counted from the moment the snapshot was recorded. */
  readonly now: number;
  readonly kubernetesVersion: string;
  readonly name: string;
  private readonly byResource = new Map<SnapshotResource, ReplayEntry[]>();
  private readonly byKey = new Map<string, ReplayEntry>();
  private readonly rowCache = new WeakMap<ReplayEntry, Buffer>();
  private readonly columnsJson = new Map<SnapshotResource, string>();
  private readonly logs = new Map<string, ContainerLogText>();

  constructor(readonly snapshot: CanonicalSnapshot) {
    this.now = Date.parse(snapshot.recorded_at);
    this.kubernetesVersion = snapshot.source.kubernetes_version ?? 'v1.31.0';
    this.name = snapshot.name;
    for (const resource of SNAPSHOT_RESOURCES) {
      const entries = (snapshot.objects[resource] as Json[]).map((object): ReplayEntry => {
        const metadata = object.metadata as Json;
        return {
          object,
          namespace: typeof metadata.namespace === 'string' ? metadata.namespace : '',
          name: String(metadata.name),
          labels: metadata.labels as Record<string, string> | undefined,
          bytes: Buffer.from(JSON.stringify(object)),
        };
      });
      this.byResource.set(resource, entries);
      for (const entry of entries) this.byKey.set(`${resource}/${entry.namespace}/${entry.name}`, entry);
    }
    for (const log of snapshot.logs) {
      this.logs.set(`${log.namespace}/${log.pod}/${log.container}`, { current: joinLines(log.current), previous: joinLines(log.previous) });
    }
  }

  entries(resource: SnapshotResource): readonly ReplayEntry[] {
    return this.byResource.get(resource) ?? [];
  }

  find(resource: SnapshotResource, namespace: string, name: string): ReplayEntry | undefined {
    return this.byKey.get(`${resource}/${namespace}/${name}`);
  }

  log(namespace: string, pod: string, container: string): ContainerLogText | undefined {
    return this.logs.get(`${namespace}/${pod}/${container}`);
  }

  /** The UTF-8 JSON of an entry's Table row; the default form (metadata, meta.k8s.io/v1) is built once. */
  rowBytes(resource: SnapshotResource, entry: ReplayEntry, include: IncludeObject, tableVersion: 'v1' | 'v1beta1'): Buffer {
    const cacheable = include === 'Metadata' && tableVersion === 'v1';
    if (cacheable) {
      const cached = this.rowCache.get(entry);
      if (cached !== undefined) return cached;
    }
    const bytes = Buffer.from(JSON.stringify(tableRow(resource, entry.object, this.now, include, tableVersion)));
    if (cacheable) this.rowCache.set(entry, bytes);
    return bytes;
  }

  columnDefinitionsJson(resource: SnapshotResource): string {
    let json = this.columnsJson.get(resource);
    if (json === undefined) {
      json = JSON.stringify(PRINTERS[resource].columns);
      this.columnsJson.set(resource, json);
    }
    return json;
  }

  /**
   * A reader of the fields a field selector may name for this resource. An unsupported field is
   * a SelectorError, as the API server answers "field label not supported".
   */
  fieldReader(resource: SnapshotResource, requirements: readonly FieldRequirement[]): (entry: ReplayEntry, field: string) => string {
    const allowed = new Set(['metadata.name', 'metadata.namespace', ...(SELECTABLE_FIELDS[resource] ?? [])]);
    for (const r of requirements) {
      if (!allowed.has(r.field)) throw new SelectorError(`field label not supported: ${r.field}`);
    }
    return (entry, field) => {
      if (field === 'metadata.name') return entry.name;
      if (field === 'metadata.namespace') return entry.namespace;
      const value = readPath(entry.object, FIELD_PATHS[field] ?? field);
      if (value === undefined || value === null) return BOOLEAN_FIELDS.has(field) ? 'false' : '';
      return typeof value === 'object' ? '' : String(value);
    };
  }

  /** Whether a resource lives in namespaces (its objects carry metadata.namespace). */
  static namespaced(resource: SnapshotResource): boolean {
    return resourceInfo(resource).namespaced;
  }
}
