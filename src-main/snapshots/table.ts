import type { SnapshotResource } from '../../shared/snapshots';
import { jsonNumber as n, jsonObject as o, jsonObjects as a, jsonString as s, type Json } from '../../shared/json-read';
import { ageAt, humanDuration, nodeRoles, nodeStatus, podDisplay, restartsText } from '../../shared/kube-display';

/**
 * The server-side Table form of `kubectl get` (Accept: application/json;as=Table;v=v1;g=meta.k8s.io):
 * the columns and cells Kubernetes' own printers give for each resource
 * (pkg/printers/internalversion/printers.go), with every age counted from `now` — for a replayed
 * snapshot, the moment it was recorded. The server always sends the wide columns too, with
 * priority 1; kubectl shows them only with `-o wide`. The fake Kubernetes API of the tests uses
 * this module as well, so both answer kubectl alike.
 */

export type TableColumn = { name: string; type: 'string' | 'integer' | 'number' | 'boolean' | 'date'; format: string; description: string; priority: number };
export type TableCell = string | number | boolean;

type Printer = { columns: TableColumn[]; cells(object: Json, now: number): TableCell[] };

function col(name: string, description: string, options: { type?: TableColumn['type']; format?: string; priority?: number } = {}): TableColumn {
  return { name, type: options.type ?? 'string', format: options.format ?? '', description, priority: options.priority ?? 0 };
}

const NAME = col('Name', 'Name must be unique within a namespace.', { format: 'name' });
const AGE = col('Age', 'CreationTimestamp is a timestamp representing the server time when this object was created.');

function meta(object: Json): Json {
  return o(object.metadata);
}
function nameOf(object: Json): string {
  return s(meta(object).name);
}
function ageOf(object: Json, now: number): string {
  return ageAt(meta(object).creationTimestamp, now);
}
function orNone(text: string): string {
  return text === '' ? '<none>' : text;
}

/** labels.FormatLabels: "k=v,k2=v2" sorted by key, or "<none>". */
function formatLabels(labels: unknown): string {
  const entries = Object.entries(o(labels)).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  return entries.length === 0 ? '<none>' : entries.map(([k, v]) => `${k}=${s(v)}`).join(',');
}

/** metav1.LabelSelectorAsSelector(...).String(): matchLabels and matchExpressions, sorted by key. */
function formatLabelSelector(selector: unknown): string {
  const sel = o(selector);
  const parts: { key: string; text: string }[] = [];
  for (const [k, v] of Object.entries(o(sel.matchLabels))) parts.push({ key: k, text: `${k}=${s(v)}` });
  for (const e of a(sel.matchExpressions)) {
    const key = s(e.key);
    const values = (Array.isArray(e.values) ? e.values.map(String) : []).sort();
    switch (s(e.operator)) {
      case 'In':
        parts.push({ key, text: `${key} in (${values.join(',')})` });
        break;
      case 'NotIn':
        parts.push({ key, text: `${key} notin (${values.join(',')})` });
        break;
      case 'Exists':
        parts.push({ key, text: key });
        break;
      case 'DoesNotExist':
        parts.push({ key, text: `!${key}` });
        break;
      default:
        break;
    }
  }
  // An empty (or absent) selector prints as nothing, as labels.Everything()/Nothing() do.
  if (parts.length === 0) return '';
  return parts
    .sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0))
    .map((p) => p.text)
    .join(',');
}

/** layoutContainerCells: names and images joined with commas. */
function containerCells(podSpec: unknown): [string, string] {
  const containers = a(o(podSpec).containers);
  return [containers.map((c) => s(c.name)).join(','), containers.map((c) => s(c.image)).join(',')];
}

function templateSpec(object: Json): unknown {
  return o(o(o(object.spec).template).spec);
}

