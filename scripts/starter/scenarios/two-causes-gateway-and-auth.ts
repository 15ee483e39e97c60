import { Cluster, appNamespace, baseCluster, configMap, crashLoopReplica, deployment, event, httpProbe, lines, linesAfter, replica, replicaSet, service, startedAt, webApp } from '../builder';
import { C, WRONG, raw, verdictBlock } from '../patterns';
import { podOf, waiting, type StarterScenario } from '../scenario';

/** One change window, two breakages: the gateway's routes file does not parse (crash loop), and the auth Service selects a label its pods no longer carry (no endpoints). */

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-two-causes-gateway-and-auth',
    name: 'Starter: the 14:00 change broke the gateway config and the auth Service selector',
    description: 'In the 14:00 change window, the api-gateway routes ConfigMap got a YAML indentation error (the gateway exits at start: crash loop; public API 502 from the load balancer), and the auth chart relabelled its pods app=auth while the Service auth still selects app=auth-service (no endpoints: logins fail with connection refused).',
    recordedAt: '2026-12-04T14:50:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'edge', '400d');
  appNamespace(c, 'identity', '400d');
  configMap(c, 'edge', 'gateway-routes', c.ago('400d'), ['routes.yaml']);
  const gwc = (image: string) => ({ name: 'gateway', image, args: ['--config=/etc/gateway/routes.yaml'], ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }], resources: { requests: { cpu: '250m', memory: '128Mi' }, limits: { memory: '256Mi' } }, readinessProbe: httpProbe('/ready', 'http'), volumeMounts: [{ name: 'routes', mountPath: '/etc/gateway' }] });
  const gw = deployment(c, { namespace: 'edge', name: 'api-gateway', replicas: 2, created: c.ago('400d'), rolled: c.ago('49m'), revision: 71, recreate: true, unavailableSince: '49m', extras: { volumes: [{ name: 'routes', configMap: { name: 'gateway-routes', defaultMode: 420 } }] }, containers: [gwc('ghcr.io/acme/api-gateway:2.7.0')] });
  for (const n of [nodes[0], nodes[1]]) {
    crashLoopReplica(c, gw.current, {
      node: n,
      created: '49m',
      container: 'gateway',
      image: 'ghcr.io/acme/api-gateway:2.7.0',
      restarts: 13,
      finishedAgo: `${c.int(`f/${n.name}`, 40, 260)}s`,
      ranMs: 300,
      exitCode: 1,
      log: (s) => linesAfter('iso', s, [[120, 'level=info msg="api-gateway 2.7.0 starting"'], [250, 'level=fatal msg="failed to load config" file=/etc/gateway/routes.yaml error="yaml: line 42: mapping values are not allowed in this context"']]),
    });
  }
  const auth = (labels: Record<string, string>) => labels;
  const ac = { name: 'auth', image: 'ghcr.io/acme/auth:8.0.0', ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }], resources: { requests: { cpu: '250m', memory: '512Mi' }, limits: { memory: '768Mi' } }, readinessProbe: httpProbe('/healthz', 'http') };
  const ad = deployment(c, { namespace: 'identity', name: 'auth', replicas: 2, created: c.ago('400d'), rolled: c.ago('50m'), revision: 3, labels: auth({ app: 'auth' }), containers: [ac] });
  replicaSet(c, ad, { revision: 2, replicas: 0, containers: [{ ...ac, image: 'ghcr.io/acme/auth:7.9.4' }], created: c.ago('30d') });
  for (const n of [nodes[1], nodes[2]]) {
    const p = replica(c, ad.current, { node: n, created: c.ago('50m') });
    c.log('identity', p.metadata.name, 'auth', { current: [...linesAfter('iso', startedAt(p), [[1800, 'auth 8.0.0 listening on :8080']]), ...lines(c, 'iso', [['25s', 'GET /healthz 200 0.6ms kube-probe/1.32']])] });
  }
  service(c, { namespace: 'identity', name: 'auth', selector: { app: 'auth-service' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }], created: c.ago('400d'), clusterIp: '172.20.19.77' });
  const web = webApp(c, { namespace: 'edge', name: 'web', image: 'ghcr.io/acme/web:6.2.0', replicas: 2, created: '400d', rolled: '6d', revision: 30 }, nodes.slice(1));
  for (const p of c.podsOf(web.current.uid)) {
    const log = c.logs.find((l) => l.pod === p.metadata.name);
    if (log?.current) log.current.push(...lines(c, 'iso', [['48m', 'ERROR login failed: Post "http://auth.identity.svc.cluster.local/v1/session": dial tcp 172.20.19.77:80: connect: connection refused'], ['11s', 'ERROR login failed: Post "http://auth.identity.svc.cluster.local/v1/session": dial tcp 172.20.19.77:80: connect: connection refused']]));
  }
  event(c, { on: ad.deploy, reason: 'ScalingReplicaSet', message: `Scaled up replica set ${ad.current.name} from 0 to 2`, first: '50m', component: 'deployment-controller' });
  return c;
}

const built = build();
const GW = podOf(built, 'edge', 'api-gateway-', waiting('CrashLoopBackOff'));
const CONFIG = String.raw`yaml|routes\.yaml|gateway-routes|route (file|config\w*)|config(uration)?( file| ?map)?`;

