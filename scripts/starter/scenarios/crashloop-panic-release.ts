import { Cluster, appNamespace, baseCluster, configMap, crashLoopReplica, deployment, event, httpProbe, logStamp, replica, replicaSet, startedAt, webApp } from '../builder';
import { C, WRONG, raw, verdictBlock } from '../patterns';
import { podOf, waiting, type StarterScenario } from '../scenario';

/** A release that panics at start (a nil map in its rule loader): the new pods crash-loop, the old ones serve. */

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-crashloop-panic-release',
    name: 'Starter: pricing-engine 3.2.0 panics at start',
    description: 'pricing-engine 3.2.0 panics while loading its rules ("assignment to entry in nil map"); the first new pod crash-loops with exit code 2 and the rollout stalls while the 3.1.4 pods keep serving.',
    recordedAt: '2026-11-23T16:20:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'pricing', '300d');
  configMap(c, 'pricing', 'pricing-rules', c.ago('300d'), ['base.yaml', 'promotions.yaml', 'regional.yaml']);
  const container = (image: string) => ({
    name: 'pricing-engine',
    image,
    ports: [{ name: 'grpc', containerPort: 9090, protocol: 'TCP' }, { name: 'http', containerPort: 8080, protocol: 'TCP' }],
    resources: { requests: { cpu: '500m', memory: '512Mi' }, limits: { memory: '1Gi' } },
    readinessProbe: httpProbe('/readyz', 'http'),
    volumeMounts: [{ name: 'rules', mountPath: '/etc/pricing/rules.d', readOnly: true }],
  });
  const extras = { volumes: [{ name: 'rules', configMap: { name: 'pricing-rules', defaultMode: 420 } }] };
  const d = deployment(c, { namespace: 'pricing', name: 'pricing-engine', replicas: 3, created: c.ago('300d'), rolled: c.ago('52m'), revision: 23, stalled: true, extras, containers: [container('ghcr.io/acme/pricing-engine:3.2.0')] });
  const old = replicaSet(c, d, { revision: 22, replicas: 3, containers: [container('ghcr.io/acme/pricing-engine:3.1.4')], created: c.ago('11d') });
  for (let i = 0; i < 3; i++) {
    const p = replica(c, old, { node: nodes[i], created: c.ago('11d') });
    const s = startedAt(p);
    const j = (ms: number, msg: string) => `{"level":"info","ts":${logStamp.epoch(ms)},"caller":"cmd/main.go:71","msg":"${msg}"}`;
    c.log('pricing', p.metadata.name, 'pricing-engine', { current: [j(s + 212, 'starting pricing-engine'), j(s + 640, 'loaded 412 rules from /etc/pricing/rules.d'), j(s + 702, 'serving grpc on :9090'), j(c.clock.ago(`${17 + i * 5}s`), 'quote computed')] });
  }
  crashLoopReplica(c, d.current, {
    node: nodes[1],
    created: '52m',
    container: 'pricing-engine',
    image: 'ghcr.io/acme/pricing-engine:3.2.0',
    restarts: 14,
    finishedAgo: '3m52s',
    ranMs: 900,
    exitCode: 2,
    log: (s) => [
      `{"level":"info","ts":${logStamp.epoch(s + 180)},"caller":"cmd/main.go:41","msg":"starting pricing-engine","version":"3.2.0"}`,
      `{"level":"info","ts":${logStamp.epoch(s + 214)},"caller":"cmd/main.go:58","msg":"loading rules","dir":"/etc/pricing/rules.d"}`,
      'panic: assignment to entry in nil map',
      '',
      'goroutine 1 [running]:',
      'github.com/acme/pricing/internal/rules.(*Registry).Register(...)',
      '\t/src/internal/rules/registry.go:57',
      'github.com/acme/pricing/internal/rules.LoadDir({0xc0000a4180, 0x14})',
      '\t/src/internal/rules/load.go:88 +0x2f1',
      'main.main()',
      '\t/src/cmd/main.go:63 +0x4a5',
    ],
  });
  event(c, { on: d.deploy, reason: 'ScalingReplicaSet', message: `Scaled up replica set ${d.current.name} from 0 to 1`, first: '52m', component: 'deployment-controller' });
  webApp(c, { namespace: 'pricing', name: 'quote-gateway', image: 'ghcr.io/acme/quote-gateway:1.14.0', replicas: 2, created: '300d', rolled: '20d', revision: 15, requestLog: 'POST /v1/quotes 200 21ms' }, nodes);
  return c;
}

const built = build();
const CRASHING = podOf(built, 'pricing', 'pricing-engine-', waiting('CrashLoopBackOff'));
/** The new release, however an answer names it. */
const SUBJECT = String.raw`pricing-engine|new (pod|replica|version|release|revision|build|image|code)|3\.2\.0|the release|the rollout`;

