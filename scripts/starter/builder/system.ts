import type { Cluster, KubeObject } from './cluster';
import { stamp } from './clock';
import { threeNodes, type NodeOptions, type NodeRef } from './nodes';
import { configMap, namespace, storageClass } from './objects';
import { service } from './network';
import { daemonSet, deployment, replica } from './workloads';

/**
 * What every EKS cluster has before the first application: the system namespaces, three nodes,
 * CoreDNS and kube-proxy on every node, the API server's `kubernetes` service and
 * the gp3/gp2 storage classes. Scenarios start from here and add their applications and faults.
 */

export type Base = { nodes: [NodeRef, NodeRef, NodeRef]; coredns?: ReturnType<typeof deployment> };

export const CLUSTER_AGE = '41d3h';

export type BaseOptions = {
  nodes?: Partial<Record<0 | 1 | 2, Partial<NodeOptions>>>;
  /**
   * Record the system namespaces too (CoreDNS, kube-proxy, the API server's service). Without it
   * the snapshot is what `snapshot record --namespaces <apps>` keeps: the scenario's namespaces
   * and the cluster-scoped objects (nodes, volumes, storage classes).
   */
  system?: boolean;
  corednsReplicas?: number;
  /** CoreDNS's pods are the scenario's to write. */
  skipCoredns?: boolean;
};

export function baseCluster(c: Cluster, o: BaseOptions = {}): Base {
  const born = c.ago(CLUSTER_AGE);
  const nodes = threeNodes(c, o.nodes);
  storageClass(c, { name: 'gp3', created: born, isDefault: true });
  storageClass(c, { name: 'gp2', created: born, provisioner: 'kubernetes.io/aws-ebs', parameters: { fsType: 'ext4', type: 'gp2' } });
  if (!o.system) return { nodes };
  for (const ns of ['default', 'kube-node-lease', 'kube-public', 'kube-system']) namespace(c, ns, born);

  // The API server's own service: no selector, its endpoints are the control plane's.
  service(c, { namespace: 'default', name: 'kubernetes', ports: [{ name: 'https', port: 443, targetPort: 443 }], created: born, clusterIp: '172.20.0.1', labels: { component: 'apiserver', provider: 'kubernetes' } });
  c.add('endpoints', {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: c.meta('Endpoints', 'kubernetes', 'default', born, { labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } }),
    subsets: [{ addresses: [{ ip: '10.0.11.201' }, { ip: '10.0.12.87' }], ports: [{ name: 'https', port: 443, protocol: 'TCP' }] }],
  });

  configMap(c, 'kube-system', 'coredns', born, ['Corefile']);
  const coredns = deployment(c, {
    namespace: 'kube-system',
    name: 'coredns',
    replicas: o.corednsReplicas ?? 2,
    created: born,
    rolled: c.ago('18d'),
    revision: 2,
    labels: { 'k8s-app': 'kube-dns', 'eks.amazonaws.com/component': 'coredns' },
    containers: [
      {
        name: 'coredns',
        image: '602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/coredns:v1.11.4-eksbuild.2',
        args: ['-conf', '/etc/coredns/Corefile'],
        ports: [
          { name: 'dns', containerPort: 53, protocol: 'UDP' },
          { name: 'dns-tcp', containerPort: 53, protocol: 'TCP' },
          { name: 'metrics', containerPort: 9153, protocol: 'TCP' },
        ],
        resources: { limits: { memory: '170Mi' }, requests: { cpu: '100m', memory: '70Mi' } },
        livenessProbe: { httpGet: { path: '/health', port: 8080, scheme: 'HTTP' }, initialDelaySeconds: 60, timeoutSeconds: 5, periodSeconds: 10, successThreshold: 1, failureThreshold: 5 },
        readinessProbe: { httpGet: { path: '/ready', port: 8181, scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
        volumeMounts: [{ name: 'config-volume', mountPath: '/etc/coredns', readOnly: true }],
      },
    ],
    extras: { serviceAccount: 'coredns', priorityClassName: 'system-cluster-critical', volumes: [{ name: 'config-volume', configMap: { name: 'coredns', items: [{ key: 'Corefile', path: 'Corefile' }], defaultMode: 420 } }] },
  });
  if (!o.skipCoredns) {
    // On the nodes that were there and healthy when CoreDNS last rolled out.
    const since = c.clock.ago('18d');
    const hosts = nodes.filter((n) => !n.down && Date.parse(String(n.object.metadata.creationTimestamp)) < since);
    for (let i = 0; i < (o.corednsReplicas ?? 2); i++) replica(c, coredns.current, { node: hosts[i % hosts.length] as NodeRef, created: c.ago('18d') });
  }
  service(c, {
    namespace: 'kube-system',
    name: 'kube-dns',
    selector: { 'k8s-app': 'kube-dns' },
    created: born,
    clusterIp: '172.20.0.10',
    labels: { 'k8s-app': 'kube-dns', 'kubernetes.io/name': 'CoreDNS' },
    ports: [
      { name: 'dns', port: 53, targetPort: 53, protocol: 'UDP' },
      { name: 'dns-tcp', port: 53, targetPort: 53, protocol: 'TCP' },
      { name: 'metrics', port: 9153, targetPort: 9153 },
    ],
  });

  const proxy = daemonSet(c, {
    namespace: 'kube-system',
    name: 'kube-proxy',
    created: born,
    containers: [{ name: 'kube-proxy', image: '602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/kube-proxy:v1.32.4-minimal-eksbuild.2', command: ['kube-proxy', '--v=2', '--config=/var/lib/kube-proxy-config/config'], resources: { requests: { cpu: '100m' } } }],
    extras: { hostNetwork: true, serviceAccount: 'kube-proxy', priorityClassName: 'system-node-critical' },
  });
  for (const n of nodes) {
    const joined = stamp(Date.parse((n.object.metadata.creationTimestamp as string) ?? born) + 20_000);
    replica(c, proxy, { node: n, created: joined, seed: n.name });
  }
  return { nodes, coredns };
}

/** An application namespace, created `created` before the recording. */
export function appNamespace(c: Cluster, name: string, created: string): KubeObject {
  return namespace(c, name, c.ago(created));
}
