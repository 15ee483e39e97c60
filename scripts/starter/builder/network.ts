import type { Cluster, Json, KubeObject } from './cluster';

/**
 * Services with the endpoints the endpoints controller would write for them (computed from the
 * pods their selector matches when the snapshot is built: ready ones as addresses, the others as
 * notReadyAddresses), ingresses and network policies.
 */

export type ServicePort = { name?: string; port: number; targetPort: number | string; protocol?: 'TCP' | 'UDP'; nodePort?: number };

function matches(selector: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

/** A pod's container port for a service's targetPort (a number, or a port's name). */
function resolvePort(p: KubeObject, target: number | string): number | undefined {
  if (typeof target === 'number') return target;
  for (const container of ((p.spec as Json).containers as Json[]) ?? []) {
    const port = ((container.ports as Json[] | undefined) ?? []).find((x) => x.name === target);
    if (port) return port.containerPort as number;
  }
  return undefined;
}

export function service(
  c: Cluster,
  o: { namespace: string; name: string; selector?: Record<string, string>; ports: ServicePort[]; created: string; clusterIp?: string; type?: 'ClusterIP' | 'NodePort' | 'LoadBalancer'; labels?: Record<string, string> },
): KubeObject {
  const ip = o.clusterIp ?? `172.20.${c.int(`svc/${o.namespace}/${o.name}`, 1, 254)}.${c.int(`svc2/${o.namespace}/${o.name}`, 1, 254)}`;
  const svc = c.add('services', {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: c.meta('Service', o.name, o.namespace, o.created, o.labels ? { labels: o.labels } : {}),
    spec: {
      ...(o.selector ? { selector: o.selector } : {}),
      ports: o.ports.map((p) => ({ ...(p.name ? { name: p.name } : {}), protocol: p.protocol ?? 'TCP', port: p.port, targetPort: p.targetPort, ...(p.nodePort ? { nodePort: p.nodePort } : {}) })),
      type: o.type ?? 'ClusterIP',
      clusterIP: ip,
      clusterIPs: [ip],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
      sessionAffinity: 'None',
    },
    status: { loadBalancer: {} },
  });
  if (!o.selector) return svc;
  const selector = o.selector;
  const endpoints: KubeObject = c.add<KubeObject>('endpoints', {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: c.meta('Endpoints', o.name, o.namespace, o.created, { labels: { ...o.labels, 'endpoints.kubernetes.io/managed-by': 'endpoint-controller' } }),
  });
  c.finish(() => {
    const pods = c.list('pods').filter((p) => p.metadata.namespace === o.namespace && matches(selector, p.metadata.labels) && (p.status as Json).podIP && (p.status as Json).phase !== 'Failed' && (p.status as Json).phase !== 'Succeeded');
    if (pods.length === 0) return;
    const address = (p: KubeObject) => ({ ip: (p.status as Json).podIP, nodeName: (p.spec as Json).nodeName, targetRef: { kind: 'Pod', namespace: o.namespace, name: p.metadata.name, uid: p.metadata.uid } });
    const ready = (p: KubeObject) => (((p.status as Json).conditions as Json[]) ?? []).some((x) => x.type === 'Ready' && x.status === 'True') && !p.metadata.deletionTimestamp;
    const first = pods[0] as KubeObject;
    const ports = o.ports.map((p) => ({ ...(p.name ? { name: p.name } : {}), port: resolvePort(first, p.targetPort) ?? p.port, protocol: p.protocol ?? 'TCP' }));
    const addresses = pods.filter(ready).map(address);
    const notReady = pods.filter((p) => !ready(p)).map(address);
    endpoints.subsets = [{ ...(addresses.length ? { addresses } : {}), ...(notReady.length ? { notReadyAddresses: notReady } : {}), ports }];
  });
  return svc;
}

export function networkPolicy(c: Cluster, o: { namespace: string; name: string; created: string; podSelector: Json; policyTypes: ('Ingress' | 'Egress')[]; ingress?: Json[]; egress?: Json[]; annotations?: Record<string, string> }): KubeObject {
  return c.add('networkpolicies', {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: c.meta('NetworkPolicy', o.name, o.namespace, o.created, { generation: 1, ...(o.annotations ? { annotations: o.annotations } : {}) }),
    spec: { podSelector: o.podSelector, policyTypes: o.policyTypes, ...(o.ingress ? { ingress: o.ingress } : {}), ...(o.egress ? { egress: o.egress } : {}) },
  });
}

export function ingress(c: Cluster, o: { namespace: string; name: string; created: string; host: string; service: string; port: number; address?: string }): KubeObject {
  return c.add('ingresses', {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: c.meta('Ingress', o.name, o.namespace, o.created, { generation: 1 }),
    spec: { ingressClassName: 'nginx', rules: [{ host: o.host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: o.service, port: { number: o.port } } } }] } }] },
    status: { loadBalancer: { ingress: [{ hostname: o.address ?? 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6-1234567890.eu-west-1.elb.amazonaws.com' }] } },
  });
}
