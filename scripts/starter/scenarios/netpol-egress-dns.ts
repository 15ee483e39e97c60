import { Cluster, appNamespace, baseCluster, deployment, event, httpProbe, lines, linesAfter, networkPolicy, replica, service, stamp, startedAt, webApp } from '../builder';
import { WRONG, raw, verdictBlock } from '../patterns';
import { podOf, type StarterScenario } from '../scenario';

/** An egress NetworkPolicy that forgot DNS: every lookup from payments-gateway times out, while CoreDNS is healthy. */

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-netpol-egress-dns',
    name: 'Starter: an egress NetworkPolicy blocks DNS for payments-gateway',
    description: 'restrict-egress (applied 1h ago) lets payments-gateway reach the internet on 443 and the data namespace on 5432, and nothing else — not kube-dns on port 53. Every name lookup from its pods times out. CoreDNS is healthy and the other namespaces resolve names fine.',
    recordedAt: '2026-11-28T15:05:00Z',
  });
  const { nodes } = baseCluster(c, { system: true });
  for (const p of c.list('pods').filter((x) => x.metadata.name.startsWith('coredns-'))) {
    c.log('kube-system', p.metadata.name, 'coredns', { current: [...linesAfter('iso', startedAt(p), [[300, '.:53'], [310, '[INFO] plugin/reload: Running configuration SHA512 = 8b7c3f…'], [320, 'CoreDNS-1.11.4'], [330, 'linux/amd64, go1.22.9, 1e8f3d5']])].map((l) => l.replace(/^\S+ /, '')) });
  }
  appNamespace(c, 'payments', '500d');
  appNamespace(c, 'shop', '500d');
  networkPolicy(c, {
    namespace: 'payments',
    name: 'restrict-egress',
    created: c.ago('1h2m'),
    podSelector: { matchLabels: { app: 'payments-gateway' } },
    policyTypes: ['Egress'],
    egress: [
      { to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '172.16.0.0/12'] } }], ports: [{ protocol: 'TCP', port: 443 }] },
      { to: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'data' } } }], ports: [{ protocol: 'TCP', port: 5432 }] },
    ],
    annotations: { 'acme.io/change': 'PCI-117 restrict cardholder egress' },
  });
  const gw = deployment(c, { namespace: 'payments', name: 'payments-gateway', replicas: 2, created: c.ago('500d'), rolled: c.ago('6d'), revision: 22, unavailableSince: '1h1m', containers: [{ name: 'gateway', image: 'ghcr.io/acme/payments-gateway:5.2.0', ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }], resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '512Mi' } }, readinessProbe: httpProbe('/ready', 'http') }] });
  for (let i = 0; i < 2; i++) {
    const n = nodes[i as 0 | 1];
    const p = replica(c, gw.current, { node: n, created: c.ago('6d'), notReadySince: '1h1m', states: { gateway: { state: { running: stamp(c.clock.ago('6d') + 5000), ready: false } } } });
    const ip = (p.status as { podIP: string }).podIP;
    const miss = (ago: string, name: string) => [ago, `{"level":"error","msg":"upstream call failed","error":"dial tcp: lookup ${name} on 172.20.0.10:53: read udp ${ip}:${c.int(`port/${ago}/${i}`, 32768, 60999)}->172.20.0.10:53: i/o timeout"}`] as [string, string];
    c.log('payments', p.metadata.name, 'gateway', {
      current: [
        ...linesAfter('iso', startedAt(p), [[700, '{"level":"info","msg":"payments-gateway 5.2.0 listening","addr":":8080"}']]).map((l) => l.replace(/^\S+ /, '')),
        ...lines(c, 'iso', [miss('1h', 'api.stripe.com'), miss('59m', 'payments-db.data.svc.cluster.local'), miss(`${4 + i}m`, 'api.stripe.com'), miss(`${40 + i * 7}s`, 'payments-db.data.svc.cluster.local')]).map((l) => l.replace(/^\S+ /, '')),
      ],
    });
    event(c, { on: p, reason: 'Unhealthy', type: 'Warning', message: 'Readiness probe failed: HTTP probe failed with statuscode: 503', first: '1h1m', last: `${c.int(`u/${i}`, 2, 25)}s`, count: 362, component: 'kubelet', host: n.name, fieldPath: 'spec.containers{gateway}' });
  }
  service(c, { namespace: 'payments', name: 'payments-gateway', selector: { app: 'payments-gateway' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }], created: c.ago('500d') });
  webApp(c, { namespace: 'shop', name: 'storefront', image: 'ghcr.io/acme/storefront:2.4.3', replicas: 2, created: '500d', rolled: '9d', revision: 6, requestLog: 'GET /api/catalog/search?q=boots 200 48ms' }, nodes.slice(1));
  return c;
}

const built = build();
const GW = podOf(built, 'payments', 'payments-gateway-');
const POLICY = String.raw`network ?polic\w*|netpol|restrict-egress|egress (rule|policy|polic\w*)|\bpolicy`;
const DNS = String.raw`\bdns\b|port 53|\b53\b|kube-dns|coredns|name resolution|lookups?|(name|dns) queries|resolv\w*`;