const pods: Printer = {
  columns: [
    NAME,
    col('Ready', 'The aggregate readiness state of this pod for accepting traffic.'),
    col('Status', 'The aggregate status of the containers in this pod.'),
    col('Restarts', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
    AGE,
    col('IP', 'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', { priority: 1 }),
    col('Node', 'NodeName is a request to schedule this pod onto a specific node.', { priority: 1 }),
    col('Nominated Node', 'nominatedNodeName is set only when this pod preempts other pods on the node.', { priority: 1 }),
    col('Readiness Gates', 'If specified, all readiness gates will be evaluated for pod readiness.', { priority: 1 }),
  ],
  cells(pod, now) {
    const display = podDisplay(pod);
    const spec = o(pod.spec);
    const status = o(pod.status);
    const podIp = s(a(status.podIPs)[0]?.ip) || s(status.podIP);
    const gates = a(spec.readinessGates);
    let readinessGates = '<none>';
    if (gates.length > 0) {
      const conditions = a(status.conditions);
      const trueGates = gates.filter((g) => conditions.find((c) => s(c.type) === s(g.conditionType))?.status === 'True').length;
      readinessGates = `${trueGates}/${gates.length}`;
    }
    return [
      nameOf(pod),
      display.ready,
      display.status,
      restartsText(display, now),
      ageOf(pod, now),
      orNone(podIp),
      orNone(s(spec.nodeName)),
      orNone(s(status.nominatedNodeName)),
      readinessGates,
    ];
  },
};

const WIDE_WORKLOAD = [
  col('Containers', 'Names of each container in the template.', { priority: 1 }),
  col('Images', 'Images referenced by each container in the template.', { priority: 1 }),
  col('Selector', 'Label selector for pods.', { priority: 1 }),
];

const deployments: Printer = {
  columns: [
    NAME,
    col('Ready', 'Number of the pod with ready state'),
    col('Up-to-date', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.', { type: 'integer' }),
    col('Available', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.', { type: 'integer' }),
    AGE,
    ...WIDE_WORKLOAD,
  ],
  cells(d, now) {
    const spec = o(d.spec);
    const status = o(d.status);
    const desired = spec.replicas === undefined ? 1 : n(spec.replicas);
    const [containers, images] = containerCells(templateSpec(d));
    return [nameOf(d), `${n(status.readyReplicas)}/${desired}`, n(status.updatedReplicas), n(status.availableReplicas), ageOf(d, now), containers, images, formatLabelSelector(spec.selector)];
  },
};

const replicasets: Printer = {
  columns: [
    NAME,
    col('Desired', 'Number of desired pods.', { type: 'integer' }),
    col('Current', 'Replicas is the most recently observed number of replicas.', { type: 'integer' }),
    col('Ready', 'The number of ready replicas for this replica set.', { type: 'integer' }),
    AGE,
    ...WIDE_WORKLOAD,
  ],
  cells(rs, now) {
    const spec = o(rs.spec);
    const status = o(rs.status);
    const [containers, images] = containerCells(templateSpec(rs));
    return [nameOf(rs), spec.replicas === undefined ? 1 : n(spec.replicas), n(status.replicas), n(status.readyReplicas), ageOf(rs, now), containers, images, formatLabelSelector(spec.selector)];
  },
};

const statefulsets: Printer = {
  columns: [
    NAME,
    col('Ready', 'Number of the pod with ready state'),
    AGE,
    col('Containers', 'Names of each container in the template.', { priority: 1 }),
    col('Images', 'Images referenced by each container in the template.', { priority: 1 }),
  ],
  cells(sts, now) {
    const spec = o(sts.spec);
    const [containers, images] = containerCells(templateSpec(sts));
    return [nameOf(sts), `${n(o(sts.status).readyReplicas)}/${spec.replicas === undefined ? 1 : n(spec.replicas)}`, ageOf(sts, now), containers, images];
  },
};

const daemonsets: Printer = {
  columns: [
    NAME,
    col('Desired', 'The total number of nodes that should be running the daemon pod.', { type: 'integer' }),
    col('Current', 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.', { type: 'integer' }),
    col('Ready', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.', { type: 'integer' }),
    col('Up-to-date', 'The total number of nodes that are running updated daemon pod', { type: 'integer' }),
    col('Available', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.', { type: 'integer' }),
    col('Node Selector', 'NodeSelector is a selector which must be true for the pod to fit on a node.'),
    AGE,
    ...WIDE_WORKLOAD,
  ],
  cells(ds, now) {
    const status = o(ds.status);
    const [containers, images] = containerCells(templateSpec(ds));
    return [
      nameOf(ds),
      n(status.desiredNumberScheduled),
      n(status.currentNumberScheduled),
      n(status.numberReady),
      n(status.updatedNumberScheduled),
      n(status.numberAvailable),
      formatLabels(o(templateSpec(ds)).nodeSelector),
      ageOf(ds, now),
      containers,
      images,
      formatLabelSelector(o(ds.spec).selector),
    ];
  },
};

/** The Job's STATUS column (Kubernetes 1.30+): the terminal or suspended condition, else Running. */
function jobStatus(job: Json): string {
  const conditions = a(o(job.status).conditions).filter((c) => s(c.status) === 'True');
  const has = (type: string) => conditions.some((c) => s(c.type) === type);
  if (has('Complete')) return 'Complete';
  if (has('Failed')) return 'Failed';
  if (has('FailureTarget')) return 'FailureTarget';
  if (has('SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  if (has('Suspended')) return 'Suspended';
  return 'Running';
}

const jobs: Printer = {
  columns: [
    NAME,
    col('Status', 'Status of the job.'),
    col('Completions', 'The desired number of successfully finished pods the job should be run with.'),
    col('Duration', 'Time required to complete the job.'),
    AGE,
    ...WIDE_WORKLOAD,
  ],
  cells(job, now) {
    const spec = o(job.spec);
    const status = o(job.status);
    const succeeded = n(status.succeeded);
    let completions: string;
    if (spec.completions !== undefined && spec.completions !== null) completions = `${succeeded}/${n(spec.completions)}`;
    else {
      const parallelism = spec.parallelism === undefined ? 0 : n(spec.parallelism);
      completions = parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
    }
    const start = typeof status.startTime === 'string' ? Date.parse(status.startTime) : NaN;
    const end = typeof status.completionTime === 'string' ? Date.parse(status.completionTime) : NaN;
    const duration = Number.isNaN(start) ? '' : humanDuration((Number.isNaN(end) ? now : end) - start);
    const [containers, images] = containerCells(templateSpec(job));
    return [nameOf(job), jobStatus(job), completions, duration, ageOf(job, now), containers, images, formatLabelSelector(spec.selector)];
  },
};

const cronjobs: Printer = {
  columns: [
    NAME,
    col('Schedule', 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
    col('Timezone', 'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.'),
    col('Suspend', 'This flag tells the controller to suspend subsequent executions.', { type: 'boolean' }),
    col('Active', 'A list of pointers to currently running jobs.', { type: 'integer' }),
    col('Last Schedule', 'Information when was the last time the job was successfully scheduled.'),
    AGE,
    ...WIDE_WORKLOAD,
  ],
  cells(cj, now) {
    const spec = o(cj.spec);
    const status = o(cj.status);
    const jobSpec = o(o(spec.jobTemplate).spec);
    const [containers, images] = containerCells(o(o(jobSpec.template).spec));
    const last = typeof status.lastScheduleTime === 'string' ? ageAt(status.lastScheduleTime, now) : '<none>';
    return [
      nameOf(cj),
      s(spec.schedule),
      orNone(s(spec.timeZone)),
      spec.suspend === true,
      a(status.active).length,
      last,
      ageOf(cj, now),
      containers,
      images,
      formatLabelSelector(jobSpec.selector),
    ];
  },
};

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

const services: Printer = {
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

const endpoints: Printer = {
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

const persistentvolumeclaims: Printer = {
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

const persistentvolumes: Printer = {
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

const storageclasses: Printer = {
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

const ingresses: Printer = {
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

const events: Printer = {
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

const namespaces: Printer = {
  columns: [NAME, col('Status', 'The status of the namespace'), AGE],
  cells: (ns, now) => [nameOf(ns), s(o(ns.status).phase) || 'Active', ageOf(ns, now)],
};

function nodeAddress(node: Json, type: string): string {
  return s(a(o(node.status).addresses).find((address) => s(address.type) === type)?.address) || '<none>';
}

const nodes: Printer = {
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

const configmaps: Printer = {
  columns: [NAME, col('Data', 'Data contains the configuration data.', { type: 'integer' }), AGE],
  cells: (cm, now) => [nameOf(cm), Object.keys(o(cm.data)).length + Object.keys(o(cm.binaryData)).length, ageOf(cm, now)],
};

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
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${tableVersion}`, metadata: meta(object) };
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
