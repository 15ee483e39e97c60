import type { Cluster, Json, KubeObject } from './cluster';
import { microStamp, stamp } from './clock';

/**
 * The smaller objects: namespaces, config maps, storage (classes, claims, volumes), resource
 * quotas, roles and role bindings, and events.
 */

export function namespace(c: Cluster, name: string, created: string, labels: Record<string, string> = {}): KubeObject {
  c.add('configmaps', {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: c.meta('ConfigMap', 'kube-root-ca.crt', name, created),
    data: { 'ca.crt': '***' },
  });
  return c.add('namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: c.meta('Namespace', name, null, created, { labels: { 'kubernetes.io/metadata.name': name, ...labels } }),
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  });
}

/** A config map: its keys only (a snapshot never holds the values). */
export function configMap(c: Cluster, namespace: string, name: string, created: string, keys: string[]): KubeObject {
  return c.add('configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: c.meta('ConfigMap', name, namespace, created), data: Object.fromEntries(keys.map((k) => [k, '***'])) });
}

export function storageClass(c: Cluster, o: { name: string; created: string; provisioner?: string; isDefault?: boolean; binding?: 'WaitForFirstConsumer' | 'Immediate'; parameters?: Record<string, string> }): KubeObject {
  return c.add('storageclasses', {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: c.meta('StorageClass', o.name, null, o.created, o.isDefault ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}),
    provisioner: o.provisioner ?? 'ebs.csi.aws.com',
    parameters: o.parameters ?? { type: 'gp3', encrypted: 'true' },
    reclaimPolicy: 'Delete',
    volumeBindingMode: o.binding ?? 'WaitForFirstConsumer',
    allowVolumeExpansion: true,
  });
}

export function claim(c: Cluster, o: { namespace: string; name: string; created: string; storageClass: string; size: string; volume?: string; labels?: Record<string, string>; accessModes?: string[] }): KubeObject {
  const modes = o.accessModes ?? ['ReadWriteOnce'];
  return c.add('persistentvolumeclaims', {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: c.meta('PersistentVolumeClaim', o.name, o.namespace, o.created, {
      ...(o.labels ? { labels: o.labels } : {}),
      ...(o.volume ? { annotations: { 'pv.kubernetes.io/bind-completed': 'yes', 'pv.kubernetes.io/bound-by-controller': 'yes', 'volume.beta.kubernetes.io/storage-provisioner': 'ebs.csi.aws.com', 'volume.kubernetes.io/storage-provisioner': 'ebs.csi.aws.com' } } : {}),
      finalizers: ['kubernetes.io/pvc-protection'],
    }),
    spec: { accessModes: modes, resources: { requests: { storage: o.size } }, storageClassName: o.storageClass, volumeMode: 'Filesystem', ...(o.volume ? { volumeName: o.volume } : {}) },
    status: o.volume ? { phase: 'Bound', accessModes: modes, capacity: { storage: o.size } } : { phase: 'Pending' },
  });
}

/** An EBS volume bound to a claim, pinned to its zone. */
export function volume(c: Cluster, o: { name: string; created: string; claim: KubeObject; zone: string; size: string; storageClass: string }): KubeObject {
  return c.add('persistentvolumes', {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: c.meta('PersistentVolume', o.name, null, o.created, { annotations: { 'pv.kubernetes.io/provisioned-by': 'ebs.csi.aws.com', 'volume.kubernetes.io/provisioner-deletion-secret-name': '', 'volume.kubernetes.io/provisioner-deletion-secret-namespace': '' }, finalizers: ['external-provisioner.volume.kubernetes.io/finalizer', 'kubernetes.io/pv-protection'] }),
    spec: {
      accessModes: ['ReadWriteOnce'],
      capacity: { storage: o.size },
      claimRef: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', name: o.claim.metadata.name, namespace: o.claim.metadata.namespace, uid: o.claim.metadata.uid },
      csi: { driver: 'ebs.csi.aws.com', fsType: 'ext4', volumeHandle: `vol-0${c.hex(`vol/${o.name}`, 16)}` },
      nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: [o.zone] }] }] } },
      persistentVolumeReclaimPolicy: 'Delete',
      storageClassName: o.storageClass,
      volumeMode: 'Filesystem',
    },
    status: { phase: 'Bound', lastPhaseTransitionTime: o.created },
  });
}

