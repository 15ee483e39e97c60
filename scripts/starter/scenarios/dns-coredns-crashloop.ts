import { Cluster, appNamespace, baseCluster, crashLoopReplica, deployment, lines, linesAfter, replica, startedAt } from '../builder';
import { C, WRONG, raw, verdictBlock } from '../patterns';
import { podOf, type StarterScenario } from '../scenario';

/** A bad Corefile edit lay dormant (reload refused it) until the node rotation restarted CoreDNS: now it crash-loops and DNS is down. */

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-dns-coredns-crashloop',
    name: 'Starter: CoreDNS crash-loops on a bad Corefile after a node rotation',
    description: 'Two days ago the coredns ConfigMap got a typo in its forward line ("10.0.0.2:53x"); the running CoreDNS kept its old configuration. The node group upgrade 25 minutes ago rescheduled both CoreDNS pods, which now fail to parse the Corefile and crash-loop: cluster DNS is down.',
    recordedAt: '2026-11-29T09:40:00Z',
  });
  const { nodes, coredns } = baseCluster(c, { system: true, skipCoredns: true, nodes: { 0: { created: c.ago('27m') }, 1: { created: c.ago('26m') } } });
  if (!coredns) throw new Error('coredns');
  for (const n of [nodes[0], nodes[1]]) {
    crashLoopReplica(c, coredns.current, { node: n, created: '25m', container: 'coredns', image: '602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/coredns:v1.11.4-eksbuild.2', restarts: 9, finishedAgo: `${c.int(`fin/${n.name}`, 60, 200)}s`, ranMs: 110, exitCode: 1, backOffSince: '24m', log: () => ['plugin/forward: not an IP address or file: "10.0.0.2:53x"'] });
  }
  appNamespace(c, 'shop', '500d');
  const sf = deployment(c, { namespace: 'shop', name: 'storefront', replicas: 2, created: c.ago('500d'), rolled: c.ago('9d'), revision: 6, containers: [{ name: 'storefront', image: 'ghcr.io/acme/storefront:2.4.3', ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }] }] });
  for (const n of [nodes[2], nodes[0]]) {
    const created = n === nodes[2] ? c.ago('9d') : c.ago('25m');
    const p = replica(c, sf.current, { node: n, created });
    c.log('shop', p.metadata.name, 'storefront', {
      current: [
        ...linesAfter('iso', startedAt(p), [[900, 'storefront 2.4.3 listening on :8080']]),
        ...lines(c, 'iso', [
          ['24m', 'ERROR catalog request failed: Error: getaddrinfo EAI_AGAIN catalog.shop.svc.cluster.local'],
          ['', '    at GetAddrInfoReqWrap.onlookupall [as oncomplete] (node:dns:120:26)'],
          ['3m', 'ERROR catalog request failed: Error: getaddrinfo EAI_AGAIN catalog.shop.svc.cluster.local'],
          ['15s', 'GET / 500 5012ms'],
        ]),
      ],
    });
  }
  const orders = deployment(c, { namespace: 'shop', name: 'orders-api', replicas: 1, created: c.ago('500d'), rolled: c.ago('8d'), revision: 41, containers: [{ name: 'orders-api', image: 'ghcr.io/acme/orders-api:3.9.1' }] });
  const op = replica(c, orders.current, { node: nodes[2], created: c.ago('8d') });
  c.log('shop', op.metadata.name, 'orders-api', { current: [...linesAfter('iso', startedAt(op), [[9000, 'Started OrdersApplication in 8.7 seconds']]), ...lines(c, 'iso', [['2m', 'WARN dial tcp: lookup orders-db.data.svc.cluster.local on 172.20.0.10:53: read udp 10.0.3.211:41234->172.20.0.10:53: read: connection refused']])] });
  return c;
}

const built = build();
const DNS_POD = podOf(built, 'kube-system', 'coredns-');
const CONFIG = String.raw`corefile|coredns (config ?map|configuration|config)|config(uration)? (file|map)|config ?map|forward (line|entry|address|upstream|directive|plugin|target)|upstream address|forward\b`;

