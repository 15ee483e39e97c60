import { Cluster, appNamespace, baseCluster, deployment, event, lines, linesAfter, replica, resourceQuota, startedAt, webApp } from '../builder';
import { C, WRONG, raw, verdictBlock } from '../patterns';
import type { StarterScenario } from '../scenario';

/** Scaling up hits the namespace's CPU quota: the ReplicaSet is forbidden to create the new pods. */

const QUOTA_MESSAGE = (pod: string) => `pods "${pod}" is forbidden: exceeded quota: compute-quota, requested: requests.cpu=500m, used: requests.cpu=3800m, limited: requests.cpu=4`;

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-quota-exceeded',
    name: 'Starter: scale-up blocked by the namespace CPU quota',
    description: 'campaign-api was scaled from 2 to 4 replicas 25 minutes ago for the newsletter send. The marketing namespace has a ResourceQuota of 4 CPUs of requests, 3800m are used, and each pod asks 500m: the ReplicaSet is forbidden to create the two new pods.',
    recordedAt: '2026-12-02T08:30:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'marketing', '300d');
  resourceQuota(c, { namespace: 'marketing', name: 'compute-quota', created: c.ago('300d'), hard: { pods: '20', 'requests.cpu': '4', 'requests.memory': '8Gi' }, used: { pods: '8', 'requests.cpu': '3800m', 'requests.memory': '5376Mi' } });
  const d = deployment(c, {
    namespace: 'marketing',
    name: 'campaign-api',
    replicas: 4,
    desired: 4,
    created: c.ago('300d'),
    rolled: c.ago('12d'),
    revision: 14,
    unavailableSince: '25m',
    replicaFailure: { since: '25m', message: (rs) => QUOTA_MESSAGE(`${rs}-${c.suffix('refused', 5)}`) },
    containers: [{ name: 'campaign-api', image: 'ghcr.io/acme/campaign-api:3.3.0', ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }], resources: { requests: { cpu: '500m', memory: '768Mi' }, limits: { memory: '1Gi' } } }],
  });
  for (const n of [nodes[0], nodes[1]]) {
    const p = replica(c, d.current, { node: n, created: c.ago('12d') });
    c.log('marketing', p.metadata.name, 'campaign-api', { current: [...linesAfter('iso', startedAt(p), [[1300, 'campaign-api 3.3.0 listening on :8080']]), ...lines(c, 'iso', [['2m', 'WARN queue depth 48211 sends pending; p99 send latency 2.8s'], ['20s', 'WARN queue depth 52907 sends pending; p99 send latency 3.4s']])] });
  }
  const refused = QUOTA_MESSAGE(`${d.current.name}-${c.suffix('refused', 5)}`);
  event(c, { on: d.deploy, reason: 'ScalingReplicaSet', message: `Scaled up replica set ${d.current.name} from 2 to 4`, first: '25m', component: 'deployment-controller' });
  event(c, { on: d.current.object, reason: 'FailedCreate', type: 'Warning', message: `Error creating: ${refused}`, first: '25m', last: `${c.int('fc', 30, 200)}s`, count: 17, component: 'replicaset-controller' });
  webApp(c, { namespace: 'marketing', name: 'campaign-worker', image: 'ghcr.io/acme/campaign-worker:3.3.0', replicas: 4, created: '300d', rolled: '12d', revision: 14, resources: { requests: { cpu: '500m', memory: '512Mi' }, limits: { memory: '1Gi' } }, service: false, requestLog: 'INFO sent batch of 500 emails' }, nodes);
  webApp(c, { namespace: 'marketing', name: 'landing', image: 'ghcr.io/acme/landing:1.7.4', replicas: 2, created: '300d', rolled: '30d', revision: 9, resources: { requests: { cpu: '400m', memory: '256Mi' }, limits: { memory: '512Mi' } } }, nodes.slice(1));
  return c;
}