export function resourceQuota(c: Cluster, o: { namespace: string; name: string; created: string; hard: Record<string, string>; used: Record<string, string> }): KubeObject {
  return c.add('resourcequotas', { apiVersion: 'v1', kind: 'ResourceQuota', metadata: c.meta('ResourceQuota', o.name, o.namespace, o.created), spec: { hard: o.hard }, status: { hard: o.hard, used: o.used } });
}

export function role(c: Cluster, o: { namespace: string; name: string; created: string; rules: Json[] }): KubeObject {
  return c.add('roles', { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: c.meta('Role', o.name, o.namespace, o.created), rules: o.rules });
}

export function roleBinding(c: Cluster, o: { namespace: string; name: string; created: string; role: string; roleKind?: 'Role' | 'ClusterRole'; subjects: Json[] }): KubeObject {
  return c.add('rolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: c.meta('RoleBinding', o.name, o.namespace, o.created),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: o.roleKind ?? 'Role', name: o.role },
    subjects: o.subjects,
  });
}

export type EventOptions = {
  /** The object it is about. */
  on: KubeObject;
  reason: string;
  message: string;
  type?: 'Normal' | 'Warning';
  /** First seen (ago); last seen (ago, default = first); how many times (default 1). */
  first: string;
  last?: string;
  count?: number;
  component: string;
  host?: string;
  fieldPath?: string;
  /** Written through events.k8s.io/v1 (the scheduler): eventTime only, no first/last stamps, no count. */
  newApi?: boolean;
};

export function event(c: Cluster, o: EventOptions): KubeObject {
  const ns = o.on.metadata.namespace ?? 'default';
  const kind = String(o.on.kind);
  const first = c.clock.ago(o.first);
  const last = o.last ? c.clock.ago(o.last) : first;
  const seed = `${kind}/${ns}/${o.on.metadata.name}/${o.reason}/${o.first}/${o.message.slice(0, 40)}`;
  const involved = {
    kind,
    namespace: o.on.metadata.namespace,
    name: o.on.metadata.name,
    uid: o.on.metadata.uid,
    apiVersion: o.on.apiVersion,
    resourceVersion: o.on.metadata.resourceVersion,
    ...(o.fieldPath ? { fieldPath: o.fieldPath } : {}),
  };
  const common = { involvedObject: involved, reason: o.reason, message: o.message, type: o.type ?? 'Normal' };
  if (o.newApi) {
    return c.add('events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: c.meta('Event', `${o.on.metadata.name}.${c.hex(seed, 16)}`, ns, stamp(first)),
      ...common,
      source: {},
      firstTimestamp: null,
      lastTimestamp: null,
      eventTime: microStamp(first),
      reportingComponent: o.component,
      reportingInstance: `${o.component}-${c.hex(`inst/${o.component}`, 8)}`,
      ...(o.count && o.count > 1 ? { series: { count: o.count, lastObservedTime: microStamp(last) } } : {}),
      action: 'Scheduling',
    });
  }
  return c.add('events', {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: c.meta('Event', `${o.on.metadata.name}.${c.hex(seed, 16)}`, ns, stamp(first)),
    ...common,
    source: { component: o.component, ...(o.host ? { host: o.host } : {}) },
    firstTimestamp: stamp(first),
    lastTimestamp: stamp(last),
    count: o.count ?? 1,
    eventTime: null,
    reportingComponent: o.component,
    reportingInstance: o.host ?? '',
  });
}