export const crashloopPanicRelease: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'crashloop-panic-release',
    title: 'Crash loop: a release that panics at start',
    question: 'We released pricing-engine 3.2.0 in the pricing namespace almost an hour ago, but quotes still come from 3.1.4. Why has the release not gone out?',
    expected: [
      { finding: 'the new pricing-engine pod is crash-looping', any_of: [C.crashLoop, C.exitsAtStart, String.raw`exit(s|ed|ing)?\W{1,3}(with )?(code|status) 2\b|exit code 2\b`], all_of: [[SUBJECT]] },
      {
        finding: 'the 3.2.0 binary panics while loading its rules (assignment to entry in nil map): a bug in the release',
        any_of: [
          String.raw`nil map|uninitiali[sz]ed map`,
          String.raw`\bpanic(s|ked|king)?\b`,
          String.raw`\b(bug|regression|defect|programming (error|mistake)|code (error|defect|bug)|coding (error|mistake))`,
          String.raw`(map|variable|registry)( that)?( was| is)? (never|not) (initiali[sz]ed|created|allocated|made)`,
        ],
        all_of: [[SUBJECT]],
      },
    ],
    must_not: [
      WRONG.oom,
      WRONG.imagePull,
      WRONG.password,
      WRONG.probe,
      WRONG.insufficientCpu,
      String.raw`(config ?map|pricing-rules|rules?( files?| dir\w*)?)\W.{0,40}\b(missing|empty|not mounted|invalid|malformed|wrong|corrupt\w*|not found)`,
      WRONG.nodeDown,
    ],
    tags: ['crash-loop', 'medium', 'rollout', 'logs', 'release'],
    difficulty: 'medium',
    verdict: { healthy: false, causes: [{ category: 'crash-loop', objects: ['deployment/pricing/pricing-engine', `pod/pricing/${CRASHING}`] }] },
    fixtures: [
      {
        label: 'correct',
        note: 'the diagnosis with the stack trace',
        answer: `The rollout is stuck on ${CRASHING}, the first 3.2.0 pod: it is in CrashLoopBackOff (14 restarts, exit code 2). Its previous log ends in "panic: assignment to entry in nil map" from rules.(*Registry).Register while loading /etc/pricing/rules.d — a bug in 3.2.0. Roll back to 3.1.4 (still serving all traffic) and fix the registry initialisation.`,
      },
      {
        label: 'correct',
        note: 'other words',
        answer: 'Version 3.2.0 has a programming error: at startup its rule loader writes into a map that was never initialised, the Go runtime panics and the process dies; Kubernetes restarts it again and again, so the Deployment never gets a ready new replica and keeps the old ones.',
      },
      {
        label: 'correct',
        note: 'the cause stated, the wrong ones ruled out, with a verdict block',
        answer: `Not a memory or image problem: pricing-engine 3.2.0 crash-loops because it panics (nil map) during start-up.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'crash-loop', objects: ['deployment/pricing/pricing-engine'] }], fix: 'roll back to 3.1.4' })}`,
      },
      { label: 'wrong', note: 'keywords in a wrong diagnosis: blames the rules config map', answer: 'pricing-engine 3.2.0 crash-loops because the pricing-rules ConfigMap is empty, so loading the rules fails; the code itself has no bug. Repopulate the config map.' },
      { label: 'wrong', note: 'wrong cause with the scenario words', answer: 'The new pricing-engine pod is OOMKilled while loading the rules; its 1Gi limit is too small for 3.2.0.' },
      { label: 'wrong', note: 'negates the crash', answer: 'Nothing is crashing. The rollout just has not started yet because the nodes have insufficient cpu for the surge pod.' },
      { label: 'wrong', note: 'raw output only', answer: raw(`panic: assignment to entry in nil map\n\ngoroutine 1 [running]:\ngithub.com/acme/pricing/internal/rules.(*Registry).Register(...)\n\t/src/internal/rules/registry.go:57`, 'Logs of the new pod:') },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods', args: { namespace: 'pricing' } }, { tool: 'get_pod_logs', args: { namespace: 'pricing', pod: CRASHING, previous: true } }, { tool: 'list_unavailable_deployments', args: { namespace: 'pricing' } }],
    facts: [new RegExp(`pricing/${CRASHING}: .*CrashLoopBackOff.*restarts: 14; last termination: Error, exit code 2`), /panic: assignment to entry in nil map/, /pricing\/pricing-engine: .*ProgressDeadlineExceeded/],
    absent: [/OOMKilled/],
  },
};