export const twoCausesGatewayAndAuth: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'two-causes-gateway-and-auth',
    title: 'Two causes: a gateway config that does not parse, and a Service selector that matches nothing',
    question: 'Since the 14:00 change window the public API answers 502 and nobody can log in on the website. Several teams changed things. What exactly is broken?',
    expected: [
      {
        finding: 'api-gateway crash-loops: its routes.yaml (ConfigMap gateway-routes) has a YAML error at line 42',
        any_of: [
          String.raw`(${CONFIG})\b.{0,60}\b(error|invalid|malformed|broken|bad|syntax|parse|indent\w*|typo|mistake)`,
          String.raw`(invalid|malformed|broken|bad|not valid|is ?n[o']t valid|unparsable|unparseable|corrupt\w*) (yaml|config\w*|route file|routes)`,
          String.raw`(can ?not|can't|cannot|fails? to|failed to|unable to|could ?n[o']t) (read|parse|load)\b.{0,40}\b(route|config|yaml)`,
          String.raw`line 42|mapping values are not allowed|(bad|wrong|broken) indentation`,
        ],
        all_of: [[String.raw`gateway`], [C.crashLoop, C.exitsAtStart]],
      },
      {
        finding: 'the auth Service selects app=auth-service, but the auth pods are now labelled app=auth: it has no endpoints, logins get connection refused',
        any_of: [
          C.noEndpoints,
          String.raw`(still )?(selects?|looks? for|targets?|points? at|matches on|searches for)\b.{0,40}\bauth-service`,
          String.raw`(pods?|auth)\b.{0,30}\b(now )?(labell?ed|carry|carries|have|has)\b.{0,20}\bapp=auth\b(?!-)`,
          String.raw`(relabel\w*|renam\w*) (the )?(pods?|labels?)`,
        ],
        all_of: [[String.raw`auth|log ?ins?\b`]],
      },
    ],
    must_not: [
      WRONG.oom,
      WRONG.imagePull,
      WRONG.netpol,
      WRONG.dnsDown,
      String.raw`auth (pods? |service |deployment )?(is |are )?(down|crash\w*|not ready|unhealthy|failing|not running)`,
      WRONG.insufficientCpu,
    ],
    tags: ['crash-loop', 'hard', 'service-no-endpoints', 'two-causes', 'change-window'],
    difficulty: 'hard',
    verdict: {
      healthy: false,
      causes: [
        { category: 'crash-loop', objects: ['deployment/edge/api-gateway', 'configmap/edge/gateway-routes'] },
        { category: 'service-no-endpoints', objects: ['service/identity/auth'] },
      ],
    },
    fixtures: [
      { label: 'correct', note: 'both causes', answer: `Two things broke. (1) api-gateway: both pods (e.g. ${GW}) are in CrashLoopBackOff; each start ends with "failed to load config … routes.yaml: yaml: line 42: mapping values are not allowed in this context" — the gateway-routes ConfigMap has a YAML error, hence the 502s. (2) Logins: Service identity/auth selects app=auth-service, but the auth 8.0 pods are labelled app=auth, so the Service has no endpoints and web gets "connection refused" on 172.20.19.77:80. Fix line 42 of routes.yaml, and change the selector (or the labels).` },
      { label: 'correct', note: 'other words', answer: 'The gateway cannot read its route file — a bad indentation makes the YAML invalid, so the process quits at start and keeps being restarted. Separately, the login service still looks for pods labelled auth-service while the new auth pods carry app=auth, so nothing sits behind it.' },
      { label: 'correct', note: 'with a two-cause verdict', answer: `api-gateway crash-loops on a YAML error in routes.yaml; Service auth selects app=auth-service and has no endpoints.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'crash-loop', objects: ['deployment/edge/api-gateway'] }, { category: 'service-no-endpoints', objects: ['service/identity/auth'] }], fix: 'fix routes.yaml line 42; fix the auth selector' })}` },
      { label: 'wrong', note: 'only one of the two causes', answer: 'api-gateway crash-loops on a YAML error at line 42 of routes.yaml; fix it and the API and logins will come back.' },
      { label: 'wrong', note: 'keywords, wrong cause for logins', answer: 'Logins fail because the auth pods are down; the auth Service selector is correct. The gateway crash-loops on its config.' },
      { label: 'wrong', note: 'negation of a cause', answer: 'The gateway config is valid YAML; the gateway is OOMKilled, and a network policy blocks auth.' },
      { label: 'wrong', note: 'raw output', answer: raw(`edge       ${GW}   0/1   CrashLoopBackOff   13   49m\nidentity   auth    <none>   (endpoints)`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods' }, { tool: 'get_pod_logs', args: { namespace: 'edge', pod: GW, previous: true } }, { tool: 'get_resources', args: { kind: 'svc', namespace: 'identity' } }, { tool: 'get_resources', args: { kind: 'endpoints', namespace: 'identity' } }],
    facts: [/identity\/auth: type ClusterIP clusterIP 172\.20\.19\.77 selector app=auth-service/, /identity\/auth: ready <none>/, new RegExp(`edge/${GW}: .*CrashLoopBackOff.*exit code 1`), /yaml: line 42: mapping values are not allowed in this context/],
    absent: [/identity\/auth-/],
    objects: [{ path: '/api/v1/namespaces/identity/services/auth', facts: [/"selector":\{"app":"auth-service"\}/] }, { path: '/api/v1/namespaces/identity/endpoints/auth', facts: [/^(?!.*"subsets")/] }],
  },
};
