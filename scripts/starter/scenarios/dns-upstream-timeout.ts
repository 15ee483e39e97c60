import { Cluster, appNamespace, baseCluster, deployment, lines, linesAfter, replica, startedAt, webApp } from '../builder';
import { WRONG, raw, verdictBlock } from '../patterns';
import { podOf, type StarterScenario } from '../scenario';

/** CoreDNS runs, but its upstream (the VPC resolver) does not answer: external names fail, cluster names work. */

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-dns-upstream-timeout',
    name: 'Starter: external names fail — CoreDNS cannot reach its upstream resolver',
    description: 'Since a network ACL change on the VPC 35 minutes ago, the VPC resolver 10.0.0.2 no longer answers CoreDNS. CoreDNS pods are running and ready, cluster names resolve from its cache and zones, but every external name fails (SERVFAIL): payments cannot reach api.stripe.com.',
    recordedAt: '2026-11-29T13:25:00Z',
  });
  const { nodes } = baseCluster(c, { system: true });
  for (const p of c.list('pods').filter((x) => x.metadata.name.startsWith('coredns-'))) {
    const ip = (p.status as { podIP: string }).podIP;
    const err = (ago: string, name: string, type: string) => [ago, `[ERROR] plugin/errors: 2 ${name}. ${type}: read udp ${ip}:${c.int(`p/${ago}/${name}/${type}`, 32768, 60999)}->10.0.0.2:53: i/o timeout`] as [string, string];
    c.log('kube-system', p.metadata.name, 'coredns', {
      current: [
        ...linesAfter('iso', startedAt(p), [[300, '.:53'], [320, 'CoreDNS-1.11.4']]).map((l) => l.replace(/^\S+ /, '')),
        ...lines(c, 'iso', [err('34m', 'api.stripe.com', 'A'), err('34m', 'api.stripe.com', 'AAAA'), err('20m', 'hooks.slack.com', 'A'), err('2m', 'api.stripe.com', 'A'), err('41s', 'sqs.eu-west-1.amazonaws.com', 'A')]).map((l) => l.replace(/^\S+ /, '')),
      ],
    });
  }
  appNamespace(c, 'payments', '500d');
  const pay = deployment(c, { namespace: 'payments', name: 'payments', replicas: 2, created: c.ago('500d'), rolled: c.ago('9d'), revision: 31, containers: [{ name: 'payments', image: 'ghcr.io/acme/payments:7.4.1', ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }], resources: { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '1Gi' } } }] });
  for (const n of [nodes[1], nodes[2]]) {
    const p = replica(c, pay.current, { node: n, created: c.ago('9d') });
    c.log('payments', p.metadata.name, 'payments', {
      current: [
        ...linesAfter('iso', startedAt(p), [[1400, 'INFO payments 7.4.1 listening on :8080']]),
        ...lines(c, 'iso', [
          ['33m', 'ERROR charge 7781201 failed: Post "https://api.stripe.com/v1/payment_intents": dial tcp: lookup api.stripe.com on 172.20.0.10:53: server misbehaving'],
          ['5m', 'INFO  GET http://ledger-api.ledger.svc.cluster.local/v1/accounts/8812 200 11ms'],
          [`${c.int(`e/${n.name}`, 10, 80)}s`, 'ERROR charge 7782940 failed: Post "https://api.stripe.com/v1/payment_intents": dial tcp: lookup api.stripe.com on 172.20.0.10:53: server misbehaving'],
        ]),
      ],
    });
  }
  appNamespace(c, 'ledger', '500d');
  webApp(c, { namespace: 'ledger', name: 'ledger-api', image: 'ghcr.io/acme-private/ledger-api:2.3.1', replicas: 1, created: '500d', rolled: '8d', revision: 6, requestLog: 'GET /v1/accounts/8812 200 9ms' }, [nodes[0]]);
  return c;
}

const built = build();
const PAY = podOf(built, 'payments', 'payments-');
const DNS = podOf(built, 'kube-system', 'coredns-');
const UPSTREAM = String.raw`10\.0\.0\.2|upstream|vpc (dns|resolver)|forward\w*|resolver|route ?53|amazon|aws-provided`;
const SILENT = String.raw`time[sd]? ?out|timeout|i/o timeout|unreachable|(stopped|stops|not|no longer|never) (answer|respond|repl)\w*|does ?n[o']t (answer|respond|reply)|no (answer|response|reply)|block\w*|silent|dead|down`;

