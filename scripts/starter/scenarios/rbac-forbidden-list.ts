import { Cluster, appNamespace, baseCluster, configMap, deployment, linesAfter, logStamp, replica, role, roleBinding, startedAt, webApp } from '../builder';
import { WRONG, raw, verdictBlock } from '../patterns';
import { podOf, type StarterScenario } from '../scenario';

/** A controller told to watch a second namespace has no permission there: its informer is forbidden to list ConfigMaps. */

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-rbac-forbidden-list',
    name: 'Starter: config-sync is forbidden to list ConfigMaps in shop',
    description: 'config-sync (namespace ops) was configured two days ago to also sync the shop namespace. Its Role and RoleBinding exist in ops only, so listing ConfigMaps in shop is forbidden; the pod runs and is ready, and logs the refusal every few seconds. Flags changed in shop/shop-flags are never synced.',
    recordedAt: '2026-12-02T17:20:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'ops', '300d');
  appNamespace(c, 'shop', '500d');
  configMap(c, 'shop', 'shop-flags', c.ago('200d'), ['flags.yaml']);
  configMap(c, 'ops', 'config-sync', c.ago('300d'), ['namespaces', 'target']);
  role(c, { namespace: 'ops', name: 'config-sync', created: c.ago('300d'), rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }] });
  roleBinding(c, { namespace: 'ops', name: 'config-sync', created: c.ago('300d'), role: 'config-sync', subjects: [{ kind: 'ServiceAccount', name: 'config-sync', namespace: 'ops' }] });
  const d = deployment(c, { namespace: 'ops', name: 'config-sync', replicas: 1, created: c.ago('300d'), rolled: c.ago('2d'), revision: 8, extras: { serviceAccount: 'config-sync' }, containers: [{ name: 'config-sync', image: 'ghcr.io/acme/config-sync:1.5.2', args: ['--namespaces=ops,shop', '--target=http://flags.flags.svc'], resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '128Mi' } } }] });
  const p = replica(c, d.current, { node: nodes[1], created: c.ago('2d') });
  const k = (level: string, ago: string, text: string) => `${level}${logStamp.klog(c.clock.ago(ago))}       1 ${text}`;
  const denied = 'configmaps is forbidden: User "system:serviceaccount:ops:config-sync" cannot list resource "configmaps" in API group "" in the namespace "shop"';
  c.log('ops', p.metadata.name, 'config-sync', {
    current: [
      ...linesAfter('klog', startedAt(p), [[400, 'main.go:61] config-sync 1.5.2 watching namespaces [ops shop]'], [900, 'sync.go:112] synced ops/sync-rules to http://flags.flags.svc']]).map((l) => `I${l}`),
      k('W', '1h58m', `reflector.go:569] k8s.io/client-go/informers/factory.go:160: failed to list *v1.ConfigMap: ${denied}`),
      k('E', '1h58m', `reflector.go:166] "Unhandled Error" err="k8s.io/client-go/informers/factory.go:160: Failed to watch *v1.ConfigMap: failed to list *v1.ConfigMap: ${denied.replaceAll('"', '\\"')}" logger="UnhandledError"`),
      k('W', '47s', `reflector.go:569] k8s.io/client-go/informers/factory.go:160: failed to list *v1.ConfigMap: ${denied}`),
      k('E', '47s', `reflector.go:166] "Unhandled Error" err="k8s.io/client-go/informers/factory.go:160: Failed to watch *v1.ConfigMap: failed to list *v1.ConfigMap: ${denied.replaceAll('"', '\\"')}" logger="UnhandledError"`),
    ],
  });
  webApp(c, { namespace: 'shop', name: 'storefront', image: 'ghcr.io/acme/storefront:2.4.3', replicas: 2, created: '500d', rolled: '9d', revision: 6 }, nodes);
  return c;
}

const built = build();
const POD = podOf(built, 'ops', 'config-sync-');
const RBAC = String.raw`role ?binding|\broles?\b|rbac|clusterrole|permissions?|rights|access`;

