import https from 'node:https';
import { describe, expect, it } from 'vitest';
import { loadKubeReader } from '../../src-main/agents/builtin/kube-client';
import { KUBERNETES_TOOLS } from '../../src-main/agents/builtin/tools';
import { canonicalSnapshot } from '../../src-main/snapshots/document';
import { lintSnapshot } from '../../src-main/snapshots/lint';
import { ReplayIndex } from '../../src-main/snapshots/replay/replay-index';
import { startReplay, type ReplayServer } from '../../src-main/snapshots/replay/server';
import { starterSuite } from '../../src-main/suites/starter';
import { snapshotIdOf } from '../../scripts/starter/scenario';
import { STARTER_SCENARIOS } from '../../scripts/starter/scenarios';
import { json, makeBench, removeDir } from '../helpers/bench';
import { KUBECTL_MISSING, kubectl, kubectlPath } from '../snapshots/helpers';

/**
 * The starter scenarios written with the builder, each replayed on its own snapshot: the built-in
 * agent's tools (called directly, no LLM) return the facts its findings need, and the objects a
 * kubectl user would read hold the rest. One replay at a time, closed whatever happens. And every
 * shipped snapshot — hand-written or generated — passes the snapshot lint.
 */

const starter = starterSuite();
const documents = new Map(starter.snapshots.map((doc) => [doc.snapshot_id, doc]));

function tool(name: string) {
  const t = KUBERNETES_TOOLS.find((x) => x.name === name);
  if (!t) throw new Error(`no built-in tool ${name}`);
  return t;
}

function getJson(replay: ReplayServer, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, replay.url), { ca: replay.caPem, headers: { accept: 'application/json', authorization: `Bearer ${replay.token}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('every shipped starter snapshot', () => {
  it('passes the snapshot lint (no timeline impossibility)', () => {
    expect(starter.snapshots.length).toBe(starter.suite.scenarios.length);
    for (const doc of starter.snapshots) expect(lintSnapshot(canonicalSnapshot(doc)), doc.snapshot_id).toEqual([]);
  });

  it('GET /v1/snapshots/{id} shows no warning for any of them', async () => {
    const bench = await makeBench();
    try {
      for (const doc of starter.snapshots) {
        const res = await bench.req({ method: 'GET', url: `/v1/snapshots/${doc.snapshot_id}` });
        expect(res.statusCode, doc.snapshot_id).toBe(200);
        expect(json(res), doc.snapshot_id).toMatchObject({ warnings: [], lint: [] });
      }
    } finally {
      await bench.close();
      await removeDir(bench.dir);
    }
  });
});

describe('the builder-written starter scenarios, replayed', () => {
  it('are all in the shipped suite, each on its own snapshot', () => {
    const ids = new Set(starter.suite.scenarios.map((s) => s.scenario_id));
    for (const s of STARTER_SCENARIOS) {
      expect(ids.has(s.scenario.scenario_id), s.scenario.scenario_id).toBe(true);
      expect(documents.has(snapshotIdOf(s.scenario.scenario_id)), s.scenario.scenario_id).toBe(true);
    }
  });

  for (const s of STARTER_SCENARIOS) {
    it(`${s.scenario.scenario_id}: the built-in tools reach the facts its findings need`, async () => {
      const doc = documents.get(snapshotIdOf(s.scenario.scenario_id));
      if (!doc) throw new Error(`no snapshot for ${s.scenario.scenario_id}`);
      const replay = await startReplay(new ReplayIndex(canonicalSnapshot(doc)));
      try {
        const kube = await loadKubeReader(replay.kubeconfigPath);
        const outputs: string[] = [];
        try {
          for (const call of s.proof.calls) {
            const out = await tool(call.tool).execute(call.args ?? {}, { kube });
            expect(out.ok, `${call.tool}: ${out.content}`).toBe(true);
            outputs.push(out.content);
          }
        } finally {
          await kube.close();
        }
        const text = outputs.join('\n');
        for (const fact of s.proof.facts) expect(text, `${s.scenario.scenario_id}: ${fact}`).toMatch(fact);
        for (const wrong of s.proof.absent ?? []) expect(text, `${s.scenario.scenario_id}: not ${wrong}`).not.toMatch(wrong);
        for (const o of s.proof.objects ?? []) {
          const res = await getJson(replay, o.path);
          expect(res.status, `${o.path}: ${res.text.slice(0, 200)}`).toBe(200);
          for (const fact of o.facts) expect(res.text, `${o.path}: ${fact}`).toMatch(fact);
        }
      } finally {
        await replay.close();
      }
    });
  }
});

describe.skipIf(kubectlPath() === null)('the real kubectl on builder-written snapshots', () => {
  const run = async (snapshotId: string, commands: string[][]): Promise<string[]> => {
    const doc = documents.get(snapshotId);
    if (!doc) throw new Error(`no snapshot ${snapshotId}`);
    const replay = await startReplay(new ReplayIndex(canonicalSnapshot(doc)));
    try {
      const outs: string[] = [];
      for (const args of commands) {
        const out = await kubectl(replay.kubeconfigPath, args);
        expect(out.code, `kubectl ${args.join(' ')}: ${out.stderr}`).toBe(0);
        outs.push(out.stdout);
      }
      return outs;
    } finally {
      await replay.close();
    }
  };

  it('shows the statuses, policies, quotas, bindings and jobs the scenarios are about', async () => {
    const [pods] = await run('starter-configmap-missing-key', [['get', 'pods', '-n', 'shop']]);
    expect(pods).toMatch(/storefront-\w+-\w+\s+0\/1\s+CreateContainerConfigError\s+0\s+21m/);
    const [netpol, describe] = await run('starter-netpol-default-deny', [['get', 'netpol', '-n', 'data'], ['describe', 'netpol', 'default-deny-ingress', '-n', 'data']]);
    expect(netpol).toMatch(/default-deny-ingress\s+<none>\s+42m/);
    expect(describe).toMatch(/Allowing ingress traffic:\n\s+<none> \(Selected pods are isolated for ingress connectivity\)/);
    const [quota, deploy] = await run('starter-quota-exceeded', [['describe', 'quota', 'compute-quota', '-n', 'marketing'], ['get', 'deploy', 'campaign-api', '-n', 'marketing']]);
    expect(quota).toMatch(/requests\.cpu\s+3800m\s+4/);
    expect(deploy).toMatch(/campaign-api\s+2\/4\s+2\s+2\s+300d/);
    const [bindings] = await run('starter-rbac-forbidden-list', [['get', 'rolebindings', '-A', '-o', 'wide']]);
    expect(bindings).toMatch(/ops\s+config-sync\s+Role\/config-sync\s+300d\s+ops\/config-sync/);
    const [cronjobs, jobs] = await run('starter-cronjob-suspended', [['get', 'cronjobs', '-n', 'analytics'], ['get', 'jobs', '-n', 'analytics']]);
    expect(cronjobs).toMatch(/daily-sales-report\s+30 6 \* \* \*\s+Europe\/London\s+True\s+0\s+4d3h/);
    expect(jobs?.trim().split('\n')).toHaveLength(4);
    const [oom] = await run('starter-job-oom-backoff', [['get', 'pods', '-n', 'catalog']]);
    expect(oom?.match(/OOMKilled/g)).toHaveLength(3);
  });
});
if (kubectlPath() === null) console.warn(KUBECTL_MISSING);