export const dnsUpstreamTimeout: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'dns-upstream-timeout',
    title: 'External names fail: CoreDNS\'s upstream resolver times out',
    question: 'For half an hour every card payment fails, although nothing was deployed and all pods are running. Internal calls between services still work. Where is the problem?',
    expected: [
      {
        finding: 'external names (api.stripe.com…) fail to resolve — "server misbehaving" (SERVFAIL) — while cluster names still resolve',
        any_of: [
          String.raw`server misbehaving|servfail`,
          String.raw`(fail\w*|can ?not|can't|doesn't|does not|won't|unable to|never) (to )?(be )?resolv\w*`,
          String.raw`(dns|lookups?|name resolution|resolution)\b.{0,30}\b(fail\w*|error\w*|broken)|fails? on dns|dns (failure|problem|issue|error)`,
          String.raw`(comes?|come|came) back as (a )?fail\w*`,
        ],
        all_of: [[String.raw`api\.stripe\.com|stripe|external|public|outside|internet`]],
      },
      {
        finding: 'CoreDNS cannot reach its upstream resolver (10.0.0.2, the VPC resolver): its forwarded queries time out — the problem is upstream of CoreDNS, not in the pods',
        any_of: [
          String.raw`(${UPSTREAM})\b.{0,100}\b(${SILENT})`,
          String.raw`(no (reply|answer|response)|time[sd]? ?out|can ?not reach|can't reach|cannot reach|unable to reach) (from|to) (the |its )?(${UPSTREAM})`,
        ],
      },
    ],
    must_not: [
      String.raw`coredns\b.{0,20}(pods? )?(is |are )?(down|crash\w*|not running|oom\w*|broken|failing)`,
      WRONG.netpol,
      String.raw`stripe\b.{0,20}(is )?(down|unreachable|failing|having an outage)|stripe outage|outage at stripe`,
      WRONG.crashLoop,
      WRONG.oom,
      String.raw`(restart|scale|redeploy)\w* (the )?(coredns|kube-dns)`,
    ],
    tags: ['dns', 'hard', 'coredns', 'upstream', 'logs'],
    difficulty: 'hard',
    verdict: { healthy: false, causes: [{ category: 'dns', objects: ['deployment/kube-system/coredns', 'deployment/payments/payments'] }] },
    fixtures: [
      { label: 'correct', note: 'both logs read together', answer: `payments fails on DNS, not on Stripe: "lookup api.stripe.com on 172.20.0.10:53: server misbehaving" (a SERVFAIL from CoreDNS), while lookups of *.svc.cluster.local still work. CoreDNS is up (${DNS} ready), and its log explains the SERVFAIL: "[ERROR] plugin/errors: 2 api.stripe.com. A: read udp …->10.0.0.2:53: i/o timeout" — its upstream, the VPC resolver 10.0.0.2, stopped answering 34 minutes ago. Look at what changed in the VPC (network ACLs, resolver rules), not at the cluster.` },
      { label: 'correct', note: 'other words', answer: 'The cluster DNS is healthy for internal names but every outside name comes back as a failure, because CoreDNS gets no reply from the AWS-provided resolver it forwards to; something between the nodes and 10.0.0.2 is blocking DNS.' },
      { label: 'correct', note: 'with a verdict', answer: `External lookups SERVFAIL: CoreDNS's forwards to 10.0.0.2 time out (upstream resolver unreachable).\n\n${verdictBlock({ healthy: false, causes: [{ category: 'dns', objects: ['deployment/kube-system/coredns'] }], fix: 'restore reachability of the VPC resolver 10.0.0.2' })}` },
      { label: 'wrong', note: 'keywords, wrong cause: blames CoreDNS pods', answer: 'CoreDNS is crashing and returns server misbehaving for every name; restart the coredns deployment. The upstream resolver 10.0.0.2 is fine.' },
      { label: 'wrong', note: 'wrong cause', answer: 'Stripe is having an outage: api.stripe.com does not answer, so charges fail.' },
      { label: 'wrong', note: 'negation of the cause', answer: 'DNS is not involved. A network policy in the payments namespace blocks egress to the internet.' },
      { label: 'wrong', note: 'raw log only', answer: raw(`ERROR charge 7782940 failed: Post "https://api.stripe.com/v1/payment_intents": dial tcp: lookup api.stripe.com on 172.20.0.10:53: server misbehaving`, 'From the payments pod:') },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods' }, { tool: 'get_pod_logs', args: { namespace: 'payments', pod: PAY } }, { tool: 'get_pod_logs', args: { namespace: 'kube-system', pod: DNS } }],
    facts: [/All \d+ pods in all namespaces look healthy/, /lookup api\.stripe\.com on 172\.20\.0\.10:53: server misbehaving/, /\[ERROR\] plugin\/errors: 2 api\.stripe\.com\. A: read udp [\d.:]+->10\.0\.0\.2:53: i\/o timeout/],
  },
};
