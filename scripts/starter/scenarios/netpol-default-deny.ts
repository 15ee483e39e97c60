import { Cluster, appNamespace, baseCluster, claim, deployment, event, httpProbe, lines, linesAfter, networkPolicy, replica, service, stamp, startedAt, statefulSet, volume } from '../builder';
import { WRONG, raw, verdictBlock } from '../patterns';
import { podOf, type StarterScenario } from '../scenario';

/** A default-deny ingress policy added to the data namespace: orders-api's connections to postgres time out. */

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-netpol-default-deny',
    name: 'Starter: a default-deny NetworkPolicy cuts orders-api off its database',
    description: 'The security hardening applied default-deny-ingress to the data namespace 42 minutes ago, with an allow rule for monitoring only. orders-api (namespace shop) can no longer open connections to orders-db: they time out, its readiness fails and the shop cannot take orders. The database is healthy.',
    recordedAt: '2026-11-28T10:20:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'shop', '600d');
  appNamespace(c, 'data', '600d');
  networkPolicy(c, { namespace: 'data', name: 'default-deny-ingress', created: c.ago('42m'), podSelector: {}, policyTypes: ['Ingress'], annotations: { 'acme.io/change': 'SEC-2291 namespace hardening' } });
  networkPolicy(c, { namespace: 'data', name: 'allow-monitoring', created: c.ago('42m'), podSelector: {}, policyTypes: ['Ingress'], ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }], ports: [{ protocol: 'TCP', port: 9187 }] }] });

  const db = statefulSet(c, { namespace: 'data', name: 'orders-db', replicas: 1, created: c.ago('600d'), claims: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'gp3', resources: { requests: { storage: '100Gi' } } } }], containers: [{ name: 'postgres', image: 'postgres:16.4', ports: [{ name: 'postgres', containerPort: 5432, protocol: 'TCP' }], resources: { requests: { cpu: '1', memory: '4Gi' }, limits: { memory: '4Gi' } } }, { name: 'exporter', image: 'quay.io/prometheuscommunity/postgres-exporter:v0.16.0', ports: [{ name: 'metrics', containerPort: 9187, protocol: 'TCP' }] }] });
  const pvc = claim(c, { namespace: 'data', name: 'data-orders-db-0', created: c.ago('600d'), storageClass: 'gp3', size: '100Gi', volume: 'pvc-9a1e2c77-41f0-4e0b-8d2c-7b3a5f6e1d20' });
  volume(c, { name: 'pvc-9a1e2c77-41f0-4e0b-8d2c-7b3a5f6e1d20', created: c.ago('600d'), claim: pvc, zone: nodes[2].zone, size: '100Gi', storageClass: 'gp3' });
  const pg = replica(c, db, { node: nodes[2], created: c.ago('19d'), volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-orders-db-0' } }] });
  c.log('data', pg.metadata.name, 'postgres', { current: [...linesAfter('pg', startedAt(pg, 'postgres'), [[1200, '[1] LOG:  database system is ready to accept connections']]), ...lines(c, 'pg', [['43m10s', '[88121] LOG:  checkpoint complete: wrote 4121 buffers (3.1%); 0 WAL file(s) added, 0 removed, 2 recycled'], ['13m10s', '[88121] LOG:  checkpoint complete: wrote 212 buffers (0.2%); 0 WAL file(s) added, 0 removed, 1 recycled']])] });
  service(c, { namespace: 'data', name: 'orders-db', selector: { app: 'orders-db' }, ports: [{ name: 'postgres', port: 5432, targetPort: 'postgres' }], created: c.ago('600d'), clusterIp: '172.20.88.14' });

  const api = deployment(c, { namespace: 'shop', name: 'orders-api', replicas: 3, created: c.ago('600d'), rolled: c.ago('8d'), revision: 41, unavailableSince: '40m', containers: [{ name: 'orders-api', image: 'ghcr.io/acme/orders-api:3.9.1', env: [{ name: 'DB_URL', value: 'jdbc:postgresql://orders-db.data.svc.cluster.local:5432/orders' }], ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }], resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { memory: '1536Mi' } }, readinessProbe: httpProbe('/actuator/health/readiness', 'http') }] });
  for (let i = 0; i < 3; i++) {
    const n = nodes[i as 0 | 1 | 2];
    const p = replica(c, api.current, { node: n, created: c.ago('8d'), notReadySince: `${41 - i}m`, states: { 'orders-api': { state: { running: stamp(c.clock.ago('8d') + 7000), ready: false } } } });
    c.log('shop', p.metadata.name, 'orders-api', {
      current: [
        ...linesAfter('iso', startedAt(p), [[9_800, 'INFO  [main] c.a.orders.OrdersApplication : Started OrdersApplication in 9.4 seconds']]),
        ...lines(c, 'iso', [
          [`${41 - i}m30s`, 'WARN  [HikariPool-1 housekeeper] com.zaxxer.hikari.pool.HikariPool : HikariPool-1 - Failed to validate connection org.postgresql.jdbc.PgConnection@5c1e1a2f (This connection has been closed.)'],
          [`${41 - i}m`, 'ERROR [http-nio-8080-exec-7] o.h.engine.jdbc.spi.SqlExceptionHelper : HikariPool-1 - Connection is not available, request timed out after 30000ms.'],
          ['', 'org.postgresql.util.PSQLException: The connection attempt failed.'],
          ['', 'Caused by: java.net.SocketTimeoutException: Connect timed out'],
          [`${c.int(`l/${i}`, 20, 90)}s`, 'ERROR [http-nio-8080-exec-2] o.h.engine.jdbc.spi.SqlExceptionHelper : HikariPool-1 - Connection is not available, request timed out after 30000ms.'],
        ]),
      ],
    });
    event(c, { on: p, reason: 'Unhealthy', type: 'Warning', message: 'Readiness probe failed: HTTP probe failed with statuscode: 503', first: `${41 - i}m`, last: `${c.int(`u/${i}`, 3, 30)}s`, count: 240, component: 'kubelet', host: n.name, fieldPath: 'spec.containers{orders-api}' });
  }
  service(c, { namespace: 'shop', name: 'orders-api', selector: { app: 'orders-api' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }], created: c.ago('600d') });
  return c;
}

