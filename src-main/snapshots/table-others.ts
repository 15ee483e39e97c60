import { jsonNumber as n, jsonObject as o, jsonObjects as a, jsonString as s, type Json } from '../../shared/json-read';
import { ageAt, nodeRoles, nodeStatus } from '../../shared/kube-display';
import { col, NAME, AGE, meta, nameOf, ageOf, orNone, formatLabels, type Printer } from './table-format';

/** Table printers of services, endpoints, volumes, storage classes, ingresses, events, namespaces, nodes and config maps (see table.ts). */

function portString(ports: Json[]): string {
  return ports
    .map((p) => {
      const protocol = s(p.protocol) || 'TCP';
      return n(p.nodePort) !== 0 ? `${n(p.port)}:${n(p.nodePort)}/${protocol}` : `${n(p.port)}/${protocol}`;
    })
    .join(',');
}

function serviceExternalIp(svc: Json): string {
  const spec = o(svc.spec);
  const external = Array.isArray(spec.externalIPs) ? spec.externalIPs.map(String) : [];
  switch (s(spec.type) || 'ClusterIP') {
    case 'ClusterIP':
    case 'NodePort':
      return external.length > 0 ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress = a(o(o(svc.status).loadBalancer).ingress).map((i) => s(i.ip) || s(i.hostname)).filter(Boolean);
      const all = [...ingress, ...external];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return s(spec.externalName);
    default:
      return '<unknown>';
  }
}

export const services: Printer = {
  columns: [
    NAME,
    col('Type', 'type determines how the Service is exposed.'),
    col('Cluster-IP', 'clusterIP is the IP address of the service and is usually assigned randomly.'),
    col('External-IP', 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.'),
    col('Port(s)', 'The list of ports that are exposed by this service.'),
    AGE,
    col('Selector', 'Route service traffic to pods with label keys and values matching this selector.', { priority: 1 }),
  ],
  cells(svc, now) {
    const spec = o(svc.spec);
    const clusterIp = s(Array.isArray(spec.clusterIPs) ? spec.clusterIPs[0] : undefined) || s(spec.clusterIP);
    return [nameOf(svc), s(spec.type) || 'ClusterIP', orNone(clusterIp), serviceExternalIp(svc), orNone(portString(a(spec.ports))), ageOf(svc, now), formatLabels(spec.selector)];
  },
};

export const endpoints: Printer = {
  columns: [NAME, col('Endpoints', 'Endpoints of the service'), AGE],
  cells(ep, now) {
    const list: string[] = [];
    let total = 0;
    for (const subset of a(ep.subsets)) {
      const ports = a(subset.ports);
      for (const address of a(subset.addresses)) {
        if (ports.length === 0) {
          total++;
          if (list.length < 3) list.push(s(address.ip));
        }
        for (const port of ports) {
          total++;
          if (list.length < 3) list.push(`${s(address.ip)}:${n(port.port)}`);
        }
      }
    }
    const text = list.length === 0 ? '<none>' : total > list.length ? `${list.join(',')} + ${total - list.length} more...` : list.join(',');
    return [nameOf(ep), text, ageOf(ep, now)];
  },
};

/** Access modes as kubectl abbreviates them: RWO, ROX, RWX, RWOP. */
function accessModes(modes: unknown): string {
  const short: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };
  return (Array.isArray(modes) ? modes.map(String) : []).map((m) => short[m] ?? m).join(',');
}

