import { Cluster, appNamespace, baseCluster, claim, cronJob, cronJobName, deployment, event, evictedReplica, job, jobPod, lines, linesAfter, replica, service, stamp, startedAt, statefulSet, volume, webApp } from '../builder';
import { C, raw, verdictBlock } from '../patterns';
import type { StarterScenario } from '../scenario';

/** Nothing is wrong — but the cluster is noisy: old restarts, a leftover Evicted pod, Completed jobs, a claim waiting for a consumer, warnings from a finished rollout. */

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-healthy-noisy',
    name: 'Starter: a noisy but healthy cluster',
    description: 'Everything serves. The noise: cart rolled out 39 minutes ago (two readiness warnings while its new pods started, the page that woke someone), a catalog pod restarted three times during a node reboot six days ago, an Evicted storefront pod left from five days ago, Completed pods of the nightly cleanup job, and a sandbox claim waiting for its first consumer (the sandbox database is scaled to zero on purpose).',
    recordedAt: '2026-12-03T14:30:00Z',
  });
  const { nodes } = baseCluster(c, { system: true });
  for (const ns of [['shop', '500d'], ['batch', '400d'], ['monitoring', '400d'], ['sandbox', '30d']] as const) appNamespace(c, ns[0], ns[1]);
  const sf = webApp(c, { namespace: 'shop', name: 'storefront', image: 'ghcr.io/acme/storefront:2.4.3', replicas: 3, created: '500d', rolled: '9d', revision: 6, requestLog: 'GET /product/4412 200 61ms' }, nodes);
  evictedReplica(c, sf.current, { node: nodes[0], created: '9d', at: '5d2h', seed: 'evicted', container: 'storefront', message: 'The node was low on resource: ephemeral-storage. Threshold quantity: 4281126329, available: 3892410Ki. Container storefront was using 3221228Ki, request is 0, has larger consumption of ephemeral-storage. ' });
  const cart = webApp(c, { namespace: 'shop', name: 'cart', image: 'ghcr.io/acme/cart:1.10.0', replicas: 2, created: '500d', rolled: '39m', revision: 12 }, [nodes[1], nodes[2]]);
  for (const p of c.podsOf(cart.current.uid)) {
    const host = String((p.spec as { nodeName: string }).nodeName);
    event(c, { on: p, reason: 'Unhealthy', type: 'Warning', message: `Readiness probe failed: Get "http://${(p.status as { podIP: string }).podIP}:8080/healthz": dial tcp ${(p.status as { podIP: string }).podIP}:8080: connect: connection refused`, first: '38m55s', component: 'kubelet', host, fieldPath: 'spec.containers{cart}' });
  }
  event(c, { on: cart.deploy, reason: 'ScalingReplicaSet', message: `Scaled up replica set ${cart.current.name} from 0 to 1`, first: '39m', component: 'deployment-controller' });
  const catalog = deployment(c, { namespace: 'shop', name: 'catalog', replicas: 2, created: c.ago('500d'), rolled: c.ago('12d'), revision: 44, containers: [{ name: 'catalog', image: 'ghcr.io/acme/catalog:9.2.0', ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }], resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '1Gi' } } }] });
  const steady = replica(c, catalog.current, { node: nodes[2], created: c.ago('12d') });
  // Restarted three times while its node rebooted six days ago (the kubelet saw the containers end as Unknown).
  const rebooted = replica(c, catalog.current, { node: nodes[0], created: c.ago('12d'), states: { catalog: { state: { running: c.ago('6d1h') }, restarts: 3, last: { startedAt: c.ago('6d1h8m'), finishedAt: c.ago('6d1h2m'), exitCode: 255, reason: 'Unknown' } } } });
  for (const p of [steady, rebooted]) c.log('shop', p.metadata.name, 'catalog', { current: [...linesAfter('iso', startedAt(p), [[1500, 'catalog 9.2.0 listening on :8080']]), ...lines(c, 'iso', [[`${c.int(`r/${p.metadata.name}`, 5, 50)}s`, 'GET /v2/products/44120 200 9ms']])] });
  service(c, { namespace: 'shop', name: 'catalog', selector: { app: 'catalog' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }], created: c.ago('500d') });
  const cleanupSpec = { name: 'cleanup', image: 'ghcr.io/acme/ops-tools:3.1.0', args: ['cleanup', '--older-than=30d'] };
  const cj = cronJob(c, { namespace: 'batch', name: 'nightly-cleanup', schedule: '15 3 * * *', created: c.ago('400d'), containers: [cleanupSpec], lastSchedule: stamp(Date.UTC(2026, 11, 3, 3, 15)), lastSuccess: stamp(Date.UTC(2026, 11, 3, 3, 17)) });
  for (const d of [2, 1, 0]) {
    const start = Date.UTC(2026, 11, 3, 3, 15) - d * 86_400_000;
    const j = job(c, { namespace: 'batch', name: cronJobName('nightly-cleanup', start), created: stamp(start), owner: cj, containers: [cleanupSpec], end: { complete: `${Math.round((c.clock.rec - start - 125_000) / 1000)}s` } });
    const p = jobPod(c, j, { node: nodes[d as 0 | 1 | 2], created: stamp(start), states: { cleanup: { state: { terminated: { startedAt: stamp(start + 4_000), finishedAt: stamp(start + 120_000), exitCode: 0, reason: 'Completed' } } } } });
    c.log('batch', p.metadata.name, 'cleanup', { current: linesAfter('py', start + 4_000, [[600, 'INFO cleanup: scanning s3://acme-tmp/'], [110_000, `INFO cleanup: removed ${1200 + d * 37} objects older than 30d`]]) });
  }
  const prom = statefulSet(c, { namespace: 'monitoring', name: 'prometheus', replicas: 1, created: c.ago('400d'), containers: [{ name: 'prometheus', image: 'quay.io/prometheus/prometheus:v3.0.1', ports: [{ name: 'web', containerPort: 9090, protocol: 'TCP' }], resources: { requests: { cpu: '500m', memory: '2Gi' }, limits: { memory: '4Gi' } } }] });
  const pvc = claim(c, { namespace: 'monitoring', name: 'data-prometheus-0', created: c.ago('400d'), storageClass: 'gp3', size: '100Gi', volume: 'pvc-71d0a5e2-3b4c-4d9e-8f1a-2b3c4d5e6f70' });
  volume(c, { name: 'pvc-71d0a5e2-3b4c-4d9e-8f1a-2b3c4d5e6f70', created: c.ago('400d'), claim: pvc, zone: nodes[1].zone, size: '100Gi', storageClass: 'gp3' });
  const pp = replica(c, prom, { node: nodes[1], created: c.ago('20d'), volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-prometheus-0' } }] });
  c.log('monitoring', pp.metadata.name, 'prometheus', { current: [`time=${new Date(startedAt(pp) + 3000).toISOString()} level=INFO source=main.go:1371 msg="Server is ready to receive web requests."`, `time=${new Date(c.clock.ago('28m')).toISOString()} level=INFO source=head.go:1402 msg="Head GC completed" component=tsdb duration=412.57ms`] });
  statefulSet(c, { namespace: 'sandbox', name: 'sandbox-db', replicas: 0, created: c.ago('30d'), containers: [{ name: 'postgres', image: 'postgres:16.4' }] });
  const waiting = claim(c, { namespace: 'sandbox', name: 'data-sandbox-db-0', created: c.ago('30d'), storageClass: 'gp3', size: '20Gi' });
  event(c, { on: waiting, reason: 'WaitForFirstConsumer', message: 'waiting for first consumer to be created before binding', first: '30d', last: '4m', count: 2890, component: 'persistentvolume-controller' });
  return c;
}

const NO_FAULT = [
  String.raw`(is|are|keeps?) (now |currently |still )?(crash[ -]?loop\w*|crashing)`,
  String.raw`OOM[ -]?kill\w*|out of memory`,
  String.raw`ImagePullBackOff|ErrImagePull`,
  String.raw`(node|ip-10-\S+)\b.{0,40}(is|are) (now |currently |still )?(not ?ready|under (disk |memory )?pressure|out of disk)`,
  String.raw`(pvc|claim|data-sandbox-db-0)\b.{0,40}(is )?(broken|a problem|an issue|needs? (a )?fix|fail\w*)|storage (is )?(broken|failing)`,
  String.raw`(sandbox-db|claim|pvc|volume)\b.{0,40}(can ?not|can't|cannot|never) (start|bind|be bound)|(create|provision)\w* (a )?(pv|persistent ?volume|storage ?class)\b`,
  String.raw`readiness probe (is|keeps|are) (still )?fail\w*|(cart|catalog|storefront)\b.{0,20}(is|are) (still )?(down|failing|broken|unhealthy|restarting)`,
  String.raw`(roll ?back|restart|redeploy) (the )?(cart|catalog|storefront)`,
];

export const healthyNoisy: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'healthy-noisy',
    title: 'A noisy but healthy cluster (the correct answer: nothing is wrong)',
    question: 'Someone was paged by a "pods not ready" alert about 40 minutes ago and it cleared by itself. Looking around, we see restarts, an Evicted pod and a Pending volume claim. Is anything actually wrong right now?',
    expected: [{ finding: 'nothing is wrong now: the restarts, the eviction and the warnings are history, the Pending claim and the Completed pods are expected', any_of: C.allClear }],
    must_not: NO_FAULT,
    tags: ['none', 'hard', 'noisy', 'red-herring', 'healthy'],
    difficulty: 'hard',
    verdict: { healthy: true, causes: [] },
    fixtures: [
      { label: 'correct', note: 'every piece of noise explained', answer: 'Nothing is wrong right now. All three nodes are Ready, every Deployment and StatefulSet has its desired replicas ready, and there are no recent Warning events except two from cart\'s rollout 39 minutes ago: its new pods refused the first readiness check while starting, which is what paged you, and they have been ready since. The catalog restarts (last state Unknown, exit 255) are from the node reboot six days ago; the Evicted storefront pod is a leftover from five days ago and can be deleted; the Completed pods are the nightly-cleanup jobs; data-sandbox-db-0 is Pending by design (WaitForFirstConsumer) because sandbox-db is scaled to zero.' },
      { label: 'correct', note: 'short, with a negation that must not count as a fault', answer: 'The cluster is healthy: no pods are failing and no node is under pressure. The alert came from cart\'s rollout, which finished within a minute; the rest is history (old restarts, an old eviction) or expected (Completed jobs, a claim waiting for its consumer).' },
      { label: 'correct', note: 'with a healthy verdict', answer: `Healthy — only leftovers and expected states.\n\n${verdictBlock({ healthy: true, causes: [], fix: 'nothing; optionally delete the old Evicted pod' })}` },
      { label: 'wrong', note: 'false alarm: the waiting claim', answer: 'Yes: data-sandbox-db-0 is Pending, the storage is broken and needs a fix — check the gp3 StorageClass and the EBS CSI driver.' },
      { label: 'wrong', note: 'false alarm: old restarts read as a crash loop', answer: 'The catalog pod is crash-looping (3 restarts); restart the catalog deployment and look at its logs.' },
      { label: 'wrong', note: 'false alarm: an old eviction read as a current node problem', answer: 'Node ip-10-0-1-21 is under disk pressure: it evicted storefront, and more evictions will follow.' },
      { label: 'wrong', note: 'false alarm: resolved warnings read as current', answer: 'cart is failing its readiness probe (connection refused); roll back cart to the previous version.' },
      { label: 'wrong', note: 'raw output, no conclusion', answer: raw('NAMESPACE   NAME                          READY   STATUS      RESTARTS     AGE\nshop        storefront-…-…                0/1     Evicted     0            9d\nshop        catalog-…-…                   1/1     Running     3 (6d ago)   12d\nbatch       nightly-cleanup-…-…           0/1     Completed   0            11h') },
    ],
  },
  proof: {
    calls: [{ tool: 'get_node_conditions' }, { tool: 'list_unavailable_deployments' }, { tool: 'list_unhealthy_pods' }, { tool: 'list_warning_events' }],
    facts: [/3 nodes, 0 with problems/, /are fully available/, /shop\/storefront-\w+-\w+: phase Failed.*Evicted/, /Unhealthy: Readiness probe failed/],
    absent: [/CrashLoopBackOff|ImagePullBackOff|OOMKilled|unschedulable/],
  },
};
