import { jsonNumber as n, jsonObject as o, jsonObjects as a, jsonString as s, type Json } from '../../shared/json-read';
import { ageAt, nodeRoles, nodeStatus } from '../../shared/kube-display';
import { AGE, NAME, ageOf, col, nameOf, type Printer } from './table-printer';

/** Events, namespaces, nodes, config maps, quotas and RBAC objects, as Kubernetes' printers show them. */

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


/** printResourceQuota: "resource: used/hard" for each hard limit, sorted; `limits.*` in LIMIT, the rest in REQUEST. */
export const resourcequotas: Printer = {
  columns: [
    NAME,
    col('Request', 'Request represents a minimum amount of cpu/memory that a container may consume.'),
    col('Limit', 'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.'),
    AGE,
  ],
  cells(quota, now) {
    const status = o(quota.status);
    const hard = o(status.hard);
    const used = o(status.used);
    const requests: string[] = [];
    const limits: string[] = [];
    for (const resource of Object.keys(hard).sort()) {
      const text = `${resource}: ${s(used[resource]) || '0'}/${s(hard[resource])}`;
      (resource.split('.').length > 1 && resource.startsWith('limits.') ? limits : requests).push(text);
    }
    return [nameOf(quota), requests.join(', '), limits.join(', '), ageOf(quota, now)];
  },
};

/** Roles have no printer of their own: the API server's default table, the name and the creation time (RFC 3339). */
export const roles: Printer = {
  columns: [NAME, col('Created At', 'CreationTimestamp is a timestamp representing the server time when this object was created.', { type: 'date' })],
  cells: (role) => [nameOf(role), s(o(role.metadata).creationTimestamp)],
};

/** rbac.SubjectsStrings: users, groups and service accounts (namespace/name) of a binding. */
function subjects(binding: Json): [string, string, string] {
  const users: string[] = [];
  const groups: string[] = [];
  const accounts: string[] = [];
  for (const subject of a(binding.subjects)) {
    if (s(subject.kind) === 'User') users.push(s(subject.name));
    else if (s(subject.kind) === 'Group') groups.push(s(subject.name));
    else if (s(subject.kind) === 'ServiceAccount') accounts.push(`${s(subject.namespace)}/${s(subject.name)}`);
  }
  return [users.join(', '), groups.join(', '), accounts.join(', ')];
}

/** printRoleBinding: ROLE is kind/name of the roleRef; the subjects are wide columns. */
export const rolebindings: Printer = {
  columns: [
    NAME,
    col('Role', 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.'),
    AGE,
    col('Users', 'Users in the roleBinding', { priority: 1 }),
    col('Groups', 'Groups in the roleBinding', { priority: 1 }),
    col('ServiceAccounts', 'ServiceAccounts in the roleBinding', { priority: 1 }),
  ],
  cells(binding, now) {
    const ref = o(binding.roleRef);
    return [nameOf(binding), `${s(ref.kind)}/${s(ref.name)}`, ageOf(binding, now), ...subjects(binding)];
  },
};
