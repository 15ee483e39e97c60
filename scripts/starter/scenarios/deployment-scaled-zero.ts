import { Cluster, appNamespace, baseCluster, deployment, event, lines, linesAfter, service, startedAt, webApp } from '../builder';
import { C, WRONG, raw, verdictBlock } from '../patterns';
import { podOf, type StarterScenario } from '../scenario';

/** Someone scaled a deployment to zero: its Service has no endpoints, and its clients get "connection refused". */

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-deployment-scaled-zero',
    name: 'Starter: recommendations scaled to zero replicas',
    description: 'recommendations was scaled from 3 to 0 replicas 35 minutes ago (a manual scale during a load test clean-up). Its Service has no endpoints; storefront\'s calls are refused and it hides the recommendation widget.',
    recordedAt: '2026-11-27T12:30:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'shop', '500d');
  const d = deployment(c, {
    namespace: 'shop',
    name: 'recommendations',
    replicas: 0,
    created: c.ago('500d'),
    rolled: c.ago('12d'),
    revision: 19,
    containers: [{ name: 'recommendations', image: 'ghcr.io/acme/recommendations:4.0.2', ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }], resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { memory: '2Gi' } } }],
  });
  event(c, { on: d.deploy, reason: 'ScalingReplicaSet', message: `Scaled down replica set ${d.current.name} from 3 to 0`, first: '35m', component: 'deployment-controller' });
  service(c, { namespace: 'shop', name: 'recommendations', selector: { app: 'recommendations' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }], created: c.ago('500d'), clusterIp: '172.20.41.7' });
  const sf = webApp(c, { namespace: 'shop', name: 'storefront', image: 'ghcr.io/acme/storefront:2.4.3', replicas: 2, created: '500d', rolled: '9d', revision: 6, requestLog: 'GET /product/4412 200 61ms' }, nodes);
  for (const rs of sf.replicaSets) {
    for (const p of c.podsOf(rs.uid)) {
      const log = c.logs.find((l) => l.pod === p.metadata.name);
      if (log?.current) {
        log.current = [
          ...linesAfter('iso', startedAt(p), [[900, 'storefront 2.4.3 listening on :8080']]),
          ...lines(c, 'iso', ['34m50s', '21m', '9m12s', '40s'].map((ago) => [ago, 'WARN recommendations unavailable, widget hidden: Get "http://recommendations.shop.svc.cluster.local/api/v1/recs?user=anon": dial tcp 172.20.41.7:80: connect: connection refused'] as [string, string])),
          ...lines(c, 'iso', [['12s', 'GET /product/4412 200 61ms']]),
        ];
      }
    }
  }
  webApp(c, { namespace: 'shop', name: 'cart', image: 'ghcr.io/acme/cart:1.9.2', replicas: 2, created: '500d', rolled: '6d', revision: 4 }, nodes.slice(1));
  return c;
}

const built = build();
const STOREFRONT = podOf(built, 'shop', 'storefront-');

