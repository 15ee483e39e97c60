import { jsonNumber as n, jsonObject as o, jsonObjects as a, jsonString as s, type Json } from '../../shared/json-read';
import { AGE, NAME, ageOf, col, formatLabelSelector, formatLabels, nameOf, orNone, type Printer } from './table-printer';

/** Services, endpoints, ingresses and network policies, as Kubernetes' printers show them. */

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


/** printNetworkPolicy: the pod selector as metav1.FormatLabelSelector writes it ("<none>" when it selects every pod). */
export const networkpolicies: Printer = {
  columns: [NAME, col('Pod-Selector', 'podSelector selects the pods to which this NetworkPolicy object applies.'), AGE],
  cells: (np, now) => [nameOf(np), formatLabelSelector(o(np.spec).podSelector) || '<none>', ageOf(np, now)],
};
