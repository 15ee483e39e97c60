import { Cluster, appNamespace, baseCluster, deployment, event, pendingReplica, webApp } from '../builder';
import { C, WRONG, near, raw, verdictBlock } from '../patterns';
import { podOf, type StarterScenario } from '../scenario';

/** A nodeSelector for an instance type the cluster no longer has: every replica stays Pending. */

const MESSAGE = "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-unschedulable-node-selector',
    name: 'Starter: ml-inference asks for an instance type the cluster no longer has',
    description: 'ml-inference (strategy Recreate) selects node.kubernetes.io/instance-type=g5.xlarge; the g5 node group was removed last week, so no node matches and its new pods stay Pending.',
    recordedAt: '2026-11-25T11:05:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'ml', '80d');
  const d = deployment(c, {
    namespace: 'ml',
    name: 'ml-inference',
    replicas: 2,
    created: c.ago('80d'),
    rolled: c.ago('16m'),
    revision: 14,
    unavailableSince: '16m',
    recreate: true,
    extras: { nodeSelector: { 'node.kubernetes.io/instance-type': 'g5.xlarge' } },
    containers: [{ name: 'inference', image: 'ghcr.io/acme/ml-inference:1.6.0', ports: [{ name: 'http', containerPort: 8000, protocol: 'TCP' }], resources: { requests: { cpu: '2', memory: '6Gi' }, limits: { memory: '8Gi' } } }],
  });
  for (let i = 0; i < 2; i++) pendingReplica(c, d.current, { created: '16m', message: MESSAGE });
  event(c, { on: d.deploy, reason: 'ScalingReplicaSet', message: `Scaled up replica set ${d.current.name} from 0 to 2`, first: '16m', component: 'deployment-controller' });
  webApp(c, { namespace: 'ml', name: 'feature-api', image: 'ghcr.io/acme/feature-api:2.1.0', replicas: 2, created: '80d', rolled: '12d', revision: 7, requestLog: 'GET /features/user/1123 200 4ms' }, nodes);
  return c;
}

const built = build();
const POD = podOf(built, 'ml', 'ml-inference-');
const LABEL = String.raw`g5(\.xlarge)?|instance[- ]type|node ?selector|nodeSelector|label`;

export const unschedulableNodeSelector: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'unschedulable-node-selector',
    title: 'Pending: the nodeSelector matches no node',
    question: 'We redeployed ml-inference in the ml namespace a quarter of an hour ago and it has served nothing since. What is wrong?',
    expected: [
      { finding: 'the ml-inference pods are Pending: the scheduler cannot place them', any_of: [C.scheduling, ...near('ml-inference|pods?', String.raw`\bpending\b`, 60)] },
      {
        finding: 'their nodeSelector asks for instance type g5.xlarge, and no node has that label',
        any_of: [String.raw`didn't match (pod's )?node (affinity|selector)`, ...near(LABEL, String.raw`no (node|match)|matches no|doesn't match|does not match|don't match|do not match|none of the (current |existing )?(nodes|workers|machines)|no such node|no longer (exist|have|has)|removed|gone`, 100)],
      },
    ],
    must_not: [WRONG.insufficientCpu, WRONG.insufficientMemory, String.raw`untolerated taint|taint .{0,30}(not tolerated|untolerated)`, WRONG.pvc, WRONG.imagePull, WRONG.quota],
    tags: ['unschedulable-resources', 'easy', 'scheduling', 'node-selector'],
    difficulty: 'easy',
    verdict: { healthy: false, causes: [{ category: 'unschedulable-resources', objects: ['deployment/ml/ml-inference', `pod/ml/${POD}`] }] },
    fixtures: [
      { label: 'correct', note: 'the scheduler message explained', answer: `Both ml-inference pods (e.g. ${POD}) are Pending. FailedScheduling says "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector": the Deployment has nodeSelector node.kubernetes.io/instance-type=g5.xlarge, and the cluster's three nodes are m6i.xlarge — the g5 node group is gone. Remove or change the selector, or bring back a g5 node group.` },
      { label: 'correct', note: 'other words', answer: 'Nothing can run it: the pods are pinned to a GPU instance type (g5.xlarge) through their node selector, and none of the current workers carries that label, so they wait unscheduled forever.' },
      { label: 'correct', note: 'with a verdict', answer: `Unschedulable: nodeSelector instance-type=g5.xlarge matches no node.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'unschedulable-resources', objects: ['deployment/ml/ml-inference'] }], fix: 'drop the g5.xlarge nodeSelector or add a g5 node group' })}` },
      { label: 'wrong', note: 'keywords, wrong mechanism', answer: 'ml-inference is Pending because of insufficient cpu and memory: it requests 2 CPUs and 6Gi; the nodeSelector is fine.' },
      { label: 'wrong', note: 'wrong cause', answer: 'The pods are Pending because the nodes have an untolerated taint; add a toleration.' },
      { label: 'wrong', note: 'negates scheduling, wrong cause', answer: 'The pods are scheduled fine; they are stuck pulling ghcr.io/acme/ml-inference:1.6.0 (ImagePullBackOff).' },
      { label: 'wrong', note: 'raw output', answer: raw(`Warning  FailedScheduling  2m  default-scheduler  ${MESSAGE}`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods', args: { namespace: 'ml' } }, { tool: 'list_warning_events', args: { namespace: 'ml' } }, { tool: 'get_resources', args: { kind: 'deployments', namespace: 'ml', name: 'ml-inference' } }],
    facts: [/ml\/ml-inference: replicas 2 .*nodeSelector node\.kubernetes\.io\/instance-type=g5\.xlarge/, new RegExp(`ml/${POD}: phase Pending; unschedulable: Unschedulable \\(0/3 nodes are available: 3 node\\(s\\) didn't match Pod's node affinity/selector`), /FailedScheduling/],
    objects: [{ path: '/apis/apps/v1/namespaces/ml/deployments/ml-inference', facts: [/"nodeSelector":\{"node\.kubernetes\.io\/instance-type":"g5\.xlarge"\}/] }, { path: '/api/v1/nodes', facts: [/"node\.kubernetes\.io\/instance-type":"m6i\.xlarge"/] }],
  },
};
