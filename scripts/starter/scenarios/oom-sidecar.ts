import { Cluster, appNamespace, baseCluster, crashLoopReplica, crashed, deployment, httpProbe, lines, linesAfter, replica, startedAt, webApp } from '../builder';
import { C, WRONG, raw, verdictBlock } from '../patterns';
import { podOf, waiting, type StarterScenario } from '../scenario';

/** The envoy sidecar, not the app, is OOMKilled under sale traffic; the app's logs blame the payments service. */

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-oom-sidecar',
    name: 'Starter: checkout errors from an OOMKilled envoy sidecar',
    description: 'Since the sale began, the envoy sidecar of the checkout pods exceeds its 64Mi limit and is OOMKilled; while it restarts, checkout cannot reach payments through it and logs connection errors that point at payments, which is healthy.',
    recordedAt: '2026-11-27T18:42:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'checkout', '400d');
  appNamespace(c, 'payments', '400d');
  webApp(c, { namespace: 'payments', name: 'payments', image: 'ghcr.io/acme/payments:7.4.1', replicas: 3, created: '400d', rolled: '9d', revision: 31, requestLog: 'POST /v1/charges 201 48ms' }, nodes);
  const envoy = { name: 'envoy', image: 'envoyproxy/envoy:v1.31.2', args: ['-c', '/etc/envoy/envoy.yaml', '--concurrency', '2'], ports: [{ name: 'egress', containerPort: 15001, protocol: 'TCP' }], resources: { requests: { cpu: '50m', memory: '32Mi' }, limits: { memory: '64Mi' } } };
  const app = { name: 'checkout', image: 'ghcr.io/acme/checkout:5.9.0', ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }], env: [{ name: 'PAYMENTS_URL', value: 'http://127.0.0.1:15001/payments' }], resources: { requests: { cpu: '500m', memory: '512Mi' }, limits: { memory: '1Gi' } }, readinessProbe: httpProbe('/healthz', 'http') };
  const d = deployment(c, { namespace: 'checkout', name: 'checkout', replicas: 3, created: c.ago('400d'), rolled: c.ago('3d'), revision: 58, containers: [app, envoy] });
  const envoyLog = (start: number, traffic: boolean) =>
    linesAfter('iso', start, [
      [140, '[info][main] [source/server/server.cc:932] starting main dispatch loop'],
      [610, '[info][upstream] [source/common/upstream/cluster_manager_impl.cc:240] cm init: all clusters initialized'],
      ...(traffic ? ([[30_400, '[warning][upstream] [source/common/upstream/outlier_detection_impl.cc:912] active connections to payments.payments.svc:80 reached 1800']] as [number, string][]) : []),
    ]);
  const appErrors = (agos: string[]) => lines(c, 'iso', agos.map((a) => [a, 'ERROR payment call failed: Post "http://127.0.0.1:15001/payments/v1/charges": dial tcp 127.0.0.1:15001: connect: connection refused'] as [string, string]));

  const crashing = crashLoopReplica(c, d.current, { node: nodes[0], created: '3d', container: 'envoy', image: envoy.image, restarts: 7, finishedAgo: '1m10s', ranMs: 95_000, exitCode: 137, reason: 'OOMKilled', backOffSince: '38m', log: (s) => envoyLog(s, true) });
  c.log('checkout', crashing.metadata.name, 'checkout', { current: [...linesAfter('iso', startedAt(crashing, 'checkout'), [[2100, 'INFO checkout 5.9.0 listening on :8080']]), ...appErrors(['64s', '41s', '12s'])] });

  const last = crashed(c, '4m3s', 88_000, 137, 'OOMKilled');
  const restarted = replica(c, d.current, { node: nodes[1], created: c.ago('3d'), states: { envoy: { state: { running: c.ago('3m52s') }, restarts: 6, last } } });
  c.log('checkout', restarted.metadata.name, 'envoy', { current: envoyLog(startedAt(restarted, 'envoy'), false), previous: envoyLog(Date.parse(last.startedAt), true) });
  c.log('checkout', restarted.metadata.name, 'checkout', { current: [...linesAfter('iso', startedAt(restarted, 'checkout'), [[2050, 'INFO checkout 5.9.0 listening on :8080']]), ...appErrors(['4m1s', '3m58s'])] });

  const fine = replica(c, d.current, { node: nodes[2], created: c.ago('3d') });
  c.log('checkout', fine.metadata.name, 'checkout', { current: [...linesAfter('iso', startedAt(fine, 'checkout'), [[1980, 'INFO checkout 5.9.0 listening on :8080']]), ...lines(c, 'iso', [['9s', 'INFO order 88213377 paid']])] });
  return c;
}

const built = build();
const CRASHING = podOf(built, 'checkout', 'checkout-', (p) => JSON.stringify(p.status).includes('CrashLoopBackOff'));
void waiting;
const SIDECAR = String.raw`envoy|sidecar|proxy`;

