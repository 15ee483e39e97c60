import { Cluster, appNamespace, baseCluster, crashLoopReplica, deployment, event, logStamp, replicaSet, role, roleBinding, webApp } from '../builder';
import { WRONG, raw, verdictBlock } from '../patterns';
import { podOf, waiting, type StarterScenario } from '../scenario';

/** backup-operator 2.0 locks with a Lease for leader election; its Role still grants only ConfigMaps: forbidden, fatal, crash loop. */

const DENIED = 'leases.coordination.k8s.io "backup-operator-leader" is forbidden: User "system:serviceaccount:ops:backup-operator" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "ops"';

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-rbac-leader-election',
    name: 'Starter: backup-operator 2.0 crash-loops — forbidden to get its leader-election Lease',
    description: 'backup-operator 2.0 (rolled out 40 minutes ago) takes its leader-election lock on a coordination.k8s.io Lease instead of a ConfigMap. Its Role was not updated: getting the Lease is forbidden, leader election fails, the process exits 1 and crash-loops. The 1.9 pod was replaced (Recreate), so no backups run.',
    recordedAt: '2026-12-03T10:00:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'ops', '300d');
  role(c, { namespace: 'ops', name: 'backup-operator', created: c.ago('300d'), rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'] }, { apiGroups: ['velero.io'], resources: ['backups', 'schedules'], verbs: ['get', 'list', 'watch', 'create'] }, { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] }] });
  roleBinding(c, { namespace: 'ops', name: 'backup-operator', created: c.ago('300d'), role: 'backup-operator', subjects: [{ kind: 'ServiceAccount', name: 'backup-operator', namespace: 'ops' }] });
  const container = (image: string) => ({ name: 'operator', image, args: ['--leader-elect=true', '--leader-election-id=backup-operator-leader'], resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } } });
  const d = deployment(c, { namespace: 'ops', name: 'backup-operator', replicas: 1, created: c.ago('300d'), rolled: c.ago('40m'), revision: 6, recreate: true, unavailableSince: '40m', extras: { serviceAccount: 'backup-operator' }, containers: [container('ghcr.io/acme/backup-operator:2.0.0')] });
  replicaSet(c, d, { revision: 5, replicas: 0, containers: [container('ghcr.io/acme/backup-operator:1.9.4')], created: c.ago('70d') });
  const k = (level: string, ms: number, text: string) => `${level}${logStamp.klog(ms)}       1 ${text}`;
  crashLoopReplica(c, d.current, {
    node: nodes[2],
    created: '40m',
    container: 'operator',
    image: 'ghcr.io/acme/backup-operator:2.0.0',
    restarts: 11,
    finishedAgo: '3m18s',
    ranMs: 15_600,
    exitCode: 1,
    log: (s) => [
      k('I', s + 300, 'main.go:54] backup-operator 2.0.0 starting'),
      k('I', s + 420, 'leaderelection.go:257] attempting to acquire leader lease ops/backup-operator-leader...'),
      k('E', s + 460, `leaderelection.go:332] error retrieving resource lock ops/backup-operator-leader: ${DENIED}`),
      k('E', s + 5_470, `leaderelection.go:332] error retrieving resource lock ops/backup-operator-leader: ${DENIED}`),
      k('E', s + 15_480, `leaderelection.go:332] error retrieving resource lock ops/backup-operator-leader: ${DENIED}`),
      k('F', s + 15_490, 'main.go:97] unable to become leader: timed out waiting for the lease; exiting'),
    ],
  });
  event(c, { on: d.deploy, reason: 'ScalingReplicaSet', message: `Scaled down replica set ${d.replicaSets[1]?.name ?? ''} from 1 to 0`, first: '40m', component: 'deployment-controller' });
  event(c, { on: d.deploy, reason: 'ScalingReplicaSet', message: `Scaled up replica set ${d.current.name} from 0 to 1`, first: '40m', component: 'deployment-controller' });
  webApp(c, { namespace: 'ops', name: 'status-page', image: 'ghcr.io/acme/status-page:1.1.0', replicas: 1, created: '300d', rolled: '30d', revision: 3 }, [nodes[0]]);
  return c;
}

const built = build();
const POD = podOf(built, 'ops', 'backup-operator-', waiting('CrashLoopBackOff'));
const LOCK = String.raw`\bleases?\b|leader[- ]?(election|elect\w*|lock)|\block\b|become leader`;