export const quotaExceeded: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'quota-exceeded',
    title: 'Scale-up blocked by the namespace\'s ResourceQuota',
    question: 'We scaled campaign-api in marketing to 4 replicas 25 minutes ago for the newsletter, but only 2 pods exist and sending is slow. Why did the other two never appear?',
    expected: [
      {
        finding: 'the ReplicaSet is forbidden to create the new pods: they would exceed the namespace ResourceQuota compute-quota (exceeded quota)',
        any_of: [C.quota, String.raw`(refused|forbidden|rejected|denied|not allowed|blocked)\b.{0,40}\bcreat\w*|(never|not|can ?not|can't|cannot) (be )?(create|created|admitted)`],
        all_of: [[String.raw`quota|budget`]],
      },
      {
        finding: 'requests.cpu is at 3800m of 4 CPUs and each pod requests 500m: raise the quota, lower the requests, or free CPU (e.g. scale campaign-worker down)',
        any_of: [
          String.raw`3800 ?m|3\.8 ?(cpus?|cores?)?\b|3\.8 of 4`,
          String.raw`(requests\.cpu|cpu requests?|500 ?m|half a (core|cpu))\b.{0,60}\b(rais|increas|lower|reduc|free|4 ?(cpus?|cores?)|limited|\b4\b)`,
          String.raw`(rais|increas|bump|lower|reduc|free|enlarg|grow)\w*\b.{0,40}\b(quota|requests?|cpu)`,
        ],
      },
    ],
    must_not: [
      WRONG.insufficientCpu,
      String.raw`pods? (are |is )?(\w+ )?pending|unschedulable|FailedScheduling`,
      String.raw`\bhpa\b|autoscaler\b.{0,30}(max|limit|cap)|(caps?|capped|limits?) campaign-api at`,
      WRONG.imagePull,
      WRONG.crashLoop,
      WRONG.rbac,
    ],
    tags: ['quota', 'easy', 'scaling', 'events'],
    difficulty: 'easy',
    verdict: { healthy: false, causes: [{ category: 'quota', objects: ['resourcequota/marketing/compute-quota', 'deployment/marketing/campaign-api'] }] },
    fixtures: [
      { label: 'correct', note: 'the FailedCreate event read', answer: 'The ReplicaSet tried to create the two new pods and was refused: "pods … is forbidden: exceeded quota: compute-quota, requested: requests.cpu=500m, used: requests.cpu=3800m, limited: requests.cpu=4" (FailedCreate, and the Deployment\'s ReplicaFailure condition). The marketing namespace may request 4 CPUs and already requests 3.8; each campaign-api pod wants 500m. Raise compute-quota\'s requests.cpu to 5, or scale campaign-worker down for the send.' },
      { label: 'correct', note: 'other words', answer: 'Kubernetes never created the extra pods because the namespace has a CPU budget and it is already spent — 3.8 of 4 cores are reserved by the pods there, and each new one needs half a core. Increase the namespace quota or free some of it.' },
      { label: 'correct', note: 'with a verdict', answer: `Blocked by ResourceQuota compute-quota (requests.cpu 3800m/4, 500m more requested).\n\n${verdictBlock({ healthy: false, causes: [{ category: 'quota', objects: ['resourcequota/marketing/compute-quota'] }], fix: 'raise requests.cpu in compute-quota' })}` },
      { label: 'wrong', note: 'keywords, wrong mechanism: the scheduler', answer: 'The two new pods are Pending: the nodes have insufficient cpu for 500m more. The quota is fine — it has room.' },
      { label: 'wrong', note: 'wrong cause', answer: 'The HorizontalPodAutoscaler caps campaign-api at 2 replicas and scaled it back down.' },
      { label: 'wrong', note: 'negation of the cause', answer: 'No quota is exceeded here; the replica set lacks RBAC permission to create pods (forbidden).' },
      { label: 'wrong', note: 'raw output', answer: raw(`NAME           READY   UP-TO-DATE   AVAILABLE   AGE\ncampaign-api   2/4     2            2           300d`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unavailable_deployments', args: { namespace: 'marketing' } }, { tool: 'list_warning_events', args: { namespace: 'marketing' } }],
    facts: [/marketing\/campaign-api: 2\/4 available.*ReplicaFailure=True FailedCreate: pods "campaign-api-\w+-\w+" is forbidden: exceeded quota: compute-quota, requested: requests\.cpu=500m, used: requests\.cpu=3800m, limited: requests\.cpu=4/, /FailedCreate \(x17\): Error creating: pods/],
    objects: [{ path: '/api/v1/namespaces/marketing/resourcequotas/compute-quota', facts: [/"requests\.cpu":"3800m"/] }],
  },
};
