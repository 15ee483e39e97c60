import { Cluster, appNamespace, baseCluster, crashLoopReplica, daemonSet, deployment, event, pendingReplica, replica, webApp } from '../builder';
import { WRONG, raw, verdictBlock } from '../patterns';
import { podOf, type StarterScenario } from '../scenario';

/** A new node never becomes Ready: its VPC CNI pod cannot reach the instance metadata service, so the network plugin is not initialised. */

const NEW_NODE = 'ip-10-0-2-34.eu-west-1.compute.internal';
const NOT_READY = 'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized';
const PENDING = '0/3 nodes are available: 1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.';

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-node-notready-cni',
    name: 'Starter: a new node stays NotReady — the CNI cannot reach instance metadata',
    description: 'The autoscaler added ip-10-0-2-34 (launch template v7) 21 minutes ago for the Pending report-builder pods. The node never became Ready: aws-node (VPC CNI) on it crash-loops because it cannot reach the instance metadata service (169.254.169.254 times out; the new template sets the metadata hop limit to 1 for containers), so the network plugin is not initialised and the node keeps its not-ready taint.',
    recordedAt: '2026-11-30T08:45:00Z',
  });
  const { nodes } = baseCluster(c, { system: true, nodes: { 1: { created: c.ago('21m'), nodegroup: 'general-2026-11-v7', notReady: { since: '21m', message: NOT_READY } } } });
  const cni = daemonSet(c, {
    namespace: 'kube-system',
    name: 'aws-node',
    created: c.ago('41d3h'),
    containers: [{ name: 'aws-node', image: '602401143452.dkr.ecr.eu-west-1.amazonaws.com/amazon-k8s-cni:v1.19.2-eksbuild.1', ports: [{ name: 'metrics', containerPort: 61678, protocol: 'TCP' }], resources: { requests: { cpu: '25m' } } }],
    extras: { hostNetwork: true, serviceAccount: 'aws-node', priorityClassName: 'system-node-critical' },
  });
  for (const n of [nodes[0], nodes[2]]) replica(c, cni, { node: n, created: c.ago('41d2h'), seed: n.name });
  crashLoopReplica(c, cni, {
    node: nodes[1],
    created: '20m50s',
    container: 'aws-node',
    image: '602401143452.dkr.ecr.eu-west-1.amazonaws.com/amazon-k8s-cni:v1.19.2-eksbuild.1',
    restarts: 7,
    finishedAgo: '1m44s',
    ranMs: 62_000,
    exitCode: 1,
    seed: nodes[1].name,
    log: (s) => [
      `{"level":"info","ts":"${new Date(s + 210).toISOString()}","caller":"entrypoint.sh","msg":"Validating env variables ..."}`,
      `{"level":"info","ts":"${new Date(s + 460).toISOString()}","caller":"entrypoint.sh","msg":"Install CNI binaries.."}`,
      `{"level":"info","ts":"${new Date(s + 1_020).toISOString()}","caller":"entrypoint.sh","msg":"Starting IPAM daemon in the background ... "}`,
      `{"level":"info","ts":"${new Date(s + 1_400).toISOString()}","caller":"entrypoint.sh","msg":"Checking for IPAM connectivity ... "}`,
      `{"level":"error","ts":"${new Date(s + 61_500).toISOString()}","caller":"aws-k8s-agent/main.go:42","msg":"Initialization failure: ipamd: can not initialize with AWS SDK interface: refreshSGIDs: unable to update the ENI's SG: failed to retrieve instance metadata: EC2MetadataError: failed to get IMDSv2 token and fallback to IMDSv1 is disabled: dial tcp 169.254.169.254:80: i/o timeout"}`,
    ],
  });
  event(c, { on: nodes[1].object, reason: 'NodeNotReady', message: `Node ${NEW_NODE} status is now: NodeNotReady`, first: '21m', component: 'kubelet', host: NEW_NODE });
  appNamespace(c, 'reports', '200d');
  const rb = deployment(c, { namespace: 'reports', name: 'report-builder', replicas: 4, created: c.ago('200d'), rolled: c.ago('23m'), revision: 12, containers: [{ name: 'builder', image: 'ghcr.io/acme/report-builder:2.1.0', resources: { requests: { cpu: '1500m', memory: '2Gi' }, limits: { memory: '3Gi' } } }] });
  for (const n of [nodes[0], nodes[2]]) replica(c, rb.current, { node: n, created: c.ago('23m') });
  for (let i = 0; i < 2; i++) pendingReplica(c, rb.current, { created: '23m', message: PENDING });
  webApp(c, { namespace: 'reports', name: 'report-portal', image: 'ghcr.io/acme/report-portal:1.4.0', replicas: 1, created: '200d', rolled: '30d', revision: 5 }, [nodes[0]]);
  return c;
}

const built = build();
const CNI_POD = podOf(built, 'kube-system', 'aws-node-', (p) => JSON.stringify(p.status).includes('CrashLoopBackOff'));
const METADATA = String.raw`169\.254\.169\.254|metadata|\bimds\w*`;

