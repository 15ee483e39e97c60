import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeReader } from '../../src-main/agents/builtin/kube-client';
import { KUBERNETES_TOOLS } from '../../src-main/agents/builtin/tools';
import { scoreAnswer } from '../../shared/scoring';
import { canonicalSnapshot } from '../../src-main/snapshots/document';
import { ReplayIndex } from '../../src-main/snapshots/replay/replay-index';
import { startReplay, type ReplayServer } from '../../src-main/snapshots/replay/server';
import { starterSuite } from '../../src-main/suites/starter';
import { STARTER_SCENARIOS } from '../../scripts/starter/scenarios';
import { KUBECTL_MISSING, kubectl, kubectlPath } from '../snapshots/helpers';

/**
 * The shipped starter suite, checked scenario by scenario: each snapshot replays, and the built-in
 * agent's own tools, run against it, return the facts its expected findings name (so a correct
 * answer is reachable by the agent benchdesk ships). The real kubectl shows the right STATUS for
 * a few of them.
 */

const starter = starterSuite();
/** The ten hand-written scenarios are proven here; those written with the builder carry their proofs (starter-replay.test.ts). */
const BUILT = new Set(STARTER_SCENARIOS.map((s) => s.scenario.scenario_id));
const handWritten = starter.suite.scenarios.filter((s) => !BUILT.has(s.scenario_id));