export const deploymentScaledZero: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'deployment-scaled-zero',
    title: 'A Service with no endpoints: its deployment was scaled to zero',
    question: 'The "recommended for you" panel vanished from the shop about half an hour ago. Nothing is crashing. What happened?',
    expected: [
      {
        finding: 'the recommendations Service has no endpoints: storefront\'s calls to it are refused',
        any_of: [C.noEndpoints, String.raw`connection refused|ECONNREFUSED|(calls?|requests?|connections?)\b.{0,40}\b(refused|rejected)`],
        all_of: [[String.raw`recommendations|(its|the) service`]],
      },
      {
        finding: 'the recommendations deployment was scaled to 0 replicas 35 minutes ago: scale it back up',
        any_of: [
          String.raw`(scaled|scale|set|turned|dropped|brought|reduced)\w*( it| them)?( down| back)?( down)?\W{1,3}(to|at) (0|zero)\b`,
          String.raw`\b(0|zero|no) (running )?(replicas|pods)\b`,
          String.raw`replicas\W{1,3}(to |= ?|: ?)?0\b|\b0/0\b`,
          String.raw`scaled (it |them )?(all the way )?down|turned (\w+ )?off|switched (\w+ )?off|shut (\w+ )?(off|down)`,
          String.raw`(replica count|replicas|desired)\b.{0,20}\b(0|zero)\b`,
        ],
        all_of: [[String.raw`recommendations`]],
      },
    ],
    must_not: [
      WRONG.selector,
      WRONG.crashLoop,
      WRONG.netpol,
      WRONG.dnsDown,
      WRONG.oom,
      WRONG.imagePull,
      WRONG.insufficientCpu,
      String.raw`(recommendations|pods?)\b.{0,30}(are |is )?(failing (their )?readiness|not ready|unhealthy)`,
    ],
    tags: ['service-no-endpoints', 'easy', 'services', 'scaling'],
    difficulty: 'easy',
    verdict: { healthy: false, causes: [{ category: 'service-no-endpoints', objects: ['deployment/shop/recommendations', 'service/shop/recommendations'] }] },
    fixtures: [
      { label: 'correct', note: 'the scale event and the empty endpoints', answer: 'recommendations has no pods: the deployment was scaled down from 3 to 0 replicas 35 minutes ago (ScalingReplicaSet event), so Service shop/recommendations has no endpoints and storefront\'s calls to 172.20.41.7:80 get "connection refused"; storefront then hides the widget. Scale it back: kubectl scale deploy/recommendations -n shop --replicas=3.' },
      { label: 'correct', note: 'other words', answer: 'Somebody turned recommendations off — its deployment is at zero replicas, so there is nothing behind its service and storefront gives up on the panel. Set the replica count back to three.' },
      { label: 'correct', note: 'with a verdict', answer: `recommendations is scaled to 0: its Service has no endpoints.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'service-no-endpoints', objects: ['deployment/shop/recommendations', 'service/shop/recommendations'] }], fix: 'scale recommendations back to 3 replicas' })}` },
      { label: 'wrong', note: 'keywords, wrong mechanism: a selector mismatch', answer: 'The recommendations Service has no endpoints because its selector does not match the pods\' labels; the replica count is fine.' },
      { label: 'wrong', note: 'wrong cause', answer: 'A network policy blocks storefront from reaching recommendations: connection refused.' },
      { label: 'wrong', note: 'negation of the cause', answer: 'recommendations is not scaled down; its pods are crash-looping, which is why the Service has no endpoints.' },
      { label: 'wrong', note: 'raw log only', answer: raw(`WARN recommendations unavailable, widget hidden: Get "http://recommendations.shop.svc.cluster.local/api/v1/recs?user=anon": dial tcp 172.20.41.7:80: connect: connection refused`, 'storefront logs:') },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods', args: { namespace: 'shop' } }, { tool: 'get_pod_logs', args: { namespace: 'shop', pod: STOREFRONT } }, { tool: 'get_resources', args: { kind: 'deploy', namespace: 'shop', name: 'recommendations' } }, { tool: 'get_resources', args: { kind: 'ep', namespace: 'shop', name: 'recommendations' } }],
    facts: [/All \d+ pods in namespace shop look healthy/, /recommendations unavailable.*dial tcp 172\.20\.41\.7:80: connect: connection refused/, /shop\/recommendations: replicas 0 ready 0/, /shop\/recommendations: ready <none>/],
    objects: [{ path: '/apis/apps/v1/namespaces/shop/deployments/recommendations', facts: [/"spec":\{"replicas":0/] }, { path: '/api/v1/namespaces/shop/endpoints/recommendations', facts: [/^(?!.*"subsets")/] }, { path: '/api/v1/namespaces/shop/events', facts: [/Scaled down replica set recommendations-\w+ from 3 to 0/] }],
  },
};
