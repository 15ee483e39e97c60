import type { SnapshotResource } from '../../shared/snapshots';
import { jsonObject as o, type Json } from '../../shared/json-read';
import { type Printer } from './table-format';
import { cronjobs, daemonsets, deployments, jobs, pods, replicasets, statefulsets } from './table-workloads';
import { configmaps, endpoints, events, ingresses, namespaces, nodes, persistentvolumeclaims, persistentvolumes, services, storageclasses } from './table-others';

export type { TableCell, TableColumn } from './table-format';


/**
 * The server-side Table form of `kubectl get` (Accept: application/json;as=Table;v=v1;g=meta.k8s.io):
 * the columns and cells Kubernetes' own printers give for each resource
 * (pkg/printers/internalversion/printers.go), with every age counted from `now` — for a replayed
 * snapshot, the moment it was recorded. The server always sends the wide columns too, with
 * priority 1; kubectl shows them only with `-o wide`. The fake Kubernetes API of the tests uses
 * this module as well, so both answer kubectl alike.
 */


export const PRINTERS: Readonly<Record<SnapshotResource, Printer>> = {
  namespaces,
  nodes,
  pods,
  deployments,
  replicasets,
  statefulsets,
  daemonsets,
  jobs,
  cronjobs,
  services,
  endpoints,
  persistentvolumeclaims,
  persistentvolumes,
  storageclasses,
  ingresses,
  events,
  configmaps,
};

/** The row's `object` for `includeObject=Metadata` (the default): the object's metadata only. */
export function partialObjectMetadata(object: Json, tableVersion: 'v1' | 'v1beta1' = 'v1'): Json {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${tableVersion}`, metadata: o(object.metadata) };
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function tableRow(resource: SnapshotResource, object: Json, now: number, include: IncludeObject = 'Metadata', tableVersion: 'v1' | 'v1beta1' = 'v1'): Json {
  const cells = PRINTERS[resource].cells(object, now);
  if (include === 'None') return { cells };
  return { cells, object: include === 'Object' ? object : partialObjectMetadata(object, tableVersion) };
}

/** A whole Table answer (the replay assembles its lists from cached rows instead; the fake uses this). */
export function toTable(
  resource: SnapshotResource,
  objects: readonly Json[],
  now: number,
  options: { include?: IncludeObject; resourceVersion?: string; continueToken?: string; tableVersion?: 'v1' | 'v1beta1' } = {},
): Json {
  const version = options.tableVersion ?? 'v1';
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${version}`,
    metadata: { resourceVersion: options.resourceVersion ?? '1', ...(options.continueToken ? { continue: options.continueToken } : {}) },
    columnDefinitions: PRINTERS[resource].columns,
    rows: objects.map((object) => tableRow(resource, object, now, options.include, version)),
  };
}

/** What the Accept header asks for: a Table (and which version), metadata only, or plain JSON. */
export type AcceptedForm = { form: 'table'; version: 'v1' | 'v1beta1' } | { form: 'metadata'; version: 'v1' | 'v1beta1' } | { form: 'json' };

/**
 * Reads the Accept header as the API server negotiates it: the first media type it can serve
 * wins (kubectl sends Table v1, then Table v1beta1, then plain JSON).
 */
export function acceptedForm(accept: string | undefined): AcceptedForm {
  if (!accept) return { form: 'json' };
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((p) => p.trim());
    const values = new Map(params.map((p) => p.split('=').map((x) => x.trim()) as [string, string]));
    if (type !== 'application/json' && type !== '*/*' && type !== 'application/*') continue;
    const as = values.get('as');
    if (!as) return { form: 'json' };
    if (values.get('g') !== 'meta.k8s.io') continue;
    const version = values.get('v');
    if (version !== 'v1' && version !== 'v1beta1') continue;
    if (as === 'Table') return { form: 'table', version };
    if (as === 'PartialObjectMetadataList' || as === 'PartialObjectMetadata') return { form: 'metadata', version };
  }
  return { form: 'json' };
}