type Call = { tool: string; args?: Record<string, unknown> };
/** Per scenario: the tool calls an agent would make, and the facts their output must hold. */
const PROOFS: Record<string, { calls: Call[]; facts: RegExp[]; absent?: RegExp[] }> = {
  'crashloop-db-password': {
    calls: [{ tool: 'list_unhealthy_pods' }, { tool: 'get_pod_logs', args: { namespace: 'shop', pod: 'orders-api-6c9f7d4b8-x2kq9', previous: true } }],
    facts: [/shop\/orders-api-6c9f7d4b8-x2kq9.*waiting: CrashLoopBackOff/, /last termination: Error, exit code 1/, /password authentication failed for user "orders"/],
  },
  'image-pull-wrong-tag': {
    calls: [{ tool: 'list_unhealthy_pods' }, { tool: 'list_warning_events' }],
    facts: [/storefront-84bd6f5c97-lz5kd.*ImagePullBackOff/, /ghcr\.io\/acme\/storefront:v2\.41: not found/],
  },
  oomkilled: {
    calls: [{ tool: 'list_unhealthy_pods' }, { tool: 'get_pod_logs', args: { namespace: 'analytics', pod: 'report-worker-5f8d7c6b9-k8d2s', previous: true } }],
    facts: [/report-worker-5f8d7c6b9-k8d2s.*last termination: OOMKilled, exit code 137/, /loading 4,812,330 rows/],
  },
  'pending-insufficient-cpu': {
    calls: [{ tool: 'list_unhealthy_pods' }, { tool: 'list_warning_events' }],
    facts: [/feature-trainer-d6f9b8c75-2gq7h: phase Pending; unschedulable: Unschedulable \(0\/3 nodes are available: 3 Insufficient cpu/, /FailedScheduling/],
  },
  'pending-unbound-pvc': {
    calls: [{ tool: 'list_unhealthy_pods' }, { tool: 'list_warning_events' }],
    facts: [/analytics-db-0: phase Pending; unschedulable: .*unbound immediate PersistentVolumeClaims/, /ProvisioningFailed.*storageclass\.storage\.k8s\.io "fast-ssd" not found/],
  },
  'readiness-probe': {
    calls: [{ tool: 'list_unhealthy_pods' }, { tool: 'list_warning_events' }, { tool: 'get_pod_logs', args: { namespace: 'shop', pod: 'catalog-59c4b7d6f8-bn2xr' } }],
    facts: [/catalog-59c4b7d6f8-bn2xr.*not ready \(readiness probe failing/, /Readiness probe failed: HTTP probe failed with statuscode: 404/, /health endpoint moved to \/health \(was \/healthz\)/],
  },
  'service-selector': {
    calls: [
      { tool: 'list_unhealthy_pods' },
      { tool: 'get_pod_logs', args: { namespace: 'shop', pod: 'checkout-6b8d5f7c9-9tkwz' } },
      { tool: 'list_unavailable_deployments' },
      { tool: 'get_resources', args: { kind: 'svc', namespace: 'shop', name: 'payments' } },
      { tool: 'get_resources', args: { kind: 'ep', namespace: 'shop', name: 'payments' } },
    ],
    facts: [/checkout-6b8d5f7c9-9tkwz.*not ready/, /payments\.shop\.svc\.cluster\.local:8080.*connect: connection refused/, /checkout/, /shop\/payments: type ClusterIP .*selector app=payments /, /shop\/payments: ready <none>/],
    // The payments pods themselves are healthy: the tools must not blame them.
    absent: [/payments-7f6d9c8b5/],
  },
  'node-notready-evicted': {
    calls: [{ tool: 'get_node_conditions' }, { tool: 'list_unhealthy_pods' }, { tool: 'list_warning_events' }],
    facts: [/ip-10-0-3-17\.eu-west-1\.compute\.internal: NotReady \(Ready=Unknown NodeStatusUnknown: Kubelet stopped posting node status\.\); taints: node\.kubernetes\.io\/unreachable/, /pod Failed: Evicted \(The node was low on resource: ephemeral-storage/, /EvictionThresholdMet/],
  },
  'cronjob-failing': {
    calls: [{ tool: 'list_unhealthy_pods', args: { namespace: 'ops' } }, { tool: 'list_warning_events' }, { tool: 'get_pod_logs', args: { namespace: 'ops', pod: 'nightly-backup-29393400-5kq2w' } }],
    facts: [/nightly-backup-29393400-5kq2w: phase Failed/, /BackoffLimitExceeded.*Job has reached the specified backoff limit/, /AccessDenied\) when calling the PutObject operation/],
  },
  'healthy-cluster': {
    calls: [{ tool: 'list_unhealthy_pods' }, { tool: 'list_warning_events' }, { tool: 'list_unavailable_deployments' }, { tool: 'get_node_conditions' }],
    facts: [/All \d+ pods in all namespaces look healthy/, /No Warning events/, /fully available/, /3 nodes, 0 with problems/],
    absent: [/CrashLoopBackOff|ImagePullBackOff|OOMKilled|Unschedulable/],
  },
};

/** Per scenario: an answer a good engineer would give (it must pass) and a plausible wrong one (it must fail). */
const ANSWERS: Record<string, { right: string; wrong: string }> = {
  'crashloop-db-password': {
    right: 'The orders-api pods are in CrashLoopBackOff. Their previous logs show "FATAL: password authentication failed for user orders": the DB password in orders-db-credentials is wrong.',
    wrong: 'The orders-api pods keep restarting because they are OOMKilled; raise the memory limit.',
  },
  'image-pull-wrong-tag': {
    right: 'The new storefront pod is stuck in ImagePullBackOff: the image tag v2.41 is not found in ghcr.io (probably a typo of v2.4.1).',
    wrong: 'The rollout is stuck because the nodes have insufficient cpu for the new pod.',
  },
  oomkilled: {
    right: 'report-worker is OOMKilled (exit code 137) while loading the dataset; increase its memory limit above 256Mi.',
    wrong: 'report-worker cannot log in to the database: password authentication failed.',
  },
  'pending-insufficient-cpu': {
    right: 'The feature-trainer pod is Pending: 0/3 nodes are available, Insufficient cpu — it requests 16 CPUs and the nodes have 8.',
    wrong: 'The feature-trainer pod is Pending because its PersistentVolumeClaim is unbound.',
  },
  'pending-unbound-pvc': {
    right: 'analytics-db-0 is Pending because its PVC data-analytics-db-0 is unbound: the storage class fast-ssd does not exist (the cluster has gp3).',
    wrong: 'analytics-db-0 is Pending because of insufficient cpu on the nodes.',
  },
  'readiness-probe': {
    right: 'The catalog pods never become Ready: the readiness probe GET /healthz returns 404; version 5.2.0 moved the endpoint to /health.',
    wrong: 'The catalog pods are crash-looping because they are OOMKilled.',
  },
  'service-selector': {
    right: 'Checkout cannot reach payments: connection refused to 10.96.118.40. The payments Service selector app=payments matches no pod (they are labelled app=payments-api), so it has no endpoints.',
    wrong: 'The payments pods are in ImagePullBackOff.',
  },
  'node-notready-evicted': {
    right: 'Node ip-10-0-3-17 is NotReady (kubelet stopped posting status) after DiskPressure; the search pods on it were evicted because the node ran out of ephemeral-storage.',
    wrong: 'The search pods were OOMKilled.',
  },
  'cronjob-failing': {
    right: 'No: the nightly-backup CronJob has failed three nights in a row (BackoffLimitExceeded). The upload to S3 fails with AccessDenied on PutObject.',
    wrong: 'The backups fail because the job cannot pull its image (ImagePullBackOff).',
  },
  'healthy-cluster': {
    right: 'Nothing is wrong: all pods are running and ready, there are no warning events and every node is Ready.',
    wrong: 'The payments deployment is failing; restart it before the sale.',
  },
};

function tool(name: string) {
  const t = KUBERNETES_TOOLS.find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
}

const replays = new Map<string, ReplayServer>();
beforeAll(async () => {
  const ids = new Set(handWritten.map((s) => s.snapshot_id));
  for (const doc of starter.snapshots.filter((d) => ids.has(d.snapshot_id))) replays.set(doc.snapshot_id, await startReplay(new ReplayIndex(canonicalSnapshot(doc))));
});
afterAll(async () => {
  await Promise.all([...replays.values()].map((r) => r.close()));
});

describe('the starter suite', () => {
  it('has at least forty scenarios, each on its own snapshot; the hand-written ten are proven below', () => {
    const ids = starter.suite.scenarios.map((s) => s.scenario_id);
    expect(ids.length).toBeGreaterThanOrEqual(40);
    expect(new Set(starter.suite.scenarios.map((s) => s.snapshot_id)).size).toBe(ids.length);
    expect(Object.keys(PROOFS).sort()).toEqual(handWritten.map((s) => s.scenario_id).sort());
    for (const s of starter.suite.scenarios) {
      expect(s.tags.length, s.scenario_id).toBeGreaterThan(0);
      expect(s.must_not.length, s.scenario_id).toBeGreaterThan(0);
    }
  });

  it('never holds a secret value: every env value is ***', () => {
    for (const doc of starter.snapshots) {
      const text = JSON.stringify(doc);
      for (const m of text.matchAll(/"name":"[A-Z_]+","value":"([^"]*)"/g)) expect(m[1], doc.snapshot_id).toBe('***');
      expect(doc.objects, doc.snapshot_id).not.toHaveProperty('secrets');
    }
  });

  it('a correct answer passes each scenario, a plausible wrong one fails it', () => {
    expect(Object.keys(ANSWERS).sort()).toEqual(handWritten.map((s) => s.scenario_id).sort());
    for (const scenario of handWritten) {
      const answers = ANSWERS[scenario.scenario_id];
      if (!answers) throw new Error(`no answers for ${scenario.scenario_id}`);
      const right = scoreAnswer(answers.right, scenario.expected, scenario.must_not);
      expect(right, `${scenario.scenario_id} right answer`).toMatchObject({ passed: true, score: 1 });
      expect(scoreAnswer(answers.wrong, scenario.expected, scenario.must_not).passed, `${scenario.scenario_id} wrong answer`).toBe(false);
    }
  });

  for (const scenario of handWritten) {
    it(`${scenario.scenario_id}: the builtin tools on its replayed snapshot return the facts its findings name`, async () => {
      const proof = PROOFS[scenario.scenario_id];
      if (!proof) throw new Error(`no proof for ${scenario.scenario_id}`);
      const replay = replays.get(scenario.snapshot_id);
      if (!replay) throw new Error(`no replay for ${scenario.snapshot_id}`);
      const kube = await loadKubeReader(replay.kubeconfigPath);
      const outputs: string[] = [];
      for (const call of proof.calls) {
        const out = await tool(call.tool).execute(call.args ?? {}, { kube });
        expect(out.ok, `${call.tool}: ${out.content}`).toBe(true);
        outputs.push(out.content);
      }
      const text = outputs.join('\n');
      for (const fact of proof.facts) expect(text).toMatch(fact);
      for (const wrong of proof.absent ?? []) expect(text).not.toMatch(wrong);
    });
  }
});

describe.skipIf(kubectlPath() === null)('kubectl get pods -A on starter snapshots', () => {
  const statusOf = async (snapshotId: string, pod: string): Promise<string | undefined> => {
    const replay = replays.get(snapshotId);
    if (!replay) throw new Error(`no replay for ${snapshotId}`);
    const out = await kubectl(replay.kubeconfigPath, ['get', 'pods', '-A']);
    expect(out.code, out.stderr).toBe(0);
    const row = out.stdout.split('\n').find((line) => line.split(/\s+/)[1] === pod);
    return row?.split(/\s+/)[3];
  };
  it('shows CrashLoopBackOff, ImagePullBackOff, Pending, Error and the others where the scenarios say', async () => {
    expect(await statusOf('starter-crashloop-db-password', 'orders-api-6c9f7d4b8-x2kq9')).toBe('CrashLoopBackOff');
    expect(await statusOf('starter-image-pull-wrong-tag', 'storefront-84bd6f5c97-lz5kd')).toBe('ImagePullBackOff');
    expect(await statusOf('starter-pending-unbound-pvc', 'analytics-db-0')).toBe('Pending');
    // kubectl prints the container's reason over the pod's: an evicted pod whose container could not be located.
    expect(await statusOf('starter-node-notready-evicted', 'search-8c7b6d5f4-d4wq8')).toBe('ContainerStatusUnknown');
    expect(await statusOf('starter-readiness-probe', 'catalog-59c4b7d6f8-bn2xr')).toBe('Running');
    expect(await statusOf('starter-cronjob-failing', 'nightly-backup-29393400-5kq2w')).toBe('Error');
  });
});
if (kubectlPath() === null) console.warn(KUBECTL_MISSING);