export const rbacForbiddenList: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'rbac-forbidden-list',
    title: 'RBAC: a controller may not list ConfigMaps in the namespace it was told to watch',
    question: 'We changed feature flags in the shop-flags ConfigMap two hours ago and the flag service still serves the old values. config-sync in the ops namespace is supposed to push them. It is running. Why is nothing synced?',
    expected: [
      {
        finding: 'config-sync\'s requests to list ConfigMaps in shop are forbidden (its service account ops/config-sync has no permission there)',
        any_of: [
          String.raw`forbidden|not (allowed|authori[sz]ed|permitted)|(is ?n[o']t|is not|are ?n[o']t|are not|was ?n[o']t) (allowed|authori[sz]ed|permitted)`,
          String.raw`\bno (permission|rights?|access|rbac)|lacks? (the )?(permission|rights?|access)|access denied|permission denied`,
          String.raw`(can ?not|can't|cannot|may not|may ?n[o']t|could ?n[o']t|unable to) (list|read|watch|get|see|access)`,
          String.raw`(refused|denied|rejected) by (the )?(api ?server|rbac|kubernetes)`,
        ],
        all_of: [[String.raw`config ?-?maps?|\bshop\b`]],
      },
      {
        finding: 'its Role and RoleBinding exist only in ops: add a Role and RoleBinding (get/list/watch configmaps) in shop',
        any_of: [
          String.raw`(${RBAC})\b.{0,80}\b(shop|only (in|exists? in|for) (the )?(ops|its own)|own namespace( only)?|(another|other|second|that) namespace|missing|add|create|grant)`,
          String.raw`(add|create|grant|give|bind)\w*\b.{0,60}\b(role|rolebinding|permission|rights|access|rbac)`,
          String.raw`\b(no|missing|lacks?) (a |any )?(role|rolebinding|role ?binding)\b.{0,40}\b(shop|there)`,
        ],
      },
    ],
    must_not: [
      WRONG.crashLoop,
      WRONG.oom,
      String.raw`(shop-flags|config ?map)\b.{0,20}(is |was )?(missing|deleted|not found|empty)`,
      WRONG.netpol,
      String.raw`flags? service\b.{0,20}(is )?(down|broken)`,
      WRONG.imagePull,
    ],
    tags: ['rbac', 'medium', 'controllers', 'logs'],
    difficulty: 'medium',
    verdict: { healthy: false, causes: [{ category: 'rbac', objects: ['deployment/ops/config-sync', 'rolebinding/ops/config-sync'] }] },
    fixtures: [
      { label: 'correct', note: 'the log line and the RBAC objects', answer: `${POD} is Ready, but its log repeats "failed to list *v1.ConfigMap: configmaps is forbidden: User \\"system:serviceaccount:ops:config-sync\\" cannot list resource \\"configmaps\\" … in the namespace \\"shop\\"". Since it was told to watch shop two days ago (--namespaces=ops,shop), it needs rights there, but its Role and RoleBinding exist only in ops. Create a Role (get/list/watch configmaps) and a RoleBinding for ops/config-sync in shop.` },
      { label: 'correct', note: 'other words', answer: 'The syncer is running but not allowed to read the shop namespace\'s config maps: its permissions were granted for its own namespace only, and nobody added any for shop when it was pointed there. Grant it read access to config maps in shop.' },
      { label: 'correct', note: 'with a verdict', answer: `Forbidden by RBAC: ops/config-sync may not list configmaps in shop (no Role/RoleBinding there).\n\n${verdictBlock({ healthy: false, causes: [{ category: 'rbac', objects: ['deployment/ops/config-sync'] }], fix: 'add a Role and RoleBinding in shop' })}` },
      { label: 'wrong', note: 'keywords, wrong cause: the ConfigMap is missing', answer: 'config-sync fails because the shop-flags ConfigMap is missing from the shop namespace; its Role and RoleBinding are correct.' },
      { label: 'wrong', note: 'wrong cause', answer: 'config-sync is crash-looping, so it never pushes the flags.' },
      { label: 'wrong', note: 'negation of the cause', answer: 'It is not a permission problem — the service account can read everything. A network policy blocks config-sync from the flag service.' },
      { label: 'wrong', note: 'raw log only', answer: raw(`W1202 15:21:47.000000       1 reflector.go:569] failed to list *v1.ConfigMap: configmaps is forbidden: User "system:serviceaccount:ops:config-sync" cannot list resource "configmaps" in API group "" in the namespace "shop"`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods' }, { tool: 'get_pod_logs', args: { namespace: 'ops', pod: POD } }, { tool: 'get_resources', args: { kind: 'rolebindings' } }],
    facts: [/ops\/config-sync: role Role\/config-sync subjects ServiceAccount ops\/config-sync/, /All \d+ pods in all namespaces look healthy/, /configmaps is forbidden: User "system:serviceaccount:ops:config-sync" cannot list resource "configmaps" in API group "" in the namespace "shop"/],
    objects: [{ path: '/apis/rbac.authorization.k8s.io/v1/rolebindings', facts: [/"namespace":"ops".{0,300}"name":"config-sync"/] }, { path: '/apis/rbac.authorization.k8s.io/v1/namespaces/shop/roles', facts: [/"items":\[\]/] }],
  },
};
