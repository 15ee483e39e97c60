import { jsonNumber as n, jsonObject as o, jsonObjects as a, jsonString as s, type Json } from '../../../../shared/json-read';
import type { ObjectKind } from '../kube-objects';
import { isoTime, oneLine, qualified } from './format';

const when = (value: unknown): string => isoTime(s(value) || null) ?? '-';

/**
 * One line per object for get_resources: the fields a diagnosis reads of each kind (a Service's
 * selector and ports, a claim's phase and class, a Job's conditions, a CronJob's suspend flag, a
 * NetworkPolicy's rules, a quota's use, a binding's subjects…), compact enough for a small model.
 */

/** Objects read through client-node name `from` `_from`: both are accepted. */
function peers(rule: Json, key: 'from' | 'to'): Json[] {
  return a(rule[key] ?? rule[`_${key}`]);
}

function labels(selector: unknown): string {
  const sel = o(selector);
  const parts = Object.entries(o(sel.matchLabels)).map(([k, v]) => `${k}=${s(v)}`);
  for (const e of a(sel.matchExpressions)) parts.push(`${s(e.key)} ${s(e.operator)} ${JSON.stringify(e.values ?? [])}`);
  return parts.length > 0 ? parts.join(',') : '(all pods)';
}

function map(value: unknown): string {
  const entries = Object.entries(o(value));
  return entries.length > 0 ? entries.map(([k, v]) => `${k}=${s(v) || JSON.stringify(v)}`).join(',') : '(none)';
}

function peer(p: Json): string {
  if (p.ipBlock) {
    const block = o(p.ipBlock);
    const except = Array.isArray(block.except) ? block.except.map(String) : [];
    return `ipBlock ${s(block.cidr)}${except.length ? ` except ${except.join(',')}` : ''}`;
  }
  const parts: string[] = [];
  if (p.namespaceSelector) parts.push(`namespaces ${labels(p.namespaceSelector)}`);
  if (p.podSelector) parts.push(`pods ${labels(p.podSelector)}`);
  return parts.join(' & ') || '(any)';
}

function rules(list: unknown, key: 'from' | 'to'): string {
  const items = a(list);
  if (items.length === 0) return 'none allowed';
  return items
    .map((r) => {
      const who = peers(r, key);
      const ports = a(r.ports).map((p) => `${s(p.protocol) || 'TCP'}/${s(p.port) || n(p.port) || 'any'}`);
      return `[${who.length ? who.map(peer).join(' | ') : 'anywhere'} ports ${ports.length ? ports.join(',') : 'all'}]`;
    })
    .join(' ');
}

function conditions(status: Json): string {
  const list = a(status.conditions).filter((c) => s(c.status) === 'True');
  return list.length ? list.map((c) => `${s(c.type)}${c.reason ? ` (${s(c.reason)}${c.message ? `: ${oneLine(s(c.message), 120)}` : ''})` : ''}`).join('; ') : 'no condition';
}

function podTemplate(spec: Json): string {
  const pod = o(o(spec.template).spec);
  const images = a(pod.containers).map((c) => `${s(c.name)}=${s(c.image)}`).join(',');
  return `${images}${pod.nodeSelector ? ` nodeSelector ${map(pod.nodeSelector)}` : ''}`;
}