export const persistentvolumeclaims: Printer = {
  columns: [
    NAME,
    col('Status', 'Phase represents the current phase of PersistentVolumeClaim.'),
    col('Volume', 'VolumeName is the binding reference to the PersistentVolume backing this claim.'),
    col('Capacity', 'capacity represents the actual resources of the underlying volume.'),
    col('Access Modes', 'accessModes contains the actual access modes the volume backing the PVC has.'),
    col('StorageClass', 'StorageClassName is the name of the StorageClass required by the claim.'),
    AGE,
    col('VolumeMode', 'volumeMode defines what type of volume is required by the claim.', { priority: 1 }),
  ],
  cells(pvc, now) {
    const spec = o(pvc.spec);
    const status = o(pvc.status);
    const bound = s(status.phase) === 'Bound';
    return [
      nameOf(pvc),
      s(status.phase) || 'Pending',
      s(spec.volumeName),
      bound ? s(o(status.capacity).storage) : '',
      bound ? accessModes(status.accessModes) : '',
      s(spec.storageClassName),
      ageOf(pvc, now),
      s(spec.volumeMode) || 'Filesystem',
    ];
  },
};

export const persistentvolumes: Printer = {
  columns: [
    NAME,
    col('Capacity', 'capacity is the description of the persistent volume\'s resources and capacity.'),
    col('Access Modes', 'accessModes contains all ways the volume can be mounted.'),
    col('Reclaim Policy', 'persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.'),
    col('Status', 'phase indicates if a volume is available, bound to a claim, or released by a claim.'),
    col('Claim', 'claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.'),
    col('StorageClass', 'storageClassName is the name of StorageClass to which this persistent volume belongs.'),
    col('Reason', 'reason is a brief CamelCase string that describes any failure.'),
    AGE,
    col('VolumeMode', 'volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.', { priority: 1 }),
  ],
  cells(pv, now) {
    const spec = o(pv.spec);
    const status = o(pv.status);
    const claim = o(spec.claimRef);
    return [
      nameOf(pv),
      s(o(spec.capacity).storage),
      accessModes(spec.accessModes),
      s(spec.persistentVolumeReclaimPolicy),
      s(status.phase),
      s(claim.name) ? `${s(claim.namespace)}/${s(claim.name)}` : '',
      s(spec.storageClassName),
      s(status.reason),
      ageOf(pv, now),
      s(spec.volumeMode) || 'Filesystem',
    ];
  },
};

export const storageclasses: Printer = {
  columns: [
    NAME,
    col('Provisioner', 'provisioner indicates the type of the provisioner.'),
    col('ReclaimPolicy', 'reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class.'),
    col('VolumeBindingMode', 'volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.'),
    col('AllowVolumeExpansion', 'allowVolumeExpansion shows whether the storage class allow volume expand.'),
    AGE,
  ],
  cells(sc, now) {
    const isDefault = s(o(meta(sc).annotations)['storageclass.kubernetes.io/is-default-class']) === 'true';
    return [
      isDefault ? `${nameOf(sc)} (default)` : nameOf(sc),
      s(sc.provisioner),
      s(sc.reclaimPolicy) || 'Delete',
      s(sc.volumeBindingMode) || 'Immediate',
      sc.allowVolumeExpansion === true,
      ageOf(sc, now),
    ];
  },
};

export const ingresses: Printer = {
  columns: [
    NAME,
    col('Class', 'ingressClassName is the name of an IngressClass cluster resource.'),
    col('Hosts', 'Hosts that incoming requests are matched against before the ingress rule'),
    col('Address', 'Address is a list containing ingress points for the load-balancer'),
    col('Ports', 'Ports of TLS configurations that open'),
    AGE,
  ],
  cells(ing, now) {
    const spec = o(ing.spec);
    const hosts = a(spec.rules).map((r) => s(r.host)).filter(Boolean);
    const address = a(o(o(ing.status).loadBalancer).ingress).map((i) => s(i.ip) || s(i.hostname)).filter(Boolean);
    return [nameOf(ing), s(spec.ingressClassName) || '<none>', hosts.length > 0 ? hosts.join(',') : '*', address.join(','), a(spec.tls).length > 0 ? '80, 443' : '80', ageOf(ing, now)];
  },
};

/** firstNonEmpty(source.component, reportingController) + ", " + host/instance. */
function eventSource(event: Json): string {
  const source = o(event.source);
  const component = s(source.component) || s(event.reportingComponent) || s(event.reportingController);
  const instance = s(source.host) || s(event.reportingInstance);
  return instance ? `${component}, ${instance}` : component;
}

