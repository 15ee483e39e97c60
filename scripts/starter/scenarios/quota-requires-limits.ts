import { Cluster, appNamespace, baseCluster, deployment, event, resourceQuota, webApp } from '../builder';
import { WRONG, raw, verdictBlock } from '../patterns';
import type { StarterScenario } from '../scenario';

/** A quota on limits makes every pod declare them; the new deployment declares none, so no pod is ever created. */

const REFUSAL = (pod: string) => `pods "${pod}" is forbidden: failed quota: team-quota: must specify limits.cpu for: notifier; limits.memory for: notifier; requests.cpu for: notifier; requests.memory for: notifier`;

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-quota-requires-limits',
    name: 'Starter: pods forbidden — the quota needs requests and limits the new deployment lacks',
    description: 'The notifications namespace has a ResourceQuota over requests and limits of CPU and memory, and no LimitRange to give defaults. The new notifier deployment sets no resources, so the API server refuses every pod its ReplicaSet tries to create: 0/2, no pods at all.',
    recordedAt: '2026-12-02T11:55:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'notifications', '90d');
  resourceQuota(c, { namespace: 'notifications', name: 'team-quota', created: c.ago('90d'), hard: { 'limits.cpu': '8', 'limits.memory': '16Gi', 'requests.cpu': '4', 'requests.memory': '8Gi' }, used: { 'limits.cpu': '2', 'limits.memory': '2Gi', 'requests.cpu': '1', 'requests.memory': '1Gi' } });
  webApp(c, { namespace: 'notifications', name: 'push-gateway', image: 'ghcr.io/acme/push-gateway:2.0.3', replicas: 2, created: '90d', rolled: '15d', revision: 5, resources: { requests: { cpu: '500m', memory: '512Mi' }, limits: { cpu: '1', memory: '1Gi' } } }, nodes);
  const d = deployment(c, {
    namespace: 'notifications',
    name: 'notifier',
    replicas: 2,
    desired: 2,
    created: c.ago('18m'),
    unavailableSince: '18m',
    replicaFailure: { since: '18m', message: (rs) => REFUSAL(`${rs}-${c.suffix('refused', 5)}`) },
    containers: [{ name: 'notifier', image: 'ghcr.io/acme/notifier:1.0.0', ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }] }],
  });
  event(c, { on: d.deploy, reason: 'ScalingReplicaSet', message: `Scaled up replica set ${d.current.name} from 0 to 2`, first: '18m', component: 'deployment-controller' });
  event(c, { on: d.current.object, reason: 'FailedCreate', type: 'Warning', message: `Error creating: ${REFUSAL(`${d.current.name}-${c.suffix('refused', 5)}`)}`, first: '18m', last: `${c.int('fc', 30, 200)}s`, count: 14, component: 'replicaset-controller' });
  return c;
}

export const quotaRequiresLimits: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'quota-requires-limits',
    title: 'Pods forbidden: the quota requires requests and limits',
    question: 'The new notifier deployment in the notifications namespace shows 0/2 ready, and there are no notifier pods at all — not even Pending ones. What is going on?',
    expected: [
      {
        finding: 'the API server refuses to create notifier\'s pods: failed quota team-quota (the namespace ResourceQuota)',
        any_of: [
          String.raw`failed quota`,
          String.raw`refus\w*|reject\w*|forbid\w*|den(y|ies|ied)\b|block\w*|(not|never|nothing is|none is) admit\w*`,
          String.raw`(can ?not|can't|cannot|never|not) (create|be created)`,
        ],
        all_of: [[String.raw`quota|namespace budget`]],
      },
      {
        finding: 'notifier sets no CPU/memory requests and limits, which that quota requires (no LimitRange gives defaults): add resources to the container',
        any_of: [
          String.raw`must specify\b.{0,20}\b(limits|requests)`,
          String.raw`\b(no|without|missing|lacks?|lacking) (any )?(cpu |memory |cpu\/memory )?(resources?|requests|limits)\b`,
          String.raw`(does ?n[o']t|do ?n[o']t|never|not) (set|specify|declare|define)\w*`,
          String.raw`declares? (none|nothing)|specif(y|ies) (no|none)`,
          String.raw`(add|set|give|declare|specify)\w*\b.{0,30}\b(resources?|cpu|memory|requests|limits)\b`,
          String.raw`(must|has to|have to|need to|needs to|required to) (declare|specify|set|have|carry)`,
        ],
      },
    ],
    must_not: [
      String.raw`exceeded quota|quota\b.{0,20}(is |was )?(full|exceeded|used up|spent|exhausted)|(used|uses) up its (cpu|memory|quota)`,
      WRONG.insufficientCpu,
      String.raw`\bpending\b|unschedulable|no node has room`,
      WRONG.imagePull,
      WRONG.rbac,
      WRONG.crashLoop,
    ],
    tags: ['quota', 'medium', 'resources', 'events'],
    difficulty: 'medium',
    verdict: { healthy: false, causes: [{ category: 'quota', objects: ['resourcequota/notifications/team-quota', 'deployment/notifications/notifier'] }] },
    fixtures: [
      { label: 'correct', note: 'the refusal explained', answer: 'The ReplicaSet cannot create any pod: "forbidden: failed quota: team-quota: must specify limits.cpu for: notifier; limits.memory …; requests.cpu …; requests.memory …". The namespace\'s ResourceQuota covers requests and limits, and notifier\'s container declares no resources (there is no LimitRange to default them). The quota is far from full — add requests and limits to notifier.' },
      { label: 'correct', note: 'other words', answer: 'Nothing is scheduled because nothing is admitted: the namespace budget insists every container declare its CPU and memory, and the new deployment declares none, so the API server rejects each pod. Give notifier resource requests and limits (or add a LimitRange with defaults).' },
      { label: 'correct', note: 'with a verdict', answer: `Pods rejected by ResourceQuota team-quota: notifier must specify CPU/memory requests and limits.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'quota', objects: ['resourcequota/notifications/team-quota', 'deployment/notifications/notifier'] }], fix: 'set resources on the notifier container' })}` },
      { label: 'wrong', note: 'keywords, wrong mechanism: a full quota', answer: 'team-quota is exceeded: the namespace has used up its CPU, so notifier\'s pods are rejected. notifier\'s resources are fine.' },
      { label: 'wrong', note: 'wrong cause', answer: 'notifier\'s pods are Pending: no node has room for them.' },
      { label: 'wrong', note: 'negation of the cause', answer: 'The quota has nothing to do with it; the replica set\'s service account is forbidden by RBAC to create pods.' },
      { label: 'wrong', note: 'raw output', answer: raw(`NAME       READY   UP-TO-DATE   AVAILABLE   AGE\nnotifier   0/2     0            0           18m`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unavailable_deployments', args: { namespace: 'notifications' } }, { tool: 'list_warning_events', args: { namespace: 'notifications' } }],
    facts: [/notifications\/notifier: 0\/2 available.*ReplicaFailure=True FailedCreate: pods "notifier-\w+-\w+" is forbidden: failed quota: team-quota: must specify limits\.cpu for: notifier/, /FailedCreate \(x14\)/],
    objects: [{ path: '/api/v1/namespaces/notifications/resourcequotas/team-quota', facts: [/"limits\.memory":"16Gi"/] }],
  },
};
