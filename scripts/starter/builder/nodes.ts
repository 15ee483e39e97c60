import { stamp } from './clock';
import type { Cluster, Json, KubeObject } from './cluster';

/**
 * Nodes as an EKS cluster shows them: labels, capacity, addresses, node info, and the four
 * kubelet conditions with heartbeats a few seconds to a few minutes before the recording (or, for
 * a node whose kubelet stopped posting, all four Unknown since the node controller noticed).
 */

/** `down`: since when (ago) the node is NotReady or Unknown; its pods are not ready from then. */
export type NodeRef = { name: string; ip: string; zone: string; object: KubeObject; down?: string };

type Pressure = 'MemoryPressure' | 'DiskPressure' | 'PIDPressure';
const HEALTHY: Readonly<Record<Pressure, [string, string]>> = {
  MemoryPressure: ['KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
  DiskPressure: ['KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
  PIDPressure: ['KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
};
const UNDER: Readonly<Record<Pressure, [string, string]>> = {
  MemoryPressure: ['KubeletHasInsufficientMemory', 'kubelet has insufficient memory available'],
  DiskPressure: ['KubeletHasDiskPressure', 'kubelet has disk pressure'],
  PIDPressure: ['KubeletHasInsufficientPID', 'kubelet has insufficient PID available'],
};

export type NodeOptions = {
  ip: string;
  zone?: string;
  instanceType?: string;
  arch?: 'amd64' | 'arm64';
  nodegroup?: string;
  /** When the node registered (default 41 days before the recording). */
  created?: string;
  cpu?: string;
  memoryKi?: number;
  /** Extra labels (e.g. a GPU node's). */
  labels?: Record<string, string>;
  taints?: Json[];
  /** Cordoned (kubectl cordon) since then. */
  unschedulable?: string;
  extraCapacity?: Record<string, string>;
  /** A pressure condition True since then ("10m" before the recording). */
  pressure?: Partial<Record<Pressure, string>>;
  /** Ready=False posted by the kubelet since then, with its reason and message. */
  notReady?: { since: string; message: string };
  /** The kubelet's last heartbeat was then; the node controller set every condition Unknown at `since`. */
  lost?: { heartbeat: string; since: string };
};

function condition(type: string, status: string, reason: string, message: string, heartbeat: string, transition: string): Json {
  return { type, status, reason, message, lastHeartbeatTime: heartbeat, lastTransitionTime: transition };
}

export function node(c: Cluster, o: NodeOptions): NodeRef {
  const name = `ip-${o.ip.replaceAll('.', '-')}.eu-west-1.compute.internal`;
  const zone = o.zone ?? 'eu-west-1a';
  const created = o.created ?? c.ago('41d3h');
  const arch = o.arch ?? 'amd64';
  // A kubelet posts its status every 10 s when something changed, and at least every 5 minutes.
  const heartbeat = stamp(c.clock.ago(`${c.int(`hb/${name}`, 20, 280)}s`));
  const conditions: Json[] = (['MemoryPressure', 'DiskPressure', 'PIDPressure'] as const).map((type) => {
    const since = o.pressure?.[type];
    const [reason, message] = since ? UNDER[type] : HEALTHY[type];
    return condition(type, since ? 'True' : 'False', reason, message, heartbeat, since ? c.ago(since) : created);
  });
  if (o.notReady) conditions.push(condition('Ready', 'False', 'KubeletNotReady', o.notReady.message, heartbeat, c.ago(o.notReady.since)));
  else conditions.push(condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status', heartbeat, created));
  if (o.lost) {
    for (const cond of conditions) {
      Object.assign(cond, { status: 'Unknown', reason: 'NodeStatusUnknown', message: 'Kubelet stopped posting node status.', lastHeartbeatTime: c.ago(o.lost.heartbeat), lastTransitionTime: c.ago(o.lost.since) });
    }
  }
  // The node lifecycle controller's taints for the conditions (TaintNodesByCondition, taint-based eviction).
  const auto: Json[] = [];
  if (o.lost) auto.push({ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: c.ago(o.lost.since) });
  else if (o.notReady) auto.push({ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute', timeAdded: c.ago(o.notReady.since) });
  if (!o.lost) {
    for (const [type, key] of [['MemoryPressure', 'memory-pressure'], ['DiskPressure', 'disk-pressure'], ['PIDPressure', 'pid-pressure']] as const) {
      if (o.pressure?.[type]) auto.push({ key: `node.kubernetes.io/${key}`, effect: 'NoSchedule' });
    }
  }
  if (o.unschedulable) auto.push({ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule', timeAdded: c.ago(o.unschedulable) });
  const taints = [...(o.taints ?? []), ...auto];
  const memoryKi = o.memoryKi ?? 15_896_384;
  const cpu = o.cpu ?? '4';
  const object: KubeObject = {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: c.meta('Node', name, null, created, {
      labels: {
        'eks.amazonaws.com/nodegroup': o.nodegroup ?? 'general-2026-10',
        'kubernetes.io/arch': arch,
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'node.kubernetes.io/instance-type': o.instanceType ?? 'm6i.xlarge',
        'topology.kubernetes.io/region': 'eu-west-1',
        'topology.kubernetes.io/zone': zone,
        ...o.labels,
      },
    }),
    spec: {
      providerID: `aws:///${zone}/i-0${c.hex(`i/${name}`, 16)}`,
      ...(o.unschedulable ? { unschedulable: true } : {}),
      ...(taints.length > 0 ? { taints } : {}),
    },
    status: {
      capacity: { cpu, 'ephemeral-storage': '83873772Ki', memory: `${memoryKi}Ki`, pods: '58', ...o.extraCapacity },
      allocatable: { cpu: `${Number(cpu) * 1000 - 80}m`, 'ephemeral-storage': '76224326324', memory: `${memoryKi - 1_016_832}Ki`, pods: '58', ...o.extraCapacity },
      conditions,
      addresses: [
        { type: 'InternalIP', address: o.ip },
        { type: 'Hostname', address: name },
      ],
      nodeInfo: {
        architecture: arch,
        containerRuntimeVersion: 'containerd://1.7.27',
        kernelVersion: '6.1.134-152.225.amzn2023.x86_64',
        kubeProxyVersion: 'v1.32.4-eks-7f9a1c3',
        kubeletVersion: 'v1.32.4-eks-7f9a1c3',
        operatingSystem: 'linux',
        osImage: 'Amazon Linux 2023.7.20250512',
      },
    },
  };
  c.add('nodes', object);
  const down = o.lost?.since ?? o.notReady?.since;
  return { name, ip: o.ip, zone, object, ...(down ? { down } : {}) };
}

/** Three general-purpose nodes, one per zone of eu-west-1. */
export function threeNodes(c: Cluster, overrides: Partial<Record<0 | 1 | 2, Partial<NodeOptions>>> = {}): [NodeRef, NodeRef, NodeRef] {
  const base: NodeOptions[] = [
    { ip: '10.0.1.21', zone: 'eu-west-1a' },
    { ip: '10.0.2.34', zone: 'eu-west-1b' },
    { ip: '10.0.3.17', zone: 'eu-west-1c' },
  ];
  const [a, b, d] = base.map((o, i) => node(c, { ...o, ...overrides[i as 0 | 1 | 2] })) as [NodeRef, NodeRef, NodeRef];
  return [a, b, d];
}
