import { Cluster, appNamespace, baseCluster, deployment, ingress, linesAfter, logStamp, replica, startedAt, webApp } from '../builder';
import { C, WRONG, raw, verdictBlock } from '../patterns';
import { podOf, type StarterScenario } from '../scenario';

/** A chart upgrade renamed the Service frontend to web-frontend; the Ingress still routes to frontend: nginx answers 503. */

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-ingress-backend-renamed',
    name: 'Starter: the Ingress routes to a Service that was renamed',
    description: 'The web chart 3.0 upgrade (28 minutes ago) renamed Service frontend to web-frontend. The Ingress shop-public, managed outside the chart, still sends shop.example.com to frontend:80, which no longer exists: ingress-nginx answers 503.',
    recordedAt: '2026-11-27T16:10:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'web', '420d');
  appNamespace(c, 'ingress-nginx', '420d');
  webApp(c, { namespace: 'web', name: 'web-frontend', image: 'ghcr.io/acme/web-frontend:3.0.0', replicas: 3, port: 3000, created: '28m', revision: 1, requestLog: 'GET /healthz 200 1ms kube-probe/1.32' }, nodes);
  ingress(c, { namespace: 'web', name: 'shop-public', created: c.ago('420d'), host: 'shop.example.com', service: 'frontend', port: 80 });
  const ctl = deployment(c, {
    namespace: 'ingress-nginx',
    name: 'ingress-nginx-controller',
    replicas: 1,
    created: c.ago('420d'),
    rolled: c.ago('33d'),
    revision: 12,
    labels: { 'app.kubernetes.io/name': 'ingress-nginx', 'app.kubernetes.io/component': 'controller' },
    extras: { serviceAccount: 'ingress-nginx' },
    containers: [{ name: 'controller', image: 'registry.k8s.io/ingress-nginx/controller:v1.12.1', args: ['/nginx-ingress-controller', '--publish-service=$(POD_NAMESPACE)/ingress-nginx-controller', '--ingress-class=nginx'], ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }, { name: 'https', containerPort: 443, protocol: 'TCP' }], resources: { requests: { cpu: '100m', memory: '90Mi' } } }],
  });
  const p = replica(c, ctl.current, { node: nodes[0], created: c.ago('33d') });
  const klog = (level: string, ago: string, text: string) => `${level}${logStamp.klog(c.clock.ago(ago))}       7 ${text}`;
  const access = (ago: string, path: string) => `203.0.113.${c.int(`ip/${ago}`, 2, 250)} - - ${logStamp.clf(c.clock.ago(ago))} "GET ${path} HTTP/2.0" 503 190 "-" "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6)" 41 0.000 [web-frontend-80] [] - - - - ${c.hex(`req/${ago}`, 32)}`;
  c.log('ingress-nginx', p.metadata.name, 'controller', {
    current: [
      ...linesAfter('klog', startedAt(p), [[2_000, 'main.go:205] "Creating API client" host="https://172.20.0.1:443"']]).map((l) => `I${l}`),
      klog('I', '28m', 'store.go:440] "Found valid IngressClass" ingress="web/shop-public" ingressclass="nginx"'),
      klog('W', '27m58s', 'controller.go:1216] Error obtaining Endpoints for Service "web/frontend": no object matching key "web/frontend" in local store'),
      klog('I', '27m58s', 'controller.go:193] "Configuration changes detected, backend reload required"'),
      klog('I', '27m57s', 'controller.go:213] "Backend successfully reloaded"'),
      access('27m40s', '/'),
      access('14m3s', '/products/summer-sale'),
      klog('W', '9m12s', 'controller.go:1216] Error obtaining Endpoints for Service "web/frontend": no object matching key "web/frontend" in local store'),
      access('51s', '/'),
      access('8s', '/cart'),
    ],
  });
  return c;
}

const built = build();
const CONTROLLER = podOf(built, 'ingress-nginx', 'ingress-nginx-controller-');
/** The old Service name alone, not the new web-frontend. */
const OLD_NAME = String.raw`(?<![\w-])frontend\b(?!-)`;