export const dnsCorednsCrashloop: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'dns-coredns-crashloop',
    title: 'Cluster DNS down: CoreDNS crash-loops on a bad Corefile',
    question: 'Right after this morning\'s node group upgrade, the whole shop started failing with errors like "EAI_AGAIN" and "connection refused" on port 53. The nodes look fine. What broke?',
    expected: [
      {
        finding: 'CoreDNS is crash-looping, so cluster DNS is down (kube-dns has no ready endpoints)',
        any_of: [C.crashLoop, C.exitsAtStart, String.raw`(is|are) (now )?(down|failing|not running|gone|broken|dead)\b|no (ready )?endpoints`],
        all_of: [[String.raw`coredns|kube-dns|dns (pods?|servers?)|cluster(')?s? dns|\bdns\b`]],
      },
      {
        finding: 'the coredns ConfigMap has an invalid forward upstream ("10.0.0.2:53x"); the restarted pods cannot parse the Corefile',
        any_of: [
          String.raw`53x`,
          'not an IP address or file',
          String.raw`(${CONFIG})\b.{0,80}\b(typo\w*|invalid|bad|malformed|wrong|broken|syntax|error|mistake|unparsable|garbage|corrupt\w*)`,
          String.raw`(typo\w*|invalid|bad|malformed|wrong|broken|syntax error|mistake|unparsable)\w* (in (the |its )?)?(${CONFIG})`,
          String.raw`(can ?not|can't|cannot|fail\w* to|unable to|refus\w* to) (parse|load|read)\b.{0,30}\b(${CONFIG})`,
        ],
      },
    ],
    must_not: [
      WRONG.netpol,
      String.raw`(upstream|vpc|10\.0\.0\.2)\b.{0,30}(dns |resolver )?(is |was )?(down|unreachable|timing out|not (answering|responding))`,
      WRONG.oom,
      WRONG.imagePull,
      WRONG.nodeDown,
      String.raw`(cni|aws-node)\b.{0,30}(is )?(broken|down|crash\w*|failing)`,
      String.raw`catalog (is )?(down|crash\w*)`,
    ],
    tags: ['dns', 'medium', 'coredns', 'crash-loop', 'kube-system'],
    difficulty: 'medium',
    verdict: { healthy: false, causes: [{ category: 'dns', objects: ['deployment/kube-system/coredns', 'configmap/kube-system/coredns'] }] },
    fixtures: [
      { label: 'correct', note: 'the crash and its cause', answer: `Cluster DNS is down: both CoreDNS pods (e.g. ${DNS_POD}) are in CrashLoopBackOff since the node upgrade rescheduled them, so kube-dns has no ready endpoints and lookups get "connection refused" / EAI_AGAIN. Their log says "plugin/forward: not an IP address or file: \\"10.0.0.2:53x\\"" — the coredns ConfigMap's forward line has a typo (53x). The old pods kept running the previous config (reload rejected the edit); the new ones cannot start. Fix the Corefile to forward . 10.0.0.2 (or /etc/resolv.conf).` },
      { label: 'correct', note: 'other words', answer: 'The upgrade restarted the cluster\'s DNS servers and they now refuse to boot because their configuration file has a malformed upstream address, so every service lookup in the cluster fails. Correct the forward entry in the coredns config map.' },
      { label: 'correct', note: 'with a verdict', answer: `CoreDNS crash-loops on an invalid Corefile (forward 10.0.0.2:53x): cluster DNS is down.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'dns', objects: ['deployment/kube-system/coredns', 'configmap/kube-system/coredns'] }], fix: 'fix the forward line in the coredns ConfigMap' })}` },
      { label: 'wrong', note: 'keywords, wrong cause: the upstream resolver', answer: 'The VPC resolver 10.0.0.2 is down, so CoreDNS cannot forward and lookups fail; the Corefile is fine.' },
      { label: 'wrong', note: 'wrong cause', answer: 'A network policy added during the upgrade blocks UDP 53 from the shop namespace to kube-dns.' },
      { label: 'wrong', note: 'negation of the cause', answer: 'CoreDNS is not the problem, it is running. The new nodes are NotReady and their pods cannot reach anything.' },
      { label: 'wrong', note: 'raw output', answer: raw(`kube-system   ${DNS_POD}   0/1   CrashLoopBackOff   9 (2m ago)   25m\nplugin/forward: not an IP address or file: "10.0.0.2:53x"`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods', args: { namespace: 'kube-system' } }, { tool: 'get_pod_logs', args: { namespace: 'kube-system', pod: DNS_POD, previous: true } }, { tool: 'list_unavailable_deployments' }],
    facts: [new RegExp(`kube-system/${DNS_POD}: .*CrashLoopBackOff.*exit code 1`), /plugin\/forward: not an IP address or file: "10\.0\.0\.2:53x"/, /kube-system\/coredns: 0\/2 available/],
    objects: [{ path: '/api/v1/namespaces/kube-system/endpoints/kube-dns', facts: [/"notReadyAddresses"/] }],
  },
};
