import { Cluster, appNamespace, baseCluster, deployment, event, lines, linesAfter, pendingReplica, replica, service, startedAt } from '../builder';
import { C, WRONG, raw, verdictBlock } from '../patterns';
import { podOf, type StarterScenario } from '../scenario';

/** A fourth replica with a required anti-affinity per host, on three nodes: nowhere to go. */

const MESSAGE = "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.";

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-unschedulable-anti-affinity',
    name: 'Starter: a fourth redis-cache replica cannot satisfy its anti-affinity on three nodes',
    description: 'redis-cache requires that no two of its pods share a host (requiredDuringScheduling podAntiAffinity on kubernetes.io/hostname). It was scaled from 3 to 4 an hour ago; the cluster has three nodes, so the fourth pod stays Pending.',
    recordedAt: '2026-12-05T09:30:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'cache', '250d');
  const affinity = { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'redis-cache' } }, topologyKey: 'kubernetes.io/hostname' }] } };
  const d = deployment(c, { namespace: 'cache', name: 'redis-cache', replicas: 4, created: c.ago('250d'), rolled: c.ago('40d'), revision: 5, extras: { affinity }, containers: [{ name: 'redis', image: 'redis:7.4.1', ports: [{ name: 'redis', containerPort: 6379, protocol: 'TCP' }], resources: { requests: { cpu: '250m', memory: '1Gi' }, limits: { memory: '1Gi' } } }] });
  for (const n of nodes) {
    const p = replica(c, d.current, { node: n, created: c.ago('40d') });
    c.log('cache', p.metadata.name, 'redis', { current: [...linesAfter('iso', startedAt(p), [[200, '1:M * Ready to accept connections tcp']]).map((l) => l.replace(/^\S+ /, '')), ...lines(c, 'iso', [['7m', '1:M * 100 changes in 300 seconds. Saving...']]).map((l) => l.replace(/^\S+ /, ''))] });
  }
  pendingReplica(c, d.current, { created: '1h2m', message: MESSAGE });
  event(c, { on: d.deploy, reason: 'ScalingReplicaSet', message: `Scaled up replica set ${d.current.name} from 3 to 4`, first: '1h2m', component: 'deployment-controller' });
  service(c, { namespace: 'cache', name: 'redis-cache', selector: { app: 'redis-cache' }, ports: [{ name: 'redis', port: 6379, targetPort: 'redis' }], created: c.ago('250d') });
  return c;
}

const built = build();
const PENDING = podOf(built, 'cache', 'redis-cache-', (p) => (p.status as { phase: string }).phase === 'Pending');

export const unschedulableAntiAffinity: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'unschedulable-anti-affinity',
    title: 'Pending: a required pod anti-affinity with more replicas than nodes',
    question: 'We raised redis-cache in the cache namespace from 3 to 4 replicas an hour ago; the fourth never started. The nodes have plenty of free CPU and memory. Why?',
    expected: [
      { finding: 'the fourth redis-cache pod is Pending: the scheduler cannot place it', any_of: [C.scheduling, String.raw`\bpending\b`] },
      {
        finding: 'its required pod anti-affinity (one pod per hostname) cannot be met: 4 replicas, 3 nodes — add a node, use preferred anti-affinity or a topology spread, or keep 3 replicas',
        any_of: [
          String.raw`didn't match pod anti-affinity`,
          String.raw`anti-?affinity\b.{0,60}\b(required|hard|can ?not be (met|satisfied)|can't be (met|satisfied)|(does ?n[o']t|do ?n[o']t|won't|will not) (allow|let|permit)|forbids?|prevents?|blocks?|rules? out|one per|per (node|host)|hostname|violat\w*|conflict\w*)`,
          String.raw`(required|hard|strict)\w* (pod ?)?anti-?affinity|one (\w+ )?(pod|replica|copy) per (node|host|machine)|at most one\b.{0,30}\bper (node|host|machine)`,
          String.raw`(never|not|no two|can ?not|can't|cannot) (\w+ )?(\w+ )?(to )?(share|run on|land on|sit on|be on) (a |the |one )?(same )?(machine|node|host)`,
        ],
        all_of: [[String.raw`\b3 nodes|three (nodes|machines|workers|hosts)|\b4 replicas|four replicas|more replicas than nodes|fourth|4th|each of the (three|3)|every node (already )?(has|runs|hosts)|already (runs|has|hosts|running|hosting|holds) one|no (place|room|node) (left )?(for|to)|nowhere`]],
      },
    ],
    must_not: [
      WRONG.insufficientCpu,
      WRONG.insufficientMemory,
      String.raw`untolerated taint|(does ?n[o']t|do ?n[o']t|not) tolerate|node ?selector\b.{0,20}(match(es)? no|mismatch|wrong)`,
      WRONG.pvc,
      WRONG.quota,
      WRONG.imagePull,
      String.raw`(is|it's) (only |just )?(a )?(preferred|soft)\b`,
    ],
    tags: ['unschedulable-resources', 'medium', 'scheduling', 'affinity'],
    difficulty: 'medium',
    verdict: { healthy: false, causes: [{ category: 'unschedulable-resources', objects: ['deployment/cache/redis-cache', `pod/cache/${PENDING}`] }] },
    fixtures: [
      { label: 'correct', note: 'the rule and the arithmetic', answer: `${PENDING} is Pending: "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules". redis-cache has a required podAntiAffinity on kubernetes.io/hostname — at most one redis-cache pod per node — and each of the three nodes already runs one. Four replicas need four nodes: add a node, switch to preferredDuringScheduling (or a topologySpreadConstraint), or go back to 3 replicas.` },
      { label: 'correct', note: 'other words', answer: 'Resources are not the issue: the cache pods are told never to share a machine, and with three machines already each hosting one, there is no place for a fourth. Either add a worker or relax that rule.' },
      { label: 'correct', note: 'with a verdict', answer: `Unschedulable: required anti-affinity per hostname, 4 replicas on 3 nodes.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'unschedulable-resources', objects: ['deployment/cache/redis-cache'] }], fix: 'add a node or use preferred anti-affinity' })}` },
      { label: 'wrong', note: 'keywords, wrong mechanism', answer: 'The fourth redis-cache pod is Pending on insufficient memory: it asks 1Gi; the anti-affinity is satisfied.' },
      { label: 'wrong', note: 'wrong cause', answer: 'The nodes have a taint the new pod does not tolerate.' },
      { label: 'wrong', note: 'negation of the cause', answer: 'Anti-affinity has nothing to do with it — the pod is pending because its PVC is unbound.' },
      { label: 'wrong', note: 'raw output', answer: raw(`Warning  FailedScheduling  3m  default-scheduler  ${MESSAGE}`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods', args: { namespace: 'cache' } }],
    facts: [new RegExp(`cache/${PENDING}: phase Pending; unschedulable: Unschedulable \\(0/3 nodes are available: 3 node\\(s\\) didn't match pod anti-affinity rules`)],
    objects: [{ path: '/apis/apps/v1/namespaces/cache/deployments/redis-cache', facts: [/"requiredDuringSchedulingIgnoredDuringExecution":\[\{"labelSelector":\{"matchLabels":\{"app":"redis-cache"\}\},"topologyKey":"kubernetes\.io\/hostname"\}\]/] }],
  },
};