export const nodeNotreadyCni: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'node-notready-cni',
    title: 'A new node never becomes Ready: the CNI cannot start',
    question: 'report-builder in the reports namespace has had two pods Pending for 20 minutes even though the autoscaler added a node for them. Why don\'t they run on the new node?',
    expected: [
      {
        finding: 'the new node ip-10-0-2-34 is NotReady (container runtime network not ready: the CNI plugin is not initialised), so it keeps its not-ready taint',
        any_of: [
          String.raw`\bnot ?-?ready\b|NetworkPluginNotReady|cni (plugin )?(is |was )?not initiali[sz]ed|network (plugin )?(is )?not ready`,
          String.raw`(never|not|has ?n[o']t|has not|did ?n[o']t|did not) (yet )?(turn\w*|become|became|go|gone|went|get|got|been marked|reported|report\w*) (as )?ready`,
          String.raw`never (finish\w*|complet\w*) (joining|its join|bootstrap\w*)`,
        ],
        all_of: [[String.raw`ip-10-0-2-34|\bnodes?\b|machine|worker|instance`]],
      },
      {
        finding: 'aws-node (the VPC CNI) on that node crash-loops: it cannot reach the instance metadata service (169.254.169.254 times out)',
        any_of: [
          String.raw`(can ?not|can't|cannot|unable to|fails? to|failed to|could ?n[o']t|never) (reach|talk to|contact|connect to|get to|retrieve|query|access)\b.{0,40}\b(${METADATA})`,
          String.raw`(${METADATA})\w*\b.{0,40}\b(time[sd]? ?out|timeout|unreachable|blocked|not reachable|does ?n[o']t answer|no answer)`,
          String.raw`hop[- ]?limit`,
        ],
        all_of: [[String.raw`aws-node|vpc cni|\bcni\b|ipamd|network(ing)? (agent|plugin)`]],
      },
    ],
    must_not: [
      WRONG.insufficientMemory,
      String.raw`(disk|memory|pid) ?pressure`,
      WRONG.imagePull,
      String.raw`report-builder\b.{0,40}(crash\w*|bug|misconfigured)`,
      WRONG.quota,
      String.raw`(new node|ip-10-0-2-34\S*)\b.{0,20}(is |was )(already )?(ready\b|(\w+ )?(too small|full|out of (cpu|capacity)))`,
    ],
    tags: ['node-pressure', 'hard', 'nodes', 'cni', 'autoscaling'],
    difficulty: 'hard',
    verdict: { healthy: false, causes: [{ category: 'node-pressure', objects: [`node/${NEW_NODE}`, 'daemonset/kube-system/aws-node'] }] },
    fixtures: [
      { label: 'correct', note: 'node condition, taint, and the CNI pod\'s log', answer: `The scheduler cannot use the new node: ${NEW_NODE} has been NotReady since it joined ("container runtime network not ready … cni plugin not initialized"), so it carries the node.kubernetes.io/not-ready taint (hence "1 node(s) had untolerated taint {node.kubernetes.io/not-ready}", the other 2 lack CPU). The CNI is not initialised because aws-node on it (${CNI_POD}) crash-loops: "failed to retrieve instance metadata … dial tcp 169.254.169.254:80: i/o timeout". Check the new launch template's metadata options (IMDSv2 hop limit) — the older nodes are fine.` },
      { label: 'correct', note: 'other words', answer: 'The freshly added machine never finished joining: its pod networking agent (aws-node) keeps dying because it cannot talk to the EC2 metadata endpoint, so the node reports NotReady and nothing is placed on it. Fix the instance metadata settings in the new launch template.' },
      { label: 'correct', note: 'with a verdict', answer: `New node NotReady: aws-node cannot reach IMDS, CNI not initialised.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'node-pressure', objects: [`node/${NEW_NODE}`, 'daemonset/kube-system/aws-node'] }], fix: 'raise the IMDSv2 hop limit in the launch template' })}` },
      { label: 'wrong', note: 'keywords, wrong cause: resources', answer: 'The new node is Ready but too small: report-builder\'s 1500m CPU requests do not fit, so the pods stay Pending with Insufficient cpu.' },
      { label: 'wrong', note: 'wrong cause', answer: 'The new node is under disk pressure and taints itself; aws-node is fine.' },
      { label: 'wrong', note: 'negation of the cause', answer: 'The node is not NotReady — report-builder crash-loops on it because of a bug in 2.1.0.' },
      { label: 'wrong', note: 'raw output', answer: raw(`NAME                                        STATUS     ROLES    AGE   VERSION\n${NEW_NODE}   NotReady   <none>   21m   v1.32.4-eks-7f9a1c3`) },
    ],
  },
  proof: {
    calls: [{ tool: 'get_node_conditions' }, { tool: 'list_unhealthy_pods' }, { tool: 'get_pod_logs', args: { namespace: 'kube-system', pod: CNI_POD, previous: true } }],
    facts: [/ip-10-0-2-34\.eu-west-1\.compute\.internal: NotReady \(Ready=False KubeletNotReady: container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady/, new RegExp(`kube-system/${CNI_POD}: .*CrashLoopBackOff`), /reports\/report-builder-\w+-\w+: phase Pending; unschedulable: .*untolerated taint \{node\.kubernetes\.io\/not-ready: \}/, /dial tcp 169\.254\.169\.254:80: i\/o timeout/],
  },
};