export const events: Printer = {
  columns: [
    col('Last Seen', 'The time at which the most recent occurrence of this event was recorded.'),
    col('Type', 'Type of this event (Normal, Warning), new types could be added in the future'),
    col('Reason', 'This should be a short, machine understandable string that gives the reason for the transition into the object\'s current status.'),
    col('Object', 'The object that this event is about.'),
    col('Subobject', 'If the object reference is to a container within a pod, this specifies the container.', { priority: 1 }),
    col('Source', 'The component reporting this event. Should be a short machine understandable string.', { priority: 1 }),
    col('Message', 'A human-readable description of the status of this operation.'),
    col('First Seen', 'The time at which the event was first recorded.', { priority: 1 }),
    col('Count', 'The number of times this event has occurred.', { priority: 1 }),
    col('Name', 'Name must be unique within a namespace.', { priority: 1, format: 'name' }),
  ],
  cells(event, now) {
    const hasFirst = typeof event.firstTimestamp === 'string' && event.firstTimestamp !== '';
    const first = hasFirst ? ageAt(event.firstTimestamp, now) : ageAt(event.eventTime, now);
    let last = typeof event.lastTimestamp === 'string' && event.lastTimestamp !== '' ? ageAt(event.lastTimestamp, now) : first;
    let count = n(event.count);
    const series = event.series === undefined || event.series === null ? null : o(event.series);
    if (series) {
      last = ageAt(series.lastObservedTime, now);
      count = n(series.count);
    } else if (count === 0) {
      count = 1;
    }
    const involved = o(event.involvedObject);
    const kind = s(involved.kind).toLowerCase();
    const target = s(involved.name) ? `${kind}/${s(involved.name)}` : kind;
    return [last, s(event.type), s(event.reason), target, s(involved.fieldPath), eventSource(event), s(event.message).trim(), first, count, nameOf(event)];
  },
};

export const namespaces: Printer = {
  columns: [NAME, col('Status', 'The status of the namespace'), AGE],
  cells: (ns, now) => [nameOf(ns), s(o(ns.status).phase) || 'Active', ageOf(ns, now)],
};

function nodeAddress(node: Json, type: string): string {
  return s(a(o(node.status).addresses).find((address) => s(address.type) === type)?.address) || '<none>';
}

export const nodes: Printer = {
  columns: [
    NAME,
    col('Status', 'The status of the node'),
    col('Roles', 'The roles of the node'),
    AGE,
    col('Version', 'Kubelet Version reported by the node.'),
    col('Internal-IP', 'List of addresses reachable to the node. Queried from cloud provider, if available.', { priority: 1 }),
    col('External-IP', 'List of addresses reachable to the node. Queried from cloud provider, if available.', { priority: 1 }),
    col('OS-Image', 'OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).', { priority: 1 }),
    col('Kernel-Version', 'Kernel Version reported by the node from \'uname -r\' (e.g. 3.16.0-0.bpo.4-amd64).', { priority: 1 }),
    col('Container-Runtime', 'ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).', { priority: 1 }),
  ],
  cells(node, now) {
    const info = o(o(node.status).nodeInfo);
    return [
      nameOf(node),
      nodeStatus(node),
      nodeRoles(node),
      ageOf(node, now),
      s(info.kubeletVersion),
      nodeAddress(node, 'InternalIP'),
      nodeAddress(node, 'ExternalIP'),
      s(info.osImage) || '<unknown>',
      s(info.kernelVersion) || '<unknown>',
      s(info.containerRuntimeVersion) || '<unknown>',
    ];
  },
};

export const configmaps: Printer = {
  columns: [NAME, col('Data', 'Data contains the configuration data.', { type: 'integer' }), AGE],
  cells: (cm, now) => [nameOf(cm), Object.keys(o(cm.data)).length + Object.keys(o(cm.binaryData)).length, ageOf(cm, now)],
};