export const netpolEgressDns: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'netpol-egress-dns',
    title: 'An egress NetworkPolicy blocks DNS (CoreDNS is fine)',
    question: 'payments-gateway in the payments namespace has been unready for an hour and its logs are full of lookup errors. Should we restart CoreDNS?',
    expected: [
      {
        finding: 'payments-gateway\'s DNS lookups to kube-dns (172.20.0.10:53) time out, from its pods only: CoreDNS itself is healthy',
        any_of: [
          String.raw`i/o timeout|time[sd]? ?out|timeout|timing out|\bhang\w*`,
          String.raw`(never|can ?not|can't|cannot|unable to|fails? to|don't|do not) (leave|reach|arrive|get (out|through|an answer)|send|resolve|be resolved)`,
          String.raw`(lookups?|queries|resolution|dns)\b.{0,30}\b(fail\w*|block\w*|dropped|unanswered|go unanswered)`,
          String.raw`(block\w*|den(y|ies|ied)|drop\w*|cut\w* off)\b.{0,40}\b(dns|port 53|lookups?|name resolution|queries)`,
        ],
        all_of: [[DNS]],
      },
      {
        finding: 'the egress NetworkPolicy restrict-egress (applied 1 h ago) allows only 443 and 5432: it does not allow DNS (UDP/TCP 53 to kube-system)',
        any_of: [
          String.raw`(${POLICY})\b.{0,120}\b(block\w*|den(y|ies|ied)|drop\w*|forg[eo]t\w*|omit\w*|miss\w*|lacks?|leaves? out|left out|does ?n[o']t (allow|include|permit|cover|open)|only (allows?|permits?|lets?|opens?)|(allows?|permits?|lets?|opens?) only|no (rule|exception|allowance|entry) for)`,
          String.raw`(block\w*|den(y|ies|ied)|drop\w*|cut\w* off)\b.{0,120}\b(${POLICY})`,
          String.raw`(${DNS})\b.{0,40}\b(is |are |was )?(not (allowed|permitted|included|covered|listed|open)|blocked|denied|dropped|missing|left out|forgotten)`,
          String.raw`(may|can) only (talk|reach|connect|send|use)`,
        ],
        all_of: [[POLICY], [DNS]],
      },
    ],
    must_not: [
      String.raw`(restart|roll out|rollout restart|fix|scale up|redeploy)\w* (the )?(coredns|kube-dns)`,
      String.raw`(coredns|kube-dns|dns)\b.{0,20}(is |was )?(down|broken|failing|crash\w*|not resolving|outage|overloaded|unhealthy)`,
      String.raw`stripe\b.{0,20}(is )?(down|unreachable|failing|outage)|stripe outage`,
      WRONG.oom,
      WRONG.crashLoop,
      String.raw`payments-db\b.{0,20}(is )?(down|crash\w*)`,
    ],
    tags: ['network-policy', 'hard', 'red-herring', 'dns', 'egress'],
    difficulty: 'hard',
    verdict: { healthy: false, causes: [{ category: 'network-policy', objects: ['networkpolicy/payments/restrict-egress', 'deployment/payments/payments-gateway'] }] },
    fixtures: [
      { label: 'correct', note: 'the policy and why CoreDNS is not it', answer: `No — CoreDNS is healthy (both pods ready, no errors, other namespaces resolve fine). Only payments-gateway's lookups fail: "lookup api.stripe.com on 172.20.0.10:53: read udp …->172.20.0.10:53: i/o timeout". The egress NetworkPolicy restrict-egress, applied an hour ago for PCI-117, allows only TCP 443 to the internet and TCP 5432 to data — DNS (UDP and TCP 53 to kube-system/kube-dns) is not allowed, so the queries are dropped. Add an egress rule for port 53 to kube-system.` },
      { label: 'correct', note: 'other words', answer: 'Restarting CoreDNS will not help: the new egress policy on the payments namespace forgot name resolution. Its pods may only talk HTTPS and postgres, so their questions to the cluster DNS on port 53 never leave the pod.' },
      { label: 'correct', note: 'with a verdict', answer: `restrict-egress blocks DNS (port 53) from payments-gateway; CoreDNS is fine.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'network-policy', objects: ['networkpolicy/payments/restrict-egress'] }], fix: 'allow egress UDP/TCP 53 to kube-system' })}` },
      { label: 'wrong', note: 'follows the red herring', answer: 'Yes: CoreDNS is failing — the i/o timeouts to 172.20.0.10:53 show kube-dns is down. Restart CoreDNS; the network policy only restricts HTTPS and does not affect DNS.' },
      { label: 'wrong', note: 'wrong cause', answer: 'api.stripe.com is unreachable from the cluster (Stripe outage); payments-gateway cannot call it and goes unready.' },
      { label: 'wrong', note: 'negation of the cause', answer: 'It is not the network policy — restrict-egress allows everything payments-gateway needs. The gateway pods are crash-looping after a bad release.' },
      { label: 'wrong', note: 'raw log only', answer: raw(`{"level":"error","msg":"upstream call failed","error":"dial tcp: lookup api.stripe.com on 172.20.0.10:53: read udp 10.0.1.77:43117->172.20.0.10:53: i/o timeout"}`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods' }, { tool: 'get_pod_logs', args: { namespace: 'payments', pod: GW } }, { tool: 'get_resources', args: { kind: 'networkpolicies', namespace: 'payments' } }],
    facts: [/payments\/restrict-egress: podSelector app=payments-gateway policyTypes \["Egress"\] egress \[ipBlock 0\.0\.0\.0\/0 except 10\.0\.0\.0\/8,172\.16\.0\.0\/12 ports TCP\/443\] \[namespaces kubernetes\.io\/metadata\.name=data ports TCP\/5432\]/, new RegExp(`payments/${GW}: phase Running.*not ready`), /lookup api\.stripe\.com on 172\.20\.0\.10:53: read udp [\d.:]+->172\.20\.0\.10:53: i\/o timeout/],
    absent: [/kube-system\/coredns-/],
    objects: [{ path: '/apis/networking.k8s.io/v1/namespaces/payments/networkpolicies/restrict-egress', facts: [/"policyTypes":\["Egress"\]/, /"port":443/, /"port":5432/], }, { path: '/api/v1/namespaces/kube-system/endpoints/kube-dns', facts: [/"addresses":\[\{"ip"/] }],
  },
};