export const ingressBackendRenamed: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'ingress-backend-renamed',
    title: 'The Ingress routes to a Service that no longer exists',
    question: 'Since the web chart upgrade half an hour ago, shop.example.com answers "503 Service Temporarily Unavailable", yet all the web pods are running and ready. Why?',
    expected: [
      {
        finding: 'the Ingress shop-public sends traffic to Service frontend, which does not exist any more',
        any_of: [
          String.raw`${OLD_NAME}.{0,60}\b(${C.absent}|disappeared|vanished|gone)`,
          String.raw`(old|stale|wrong|previous|outdated|former|obsolete|dangling) (service |backend )?(name|service|backend|reference)`,
          String.raw`no object matching key`,
          String.raw`(non-?existent|missing|deleted|removed|renamed) (service|backend)`,
        ],
        all_of: [[String.raw`ingress|shop-public|\broute|routing|backend`]],
      },
      {
        finding: 'the chart renamed it web-frontend: point the Ingress backend at web-frontend (port 80)',
        any_of: [
          String.raw`(renam\w*|now (called|named)|new name|became|replaced by)\b.{0,40}\bweb-frontend`,
          String.raw`(point|change|update|switch|set|edit|fix|patch|use|move|rout)\w*\b.{0,60}\bweb-frontend`,
          String.raw`web-frontend\b.{0,30}\b(instead|is the new name|is its new name)`,
        ],
      },
    ],
    must_not: [
      WRONG.crashLoop,
      WRONG.probe,
      String.raw`readiness\w*.{0,30}fail\w*`,
      WRONG.netpol,
      WRONG.dnsDown,
      String.raw`web-frontend (pods? )?(is |are )?(down|unready|not ready|failing|crash\w*|unhealthy)`,
      String.raw`ingress(-nginx)?( controller)? (is |was )?(\w+ and )?(down|broken|crash\w*|overloaded|misconfigured)`,
      WRONG.imagePull,
    ],
    tags: ['service-no-endpoints', 'medium', 'ingress', 'services', 'logs'],
    difficulty: 'medium',
    verdict: { healthy: false, causes: [{ category: 'service-no-endpoints', objects: ['ingress/web/shop-public', 'service/web/web-frontend'] }] },
    fixtures: [
      { label: 'correct', note: 'the controller log explained', answer: `The pods are fine; the routing is not. Ingress web/shop-public still points shop.example.com at Service frontend:80, and the chart upgrade renamed that Service to web-frontend. ingress-nginx logs "Error obtaining Endpoints for Service \\"web/frontend\\": no object matching key" and answers 503 for every request. Change the Ingress backend to web-frontend (port 80).` },
      { label: 'correct', note: 'other words', answer: 'Traffic never reaches the new pods: the public route was written for the old service name, frontend, which disappeared in the upgrade. Update the ingress rule to use web-frontend instead.' },
      { label: 'correct', note: 'with a verdict', answer: `The Ingress shop-public routes to Service frontend, which no longer exists (renamed web-frontend).\n\n${verdictBlock({ healthy: false, causes: [{ category: 'service-no-endpoints', objects: ['ingress/web/shop-public'] }], fix: 'set the Ingress backend service to web-frontend:80' })}` },
      { label: 'wrong', note: 'keywords, wrong diagnosis: blames the pods', answer: 'ingress-nginx returns 503 because the web-frontend pods are not ready: their readiness probe fails on port 3000. The Ingress backend is correct.' },
      { label: 'wrong', note: 'wrong component', answer: 'The ingress-nginx controller is overloaded and crash-looping, so every request gets a 503.' },
      { label: 'wrong', note: 'negation of the cause', answer: 'The Ingress is fine and frontend exists; a network policy blocks ingress-nginx from the web namespace.' },
      { label: 'wrong', note: 'raw log only', answer: raw(`W1127 15:42:02.000000       7 controller.go:1216] Error obtaining Endpoints for Service "web/frontend": no object matching key "web/frontend" in local store`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods' }, { tool: 'get_pod_logs', args: { namespace: 'ingress-nginx', pod: CONTROLLER } }],
    facts: [/All \d+ pods in all namespaces look healthy/, /Error obtaining Endpoints for Service "web\/frontend": no object matching key "web\/frontend" in local store/, /"GET \/cart HTTP\/2\.0" 503/],
    objects: [{ path: '/apis/networking.k8s.io/v1/namespaces/web/ingresses/shop-public', facts: [/"service":\{"name":"frontend","port":\{"number":80\}\}/] }, { path: '/api/v1/namespaces/web/services', facts: [/"name":"web-frontend"/] }],
  },
};