const DESCRIBE: Record<ObjectKind, (x: Json, spec: Json, status: Json) => string> = {
  services: (_x, spec) => `type ${s(spec.type) || 'ClusterIP'} clusterIP ${s(spec.clusterIP)} selector ${spec.selector ? map(spec.selector) : '(none: endpoints managed by hand)'} ports ${a(spec.ports).map((p) => `${n(p.port)}->${s(p.targetPort) || n(p.targetPort)}/${s(p.protocol) || 'TCP'}`).join(',')}`,
  endpoints: (x) => {
    const subsets = a(x.subsets);
    const ready = subsets.flatMap((ss) => a(ss.addresses).map((ad) => `${s(ad.ip)}${ad.targetRef ? `(${s(o(ad.targetRef).name)})` : ''}`));
    const notReady = subsets.flatMap((ss) => a(ss.notReadyAddresses).map((ad) => `${s(ad.ip)}${ad.targetRef ? `(${s(o(ad.targetRef).name)})` : ''}`));
    return `ready ${ready.length ? ready.join(',') : '<none>'}${notReady.length ? `; not ready ${notReady.join(',')}` : ''}`;
  },
  persistentvolumeclaims: (_x, spec, status) => `phase ${s(status.phase) || 'Pending'} storageClass ${s(spec.storageClassName) || '(default)'} volume ${s(spec.volumeName) || '(none)'} request ${s(o(o(spec.resources).requests).storage)} modes ${JSON.stringify(spec.accessModes ?? [])}`,
  persistentvolumes: (_x, spec, status) => {
    const zones = a(o(o(spec.nodeAffinity).required).nodeSelectorTerms).flatMap((t) => a(t.matchExpressions).map((e) => `${s(e.key)} in ${JSON.stringify(e.values)}`));
    return `phase ${s(status.phase)} claim ${s(o(spec.claimRef).namespace)}/${s(o(spec.claimRef).name)} storageClass ${s(spec.storageClassName)} capacity ${s(o(spec.capacity).storage)}${zones.length ? ` nodeAffinity ${zones.join(',')}` : ''}`;
  },
  storageclasses: (x) => `provisioner ${s(x.provisioner)} bindingMode ${s(x.volumeBindingMode) || 'Immediate'}${s(o(o(x.metadata).annotations)['storageclass.kubernetes.io/is-default-class']) === 'true' ? ' (default)' : ''}`,
  configmaps: (x) => `keys ${JSON.stringify(Object.keys(o(x.data)).concat(Object.keys(o(x.binaryData))))}`,
  resourcequotas: (_x, _spec, status) => Object.keys(o(status.hard)).sort().map((k) => `${k} ${s(o(status.used)[k]) || '0'}/${s(o(status.hard)[k])}`).join(', '),
  jobs: (_x, spec, status) => `${conditions(status)}; succeeded ${n(status.succeeded)} failed ${n(status.failed)} active ${n(status.active)}; backoffLimit ${n(spec.backoffLimit)}${spec.activeDeadlineSeconds ? ` activeDeadlineSeconds ${n(spec.activeDeadlineSeconds)}` : ''}; started ${when(status.startTime)}${status.completionTime ? ` completed ${when(status.completionTime)}` : ''}`,
  cronjobs: (_x, spec, status) => `schedule "${s(spec.schedule)}"${spec.timeZone ? ` ${s(spec.timeZone)}` : ''} suspend ${spec.suspend === true} active ${a(status.active).length} lastSchedule ${when(status.lastScheduleTime)} lastSuccess ${when(status.lastSuccessfulTime)}`,
  networkpolicies: (_x, spec) => {
    const types = Array.isArray(spec.policyTypes) ? spec.policyTypes.map(String) : ['Ingress'];
    return `podSelector ${labels(spec.podSelector)} policyTypes ${JSON.stringify(types)}${types.includes('Ingress') ? ` ingress ${rules(spec.ingress, 'from')}` : ''}${types.includes('Egress') ? ` egress ${rules(spec.egress, 'to')}` : ''}`;
  },
  ingresses: (_x, spec) => a(spec.rules).map((r) => `${s(r.host) || '*'} -> ${a(o(r.http).paths).map((p) => `${s(p.path) || '/'} ${s(o(o(p.backend).service).name)}:${n(o(o(o(p.backend).service).port).number) || s(o(o(o(p.backend).service).port).name)}`).join(', ')}`).join('; '),
  roles: (x) => a(x.rules).map((r) => `${JSON.stringify(r.apiGroups ?? [''])} ${JSON.stringify(r.resources ?? [])} ${JSON.stringify(r.verbs ?? [])}`).join('; '),
  rolebindings: (x) => `role ${s(o(x.roleRef).kind)}/${s(o(x.roleRef).name)} subjects ${a(x.subjects).map((sub) => `${s(sub.kind)} ${qualified(s(sub.namespace), s(sub.name))}`).join(', ')}`,
  deployments: (_x, spec, status) => `replicas ${spec.replicas === undefined ? 1 : n(spec.replicas)} ready ${n(status.readyReplicas)} available ${n(status.availableReplicas)} updated ${n(status.updatedReplicas)} strategy ${s(o(spec.strategy).type) || 'RollingUpdate'} images ${podTemplate(spec)}`,
  statefulsets: (_x, spec, status) => `replicas ${n(spec.replicas)} ready ${n(status.readyReplicas)} images ${podTemplate(spec)}`,
  daemonsets: (_x, _spec, status) => `desired ${n(status.desiredNumberScheduled)} ready ${n(status.numberReady)} available ${n(status.numberAvailable)}`,
  replicasets: (x, spec, status) => `replicas ${n(spec.replicas)} current ${n(status.replicas)} ready ${n(status.readyReplicas)} revision ${s(o(o(x.metadata).annotations)['deployment.kubernetes.io/revision']) || '-'} images ${podTemplate(spec)}`,
};

export function describeObject(kind: ObjectKind, object: Json): string {
  const metadata = o(object.metadata);
  return `- ${qualified(s(metadata.namespace), s(metadata.name))}: ${DESCRIBE[kind](object, o(object.spec), o(object.status))}`;
}
