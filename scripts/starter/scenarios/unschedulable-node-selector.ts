import { Cluster, appNamespace, baseCluster, deployment, event, pendingReplica, webApp } from '../builder';
import { C, WRONG, raw, verdictBlock } from '../patterns';
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
const LABEL = String.raw`g5|instance[- ]type|node[ -]?selector|node affinity|labels?`;

export const unschedulableNodeSelector: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'unschedulable-node-selector',
    title: 'Pending: the nodeSelector matches no node',
    question: 'We redeployed ml-inference in the ml namespace a quarter of an hour ago and it has served nothing since. What is wrong?',
    expected: [
      { finding: 'the ml-inference pods are Pending: the scheduler cannot place them', any_of: [C.scheduling, String.raw`\bpending\b`] },
      {
        finding: 'their nodeSelector asks for instance type g5.xlarge, and no node has that label',
        any_of: [
          String.raw`didn't match (pod's )?node (affinity|selector)`,
          String.raw`\b(${LABEL})\b.{0,60}\b(match(es)? (no|nothing|none|zero)|does ?n[o']t match|do ?n[o']t match|no longer (match|exists?)|mismatch\w*|matching no)`,
          String.raw`\b(no|none of the|not a single|not one) (\w+ )?(nodes?|workers?|machines?|instances?)\b.{0,40}\b(has|have|carr(y|ies)|match(es)?|with|bears?|is|are|of)\b.{0,20}\b(that|such|this|those|matching|required|g5|instance[- ]type|label)`,
          String.raw`\bg5\b.{0,60}\b(removed|deleted|gone|no longer exists?|decommission\w*|scaled (down|to (0|zero))|retired|drained)`,
          String.raw`(pinned|restricted|tied|bound|limited|locked|constrained) to (a |an |the )?(gpu )?(instance[- ]type|g5|node (group|pool)|nodes? (labell?ed|with))`,
          String.raw`(requires?|asks? for|wants?|selects?|needs?|demands?)\b.{0,40}\b(instance[- ]type|g5)`,
        ],
        all_of: [[LABEL]],
      },
    ],
    must_not: [
      WRONG.insufficientCpu,
      WRONG.insufficientMemory,
      WRONG.insufficientGpu,
      String.raw`untolerated taint|taint\w*.{0,30}(not tolerated|untolerated)|(no|missing|add (a )?)\W{0,3}toleration`,
      WRONG.pvc,
      WRONG.imagePull,
      WRONG.quota,
    ],
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