export const rbacLeaderElection: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'rbac-leader-election',
    title: 'RBAC: an operator upgrade needs a permission its Role does not grant',
    question: 'After upgrading backup-operator to 2.0 in the ops namespace 40 minutes ago, its pod keeps restarting and no backup has run since. The 1.9 version worked for months. What is wrong?',
    expected: [
      {
        finding: 'backup-operator 2.0 cannot take its leader-election lock: getting the Lease backup-operator-leader is forbidden, so it exits (crash loop)',
        any_of: [
          String.raw`forbidden|not (allowed|authori[sz]ed|permitted)|(is ?n[o']t|is not|are ?n[o']t|was ?n[o']t) (allowed|authori[sz]ed|permitted)|\bno (permission|rights?|access)|access denied|permission denied`,
          String.raw`(can ?not|can't|cannot|may not|may ?n[o']t|could ?n[o']t|unable to|fails? to|failed to|never) (get|read|acquire|take|obtain|hold|create|become)`,
          String.raw`(is |was |gets? |got )?(refused|denied|rejected)|never extended`,
        ],
        all_of: [[LOCK]],
      },
      {
        finding: 'its Role grants ConfigMaps (1.9\'s lock) but not coordination.k8s.io leases: add get/create/update on leases',
        any_of: [String.raw`(lacks?|lacking|missing|misses|without|\bno\b|\bnot\b|never|only|add|grant|extend|updat)\w*\b.{0,80}\b(leases?|coordination\.k8s\.io)`],
        all_of: [[String.raw`\brole\b|rbac|permissions?|rolebinding|rights`]],
      },
    ],
    must_not: [
      WRONG.oom,
      WRONG.imagePull,
      String.raw`(another|second|other|stale) (leader|instance|replica|lease|pod)\b.{0,30}(holds|has|owns|keeps)|(delete|remove) the (stale )?(lease|lock)`,
      String.raw`velero\b.{0,30}(is |being )?(down|broken|missing|not installed)`,
      WRONG.netpol,
      WRONG.probe,
    ],
    tags: ['rbac', 'hard', 'crash-loop', 'operators', 'upgrade'],
    difficulty: 'hard',
    verdict: { healthy: false, causes: [{ category: 'rbac', objects: ['role/ops/backup-operator', 'deployment/ops/backup-operator'] }] },
    fixtures: [
      { label: 'correct', note: 'the log and the Role', answer: `${POD} crash-loops (11 restarts, exit code 1). Its previous log: "error retrieving resource lock ops/backup-operator-leader: leases.coordination.k8s.io \\"backup-operator-leader\\" is forbidden: User \\"system:serviceaccount:ops:backup-operator\\" cannot get resource \\"leases\\" …", then "unable to become leader … exiting". 2.0 uses a Lease for leader election; the Role backup-operator still grants only configmaps (1.9's lock), velero objects and events. Add get/create/update on leases in coordination.k8s.io to the Role.` },
      { label: 'correct', note: 'other words', answer: 'The new version elects its leader through a Lease object, and the operator\'s permissions were never extended to leases, so it is refused, gives up and restarts over and over. Extend its role with lease access.' },
      { label: 'correct', note: 'with a verdict', answer: `RBAC: backup-operator 2.0 may not get its leader-election Lease; the Role lacks coordination.k8s.io/leases.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'rbac', objects: ['role/ops/backup-operator'] }], fix: 'grant get/create/update on leases' })}` },
      { label: 'wrong', note: 'keywords, wrong mechanism: another leader', answer: 'backup-operator restarts because another instance holds the lease backup-operator-leader; delete the stale lease. RBAC is fine.' },
      { label: 'wrong', note: 'wrong cause', answer: 'The 2.0 operator is OOMKilled at startup; raise its 256Mi limit.' },
      { label: 'wrong', note: 'negation of the cause', answer: 'There is no permission issue — the service account can get leases. The crash comes from velero being missing in the cluster.' },
      { label: 'wrong', note: 'raw output', answer: raw(`NAME                         READY   STATUS             RESTARTS        AGE\n${POD}   0/1     CrashLoopBackOff   11 (3m18s ago)   40m`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods', args: { namespace: 'ops' } }, { tool: 'get_pod_logs', args: { namespace: 'ops', pod: POD, previous: true } }],
    facts: [new RegExp(`ops/${POD}: .*CrashLoopBackOff.*last termination: Error, exit code 1`), /leases\.coordination\.k8s\.io "backup-operator-leader" is forbidden/, /unable to become leader/],
    objects: [{ path: '/apis/rbac.authorization.k8s.io/v1/namespaces/ops/roles/backup-operator', facts: [/"resources":\["configmaps"\]/] }],
  },
};
