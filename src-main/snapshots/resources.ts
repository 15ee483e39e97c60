import type { SnapshotResource } from '../../shared/snapshots';

/**
 * The API resources a snapshot holds and the replay serves: where each lives in the Kubernetes
 * API (group, version, plural), its kind, scope and kubectl short names. The recorder lists them
 * at these paths; discovery (`/api/v1`, `/apis/<group>/<version>`) announces them from here.
 */
export type ResourceInfo = {
  readonly resource: SnapshotResource;
  /** '' for the core group (/api/v1). */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly singular: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories?: readonly string[];
};

export const RESOURCES: readonly ResourceInfo[] = [
  { resource: 'namespaces', group: '', version: 'v1', kind: 'Namespace', singular: 'namespace', namespaced: false, shortNames: ['ns'] },
  { resource: 'nodes', group: '', version: 'v1', kind: 'Node', singular: 'node', namespaced: false, shortNames: ['no'] },
  { resource: 'pods', group: '', version: 'v1', kind: 'Pod', singular: 'pod', namespaced: true, shortNames: ['po'], categories: ['all'] },
  { resource: 'deployments', group: 'apps', version: 'v1', kind: 'Deployment', singular: 'deployment', namespaced: true, shortNames: ['deploy'], categories: ['all'] },
  { resource: 'replicasets', group: 'apps', version: 'v1', kind: 'ReplicaSet', singular: 'replicaset', namespaced: true, shortNames: ['rs'], categories: ['all'] },
  { resource: 'statefulsets', group: 'apps', version: 'v1', kind: 'StatefulSet', singular: 'statefulset', namespaced: true, shortNames: ['sts'], categories: ['all'] },
  { resource: 'daemonsets', group: 'apps', version: 'v1', kind: 'DaemonSet', singular: 'daemonset', namespaced: true, shortNames: ['ds'], categories: ['all'] },
  { resource: 'jobs', group: 'batch', version: 'v1', kind: 'Job', singular: 'job', namespaced: true, shortNames: [], categories: ['all'] },
  { resource: 'cronjobs', group: 'batch', version: 'v1', kind: 'CronJob', singular: 'cronjob', namespaced: true, shortNames: ['cj'], categories: ['all'] },
  { resource: 'services', group: '', version: 'v1', kind: 'Service', singular: 'service', namespaced: true, shortNames: ['svc'], categories: ['all'] },
  { resource: 'endpoints', group: '', version: 'v1', kind: 'Endpoints', singular: 'endpoints', namespaced: true, shortNames: ['ep'] },
  { resource: 'persistentvolumeclaims', group: '', version: 'v1', kind: 'PersistentVolumeClaim', singular: 'persistentvolumeclaim', namespaced: true, shortNames: ['pvc'] },
  { resource: 'persistentvolumes', group: '', version: 'v1', kind: 'PersistentVolume', singular: 'persistentvolume', namespaced: false, shortNames: ['pv'] },
  { resource: 'storageclasses', group: 'storage.k8s.io', version: 'v1', kind: 'StorageClass', singular: 'storageclass', namespaced: false, shortNames: ['sc'] },
  { resource: 'ingresses', group: 'networking.k8s.io', version: 'v1', kind: 'Ingress', singular: 'ingress', namespaced: true, shortNames: ['ing'] },
  { resource: 'networkpolicies', group: 'networking.k8s.io', version: 'v1', kind: 'NetworkPolicy', singular: 'networkpolicy', namespaced: true, shortNames: ['netpol'] },
  { resource: 'events', group: '', version: 'v1', kind: 'Event', singular: 'event', namespaced: true, shortNames: ['ev'] },
  { resource: 'configmaps', group: '', version: 'v1', kind: 'ConfigMap', singular: 'configmap', namespaced: true, shortNames: ['cm'] },
  { resource: 'resourcequotas', group: '', version: 'v1', kind: 'ResourceQuota', singular: 'resourcequota', namespaced: true, shortNames: ['quota'] },
  { resource: 'roles', group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role', singular: 'role', namespaced: true, shortNames: [] },
  { resource: 'rolebindings', group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'RoleBinding', singular: 'rolebinding', namespaced: true, shortNames: [] },
];

export const RESOURCE_BY_NAME: ReadonlyMap<SnapshotResource, ResourceInfo> = new Map(RESOURCES.map((r) => [r.resource, r]));

export function resourceInfo(resource: SnapshotResource): ResourceInfo {
  const info = RESOURCE_BY_NAME.get(resource);
  if (!info) throw new Error(`unknown snapshot resource ${resource}`);
  return info;
}

/** `v1` or `apps/v1`: the apiVersion of the resource's objects. */
export function apiVersionOf(info: ResourceInfo): string {
  return info.group ? `${info.group}/${info.version}` : info.version;
}

/** `/api/v1` or `/apis/apps/v1`. */
export function groupVersionPath(info: Pick<ResourceInfo, 'group' | 'version'>): string {
  return info.group ? `/apis/${info.group}/${info.version}` : `/api/${info.version}`;
}

/** The list path of a resource, cluster-wide or in one namespace. */
export function listPath(info: ResourceInfo, namespace?: string): string {
  const base = groupVersionPath(info);
  return namespace && info.namespaced ? `${base}/namespaces/${encodeURIComponent(namespace)}/${info.resource}` : `${base}/${info.resource}`;
}

/** The group/versions the replay serves, in discovery order (core first). */
export function groupVersions(): { group: string; version: string; resources: ResourceInfo[] }[] {
  const out: { group: string; version: string; resources: ResourceInfo[] }[] = [];
  for (const info of RESOURCES) {
    let entry = out.find((g) => g.group === info.group && g.version === info.version);
    if (!entry) out.push((entry = { group: info.group, version: info.version, resources: [] }));
    entry.resources.push(info);
  }
  return out;
}