export const oomSidecar: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'oom-sidecar',
    title: 'OOMKilled sidecar: the proxy, not the app, runs out of memory',
    question: 'Since the sale started at 18:00, checkout fails about a third of payments. The checkout logs say they cannot reach payments. What is the actual cause?',
    expected: [
      { finding: 'the envoy sidecar of the checkout pods is OOMKilled (exit code 137) and restarting', any_of: [C.oom], all_of: [[SIDECAR]] },
      {
        finding: 'the sidecar\'s 64Mi memory limit is too low for the sale traffic: raise it',
        any_of: [
          String.raw`(rais|increas|bump|doubl|bigger|larger|higher|more|extra)\w*.{0,40}(memory|limit|64 ?Mi)`,
          String.raw`(64 ?Mi|memory limit|\blimit\b).{0,40}(too (low|small|tight)|not enough|insufficient|undersized)`,
          String.raw`(memory|limit)\W{1,3}(to|of|at least) \d+ ?(Mi|Gi)`,
        ],
        all_of: [[SIDECAR, String.raw`64 ?Mi`]],
      },
    ],
    must_not: [
      String.raw`payments (service |pods? |deployment |api )?(is |are |was |were )?(down|broken|failing|unhealthy|crash\w*|overloaded|unavailable|the (root )?cause)`,
      String.raw`(restart|scale|fix)\w* (up )?(the )?payments`,
      String.raw`checkout('s)? ((app|application|main|own) ?(container)?|container (itself )?(is |was |gets |got )?)(OOM|out of memory)|checkout('s)? (app|application|main|own)\b.{0,30}(OOM|out of memory)|(rais|increas|bump)\w* (the )?checkout('s)? (app |application |container )?(memory |1 ?Gi )?limit`,
      WRONG.netpol,
      WRONG.dnsDown,
      WRONG.imagePull,
      WRONG.insufficientCpu,
    ],
    tags: ['oom-killed', 'hard', 'red-herring', 'sidecar', 'multi-container'],
    difficulty: 'hard',
    verdict: { healthy: false, causes: [{ category: 'oom-killed', objects: ['deployment/checkout/checkout', `pod/checkout/${CRASHING}`] }] },
    fixtures: [
      {
        label: 'correct',
        note: 'names the container and the limit',
        answer: `payments is healthy. The failing calls go through the envoy sidecar on 127.0.0.1:15001, and that container is OOMKilled: ${CRASHING} has envoy in CrashLoopBackOff (7 restarts, last state OOMKilled, exit code 137), another pod restarted it 4 minutes ago. The sidecar's limit is 64Mi, too small for sale traffic — raise it (e.g. to 256Mi).`,
      },
      { label: 'correct', note: 'other words', answer: 'The proxy sidecar next to checkout runs out of memory and the kernel kills it; while it restarts, checkout has no way to reach payments, hence "connection refused" on localhost. Give envoy a bigger memory limit than 64Mi.' },
      { label: 'correct', note: 'with a verdict', answer: `The envoy sidecar is OOMKilled under load; its 64Mi memory limit is too low.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'oom-killed', objects: ['deployment/checkout/checkout'] }], fix: 'raise the envoy container memory limit' })}` },
      { label: 'wrong', note: 'follows the red herring', answer: 'The payments service is down: checkout logs "connect: connection refused" when calling it. Restart the payments deployment.' },
      { label: 'wrong', note: 'keywords, wrong container', answer: 'The checkout application container is OOMKilled under sale load (exit code 137); envoy is fine. Raise checkout\'s 1Gi limit.' },
      { label: 'wrong', note: 'negation of the cause', answer: 'Nothing is OOMKilled; the envoy sidecar is restarting because a network policy blocks its egress to payments.' },
      { label: 'wrong', note: 'raw log lines only', answer: raw(`ERROR payment call failed: Post "http://127.0.0.1:15001/payments/v1/charges": dial tcp 127.0.0.1:15001: connect: connection refused`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods', args: { namespace: 'checkout' } }, { tool: 'get_pod_logs', args: { namespace: 'checkout', pod: CRASHING, container: 'checkout' } }],
    facts: [new RegExp(`checkout/${CRASHING}: .*container envoy: waiting: CrashLoopBackOff.*last termination: OOMKilled, exit code 137`), /container envoy: restarts: 6; last termination: OOMKilled, exit code 137/, /dial tcp 127\.0\.0\.1:15001: connect: connection refused/],
    absent: [/payments\/payments-/],
    objects: [{ path: `/api/v1/namespaces/checkout/pods/${CRASHING}`, facts: [/"name":"envoy".{0,400}"limits":\{"memory":"64Mi"\}/] }],
  },
};
