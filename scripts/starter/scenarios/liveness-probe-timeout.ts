import { Cluster, appNamespace, baseCluster, crashed, deployment, event, httpProbe, linesAfter, replica, service, startedAt, webApp } from '../builder';
import { WRONG, raw, verdictBlock } from '../patterns';
import { podOf, type StarterScenario } from '../scenario';

/** A liveness probe with a 1 s timeout on a /healthz that checks Elasticsearch: under load it takes longer, the kubelet kills the pods. */

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-liveness-probe-timeout',
    name: 'Starter: search-api restarted by its own liveness probe',
    description: 'search-api\'s liveness probe calls /healthz with a 1 s timeout; /healthz asks Elasticsearch for its cluster health, which takes 1.2–2.5 s under the morning load. The probe times out three times in a row and the kubelet restarts the container (exit 143 after SIGTERM), dropping in-flight searches.',
    recordedAt: '2026-11-26T09:48:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'search', '260d');
  const liveness = httpProbe('/healthz', 8080, { timeout: 1, period: 10, failure: 3, delay: 30 });
  const d = deployment(c, {
    namespace: 'search',
    name: 'search-api',
    replicas: 3,
    created: c.ago('260d'),
    rolled: c.ago('4d'),
    revision: 27,
    containers: [{ name: 'search-api', image: 'ghcr.io/acme/search-api:6.3.1', env: [{ name: 'ES_URL', value: 'http://elasticsearch.search.svc:9200' }], ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }], resources: { requests: { cpu: '1', memory: '2Gi' }, limits: { memory: '3Gi' } }, livenessProbe: liveness, readinessProbe: httpProbe('/ready', 8080) }],
  });
  const stories = [
    { node: nodes[0], restarts: 9, lastAgo: '2m20s', startedAgo: '2m18s', ran: 7 * 60_000 },
    { node: nodes[1], restarts: 7, lastAgo: '6m05s', startedAgo: '6m03s', ran: 9 * 60_000 },
    { node: nodes[2], restarts: 8, lastAgo: '50s', startedAgo: '48s', ran: 6 * 60_000 },
  ];
  for (const s of stories) {
    const last = crashed(c, s.lastAgo, s.ran, 143, 'Error');
    const p = replica(c, d.current, { node: s.node, created: c.ago('4d'), states: { 'search-api': { state: { running: c.ago(s.startedAgo) }, restarts: s.restarts, last } } });
    const run = (start: number, slow: boolean) =>
      linesAfter('iso', start, [
        [4_100, 'INFO  search-api 6.3.1 started on :8080'],
        ...((slow
          ? [
              [s.ran - 31_000, 'WARN  healthz: elasticsearch cluster health took 1840ms'],
              [s.ran - 21_000, 'WARN  healthz: elasticsearch cluster health took 2210ms'],
              [s.ran - 11_000, 'WARN  healthz: elasticsearch cluster health took 1975ms'],
              [s.ran - 600, 'INFO  received SIGTERM, shutting down (412 searches in flight)'],
            ]
          : [[25_000, 'WARN  healthz: elasticsearch cluster health took 1320ms']]) as [number, string][]),
      ]);
    c.log('search', p.metadata.name, 'search-api', { current: run(startedAt(p), false).filter((l) => Date.parse(l.slice(0, 24)) < c.clock.rec), previous: run(Date.parse(last.startedAt), true) });
    const host = s.node.name;
    const field = 'spec.containers{search-api}';
    event(c, { on: p, reason: 'Unhealthy', type: 'Warning', message: `Liveness probe failed: Get "http://${(p.status as { podIP: string }).podIP}:8080/healthz": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, first: '1h52m', last: `${c.int(`u/${p.metadata.name}`, 4, 40)}s`, count: s.restarts * 3 + 4, component: 'kubelet', host, fieldPath: field });
    event(c, { on: p, reason: 'Killing', message: 'Container search-api failed liveness probe, will be restarted', first: '1h50m', last: s.lastAgo, count: s.restarts, component: 'kubelet', host, fieldPath: field });
  }
  webApp(c, { namespace: 'search', name: 'elasticsearch', image: 'docker.elastic.co/elasticsearch/elasticsearch:8.15.3', replicas: 3, port: 9200, created: '260d', rolled: '60d', revision: 3, service: [{ name: 'http', port: 9200, targetPort: 'http' }], requestLog: 'GET /_cluster/health 200 1412ms' }, nodes);
  service(c, { namespace: 'search', name: 'search-api', selector: { app: 'search-api' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }], created: c.ago('260d') });
  return c;
}

const built = build();
const POD = podOf(built, 'search', 'search-api-');

export const livenessProbeTimeout: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'liveness-probe-timeout',
    title: 'Liveness probe timeouts restart a healthy but slow service',
    question: 'Since the morning traffic picked up, searches in the search namespace fail every few minutes with "connection reset" and search-api pods show restarts. Elasticsearch looks fine. What is going on?',
    expected: [
      {
        finding: 'the kubelet restarts search-api because its liveness probe fails (times out)',
        any_of: [
          String.raw`liveness( probe| check)?\w*\b.{0,60}\b(fail\w*|time[sd]? ?out|timeout|deadline|kill\w*|restart\w*|miss\w*|gives? up)`,
          String.raw`(killed|restarted|kills|restarts|killing|restarting)\b.{0,40}\b(by|because of|due to|on|after|for) (its |the |a |failing |failed )?(own )?liveness`,
          String.raw`fail\w* (its |the )?liveness`,
        ],
      },
      {
        finding: 'the probe\'s 1 s timeout is shorter than /healthz takes under load (it checks Elasticsearch, ~2 s): raise timeoutSeconds or make /healthz shallow',
        any_of: [
          String.raw`(timeout|timeoutSeconds|1 ?s(econd)?|one second|time ?limit)\b.{0,60}\b(too (short|low|tight|aggressive|small)|shorter than|less than|not enough)`,
          String.raw`(rais|increas|bump|loosen|lengthen|extend|relax)\w*\b.{0,40}\b(timeout|timeoutSeconds|time ?limit|failureThreshold|liveness)`,
          String.raw`(longer|bigger|higher|more generous) (liveness |probe )?(timeout|time ?limit)`,
          String.raw`(shallow|cheap\w*|lightweight|light|local|trivial)\w* (/?healthz|health ?check|liveness)`,
          String.raw`(healthz|health ?check|liveness)\b.{0,60}\b(should ?n[o']t|must ?n[o']t|not|never|stop) (call|query|check|depend on|hit|wait)\w* (on |for )?elasticsearch`,
          String.raw`(healthz|health ?check|probe|cluster[- ]health)\b.{0,60}\b(takes?|took|needs?|waits?|lasts?)\b.{0,30}\b([12]([.,–-]\d+)? ?(s|sec\w*)\b|\d{4} ?ms|longer than|more than)`,
          String.raw`gives? (it )?(up )?(only )?(after )?(one|1) ?s(econd)?`,
        ],
      },
    ],
    must_not: [
      WRONG.oom,
      String.raw`elasticsearch\b.{0,20}(is |was )?(\w+ and )?(down|unreachable|failing|crash\w*|overloaded|broken|unhealthy|the (root )?(cause|problem))`,
      String.raw`(scale|restart|fix)\w* (up )?(the )?elasticsearch`,
      WRONG.imagePull,
      WRONG.insufficientCpu,
      String.raw`readiness probe\w* (is |are )?(fail\w*|the cause)`,
      WRONG.netpol,
    ],
    tags: ['probe-failure', 'medium', 'liveness', 'restarts', 'events'],
    difficulty: 'medium',
    verdict: { healthy: false, causes: [{ category: 'probe-failure', objects: ['deployment/search/search-api'] }] },
    fixtures: [
      { label: 'correct', note: 'probe, timeout and evidence', answer: `The restarts are the kubelet's: events on ${POD} and the other two pods say "Liveness probe failed: … context deadline exceeded (Client.Timeout exceeded while awaiting headers)" and "Container search-api failed liveness probe, will be restarted" (exit 143 after SIGTERM, not an OOM). The liveness probe has timeoutSeconds 1, but /healthz checks Elasticsearch's cluster health, which takes 1.8–2.2 s under load (see the WARN lines). Raise the timeout or make the liveness check shallow; keep the Elasticsearch check for readiness.` },
      { label: 'correct', note: 'other words', answer: 'search-api is healthy but slow to answer its health check, and the liveness check gives it only one second; after three misses Kubernetes kills the container, which resets the searches in flight. Loosen the liveness timeout.' },
      { label: 'correct', note: 'with a verdict', answer: `Liveness probe timeouts (1 s) restart search-api; /healthz takes ~2 s under load because it queries Elasticsearch.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'probe-failure', objects: ['deployment/search/search-api'] }], fix: 'livenessProbe.timeoutSeconds: 5, or a shallow /healthz' })}` },
      { label: 'wrong', note: 'keywords, wrong cause: blames Elasticsearch', answer: 'Elasticsearch is the root cause: it is failing and search-api restarts when it cannot reach it. The liveness probe is configured correctly.' },
      { label: 'wrong', note: 'wrong cause with the scenario words', answer: 'search-api is OOMKilled under the morning load (the restarts end with a kill); raise its 3Gi memory limit.' },
      { label: 'wrong', note: 'negation of the probe', answer: 'The probes are fine — no liveness failure. The pods restart because of a bug that crashes the JVM.' },
      { label: 'wrong', note: 'raw output', answer: raw(`NAME                          READY   STATUS    RESTARTS      AGE\n${POD}   1/1     Running   9 (2m20s ago)   4d`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods', args: { namespace: 'search' } }, { tool: 'list_warning_events', args: { namespace: 'search' } }, { tool: 'get_pod_logs', args: { namespace: 'search', pod: POD, previous: true } }],
    facts: [new RegExp(`search/${POD}: .*restarts: 9; last termination: Error, exit code 143`), /Unhealthy \(x\d+\): Liveness probe failed: Get "http:\/\/[\d.]+:8080\/healthz": context deadline exceeded/, /healthz: elasticsearch cluster health took 2210ms/],
    absent: [/OOMKilled/, /elasticsearch-\w+-\w+:/],
    objects: [{ path: '/apis/apps/v1/namespaces/search/deployments/search-api', facts: [/"livenessProbe":\{"httpGet":\{"path":"\/healthz","port":8080,"scheme":"HTTP"\},"initialDelaySeconds":30,"timeoutSeconds":1/] }],
  },
};