const built = build();
const API = podOf(built, 'shop', 'orders-api-');
const POLICY = String.raw`network ?polic\w*|netpol|default-deny(-ingress)?|deny[- ]all|firewall|\bpolicy`;
const BLOCKS = String.raw`block\w*|den(y|ies|ied)|drop\w*|\bcut|reject\w*|filter\w*|no (allow|rule)|does ?n[o']t (allow|admit|let)|only (allow\w*|admits?|lets?)|prevent\w*|isolat\w*|shut\w* out`;

export const netpolDefaultDeny: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'netpol-default-deny',
    title: 'A default-deny NetworkPolicy blocks the app from its database',
    question: 'Orders have been failing for about 40 minutes: orders-api in the shop namespace says it cannot get a database connection, but the DBA says orders-db in the data namespace is up and idle. What is wrong?',
    expected: [
      {
        finding: 'orders-api cannot open connections to orders-db: they time out (its pods are not ready)',
        any_of: [String.raw`time[sd]? ?out|timeout|timing out|SocketTimeout|\bhang\w*|unreachable|no (tcp )?connection (is )?(ever )?(made|established)|(packets|SYNs?|connections?) (are |get )?(silently )?dropped`],
        all_of: [[String.raw`orders-api|connect\w*|db calls?|database|orders-db|\bdb\b|postgres`]],
      },
      {
        finding: 'the NetworkPolicy default-deny-ingress added to the data namespace ~40 minutes ago blocks ingress to orders-db from shop (only monitoring is allowed)',
        any_of: [
          String.raw`(${POLICY})\b.{0,120}\b(${BLOCKS})`,
          String.raw`(${BLOCKS})\b.{0,120}\b(${POLICY})`,
          String.raw`(den(y|ies|ied)|block\w*|drop\w*|reject\w*) (all )?(incoming|ingress|inbound)( traffic)?`,
          String.raw`(dropped|blocked|filtered|refused) (at|by) (the )?(network|policy|firewall)`,
          String.raw`(only|just) (allows?|admits?|lets?) (in )?(traffic )?(from )?(the )?monitoring`,
          String.raw`nothing (allows?|lets?|admits?) (the )?(shop|orders-api)`,
        ],
      },
    ],
    must_not: [
      WRONG.password,
      String.raw`(can ?not|can't|cannot|fails? to) (log ?in|authenticate)|authentication (fails|failed|error)|(reject\w*|refus\w*|den(y|ies|ied))\b.{0,30}\blog ?ins?\b|password (was |has been |got )?(changed|rotated|reset)`,
      WRONG.dnsDown,
      String.raw`orders-db\b.{0,20}(is |was )?(down|crash\w*|overloaded|out of connections|full|the (root )?cause|unhealthy|not running)`,
      String.raw`readiness probe (is )?(misconfigured|wrong)`,
      WRONG.oom,
      WRONG.quota,
      String.raw`max_connections|too many (connections|clients)|(ran|run|runs|running) out of connections`,
    ],
    tags: ['network-policy', 'medium', 'database', 'security-change', 'logs'],
    difficulty: 'medium',
    verdict: { healthy: false, causes: [{ category: 'network-policy', objects: ['networkpolicy/data/default-deny-ingress', 'deployment/shop/orders-api'] }] },
    fixtures: [
      { label: 'correct', note: 'symptom and policy', answer: `orders-api's pods (e.g. ${API}) are Running but not ready: every DB call ends in "Connection is not available, request timed out after 30000ms … SocketTimeoutException: Connect timed out". orders-db is healthy. 42 minutes ago the NetworkPolicy default-deny-ingress (SEC-2291) was applied to the data namespace with a single allow rule, for monitoring on 9187 — nothing allows shop → orders-db:5432, so the SYNs are dropped. Add a policy allowing ingress from namespace shop (app=orders-api) on TCP 5432.` },
      { label: 'correct', note: 'other words', answer: 'The database is fine; the network in front of it is not. Since this morning\'s hardening, the data namespace denies all incoming traffic except from monitoring, so orders-api\'s connection attempts just hang until they time out. Allow the shop namespace to reach postgres on 5432.' },
      { label: 'correct', note: 'with a verdict', answer: `A default-deny NetworkPolicy in data blocks orders-api → orders-db (connect timeouts).\n\n${verdictBlock({ healthy: false, causes: [{ category: 'network-policy', objects: ['networkpolicy/data/default-deny-ingress'] }], fix: 'allow ingress from namespace shop to orders-db on 5432' })}` },
      { label: 'wrong', note: 'keywords, wrong cause: the database is out of connections; clears the policy', answer: 'orders-db has run out of connections (max_connections reached), so orders-api times out. The network policies are fine — they allow the shop namespace.' },
      { label: 'wrong', note: 'wrong cause', answer: 'orders-api cannot log in: the database password was rotated and authentication fails.' },
      { label: 'wrong', note: 'negation of the cause', answer: 'No network policy blocks anything here; DNS for orders-db.data.svc.cluster.local is broken, so the connections time out.' },
      { label: 'wrong', note: 'raw log only', answer: raw(`ERROR [http-nio-8080-exec-7] HikariPool-1 - Connection is not available, request timed out after 30000ms.\norg.postgresql.util.PSQLException: The connection attempt failed.\nCaused by: java.net.SocketTimeoutException: Connect timed out`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods', args: { namespace: 'shop' } }, { tool: 'get_pod_logs', args: { namespace: 'shop', pod: API } }, { tool: 'list_unavailable_deployments' }, { tool: 'get_resources', args: { kind: 'netpol', namespace: 'data' } }],
    facts: [new RegExp(`shop/${API}: phase Running.*not ready`), /SocketTimeoutException: Connect timed out/, /shop\/orders-api: 0\/3 available/, /data\/default-deny-ingress: podSelector \(all pods\) policyTypes \["Ingress"\] ingress none allowed/, /data\/allow-monitoring: .*ingress \[namespaces kubernetes\.io\/metadata\.name=monitoring ports TCP\/9187\]/],
    absent: [/data\/orders-db-0/],
    objects: [{ path: '/apis/networking.k8s.io/v1/namespaces/data/networkpolicies', facts: [/"name":"default-deny-ingress".{0,600}"podSelector":\{\},"policyTypes":\["Ingress"\]/, /"name":"allow-monitoring"/] }],
  },
};
