import { Cluster, appNamespace, baseCluster, deployment, event, httpProbe, lines, linesAfter, replica, replicaSet, service, startedAt, webApp } from '../builder';
import { C, raw, verdictBlock } from '../patterns';
import type { StarterScenario } from '../scenario';

/** A rollout that went fine: the warnings are from its new pods starting; everything is ready now. */

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-healthy-after-rollout',
    name: 'Starter: checkout 4.2 rolled out fine (warnings from start-up only)',
    description: 'checkout 4.2 rolled out 9 minutes ago. Each new pod failed its first readiness checks while the JVM started (connection refused), then became ready; the old pods were stopped normally. All three 4.2 pods are ready and serving.',
    recordedAt: '2026-12-03T16:05:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'checkout', '400d');
  const container = (image: string) => ({ name: 'checkout', image, ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }], resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { memory: '1536Mi' } }, readinessProbe: httpProbe('/ready', 'http', { delay: 5 }) });
  const d = deployment(c, { namespace: 'checkout', name: 'checkout', replicas: 3, created: c.ago('400d'), rolled: c.ago('9m10s'), revision: 59, containers: [container('ghcr.io/acme/checkout:4.2.0')] });
  const old = replicaSet(c, d, { revision: 58, replicas: 0, containers: [container('ghcr.io/acme/checkout:4.1.3')], created: c.ago('16d') });
  const starts = ['9m10s', '8m20s', '7m30s'];
  starts.forEach((at, i) => {
    const n = nodes[i as 0 | 1 | 2];
    const p = replica(c, d.current, { node: n, created: c.ago(at) });
    const ip = (p.status as { podIP: string }).podIP;
    c.log('checkout', p.metadata.name, 'checkout', { current: [...linesAfter('iso', startedAt(p), [[600, 'INFO  Starting CheckoutApplication v4.2.0 using Java 21.0.5'], [21_400, 'INFO  Tomcat started on port 8080 (http)'], [21_900, 'INFO  Started CheckoutApplication in 21.7 seconds']]), ...lines(c, 'iso', [[`${10 + i * 13}s`, 'INFO  POST /orders/checkout 201 142ms']])] });
    event(c, { on: p, reason: 'Unhealthy', type: 'Warning', message: `Readiness probe failed: Get "http://${ip}:8080/ready": dial tcp ${ip}:8080: connect: connection refused`, first: `${Math.round((c.clock.rec - startedAt(p)) / 1000) - 6}s`, last: `${Math.round((c.clock.rec - startedAt(p)) / 1000) - 16}s`, count: 2, component: 'kubelet', host: n.name, fieldPath: 'spec.containers{checkout}' });
    event(c, { on: d.deploy, reason: 'ScalingReplicaSet', message: `Scaled up replica set ${d.current.name} from ${i} to ${i + 1}`, first: at, component: 'deployment-controller' });
    event(c, { on: d.deploy, reason: 'ScalingReplicaSet', message: `Scaled down replica set ${old.name} from ${3 - i} to ${2 - i}`, first: `${Math.round((c.clock.rec - startedAt(p)) / 1000) - 24}s`, component: 'deployment-controller' });
  });
  service(c, { namespace: 'checkout', name: 'checkout', selector: { app: 'checkout' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }], created: c.ago('400d') });
  webApp(c, { namespace: 'checkout', name: 'checkout-ui', image: 'ghcr.io/acme/checkout-ui:2.8.1', replicas: 2, created: '400d', rolled: '3d', revision: 21 }, nodes.slice(1));
  return c;
}

export const healthyAfterRollout: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'healthy-after-rollout',
    title: 'A finished rollout with start-up warnings (the correct answer: nothing is wrong)',
    question: 'We deployed checkout 4.2 about ten minutes ago and "kubectl get events" in the checkout namespace shows Warning events. Is something still wrong with checkout?',
    expected: [{ finding: 'nothing is wrong: the warnings were the new pods\' first readiness checks while the JVM started; all three 4.2 pods are ready', any_of: C.allClear }],
    must_not: [
      String.raw`readiness probe (is|keeps|are) (still )?fail\w*|(is|are) (still )?not ready`,
      String.raw`(roll ?back|revert|undo)\w* (to |the )?(rollout|deploy\w*|checkout|release|4\.\d)`,
      String.raw`(rollout|deployment) (is )?(stuck|stalled|failed|broken)`,
      String.raw`crash[ -]?loop\w*|OOM[ -]?kill\w*|ImagePullBackOff`,
      String.raw`4\.2(\.0)? (is )?(broken|buggy|failing|bad)`,
    ],
    tags: ['none', 'medium', 'healthy', 'rollout', 'events'],
    difficulty: 'medium',
    verdict: { healthy: true, causes: [] },
    fixtures: [
      { label: 'correct', note: 'the warnings placed in the rollout\'s timeline', answer: 'No. All three checkout 4.2 pods are Running and ready and the Deployment is 3/3 available; the 4.1.3 ReplicaSet was scaled to 0 normally. The Warning events are "Readiness probe failed … connection refused" on each new pod during its first ~20 seconds, while Spring Boot was starting (the logs show "Started CheckoutApplication in 21.7 seconds"), twice per pod, and none since. That is a normal rolling update; if the noise bothers you, add a startupProbe or a longer initialDelaySeconds.' },
      { label: 'correct', note: 'other words, with a negation that is not a fault', answer: 'Checkout is fine: the warnings are only the new pods being checked before the application had finished booting, and every pod passed shortly after. Nothing is failing now.' },
      { label: 'correct', note: 'with a healthy verdict', answer: `Healthy: start-up readiness warnings from the rollout, all pods ready since.\n\n${verdictBlock({ healthy: true, causes: [], fix: 'none needed' })}` },
      { label: 'wrong', note: 'false alarm: reads the warnings as current', answer: 'Yes: checkout 4.2\'s readiness probe is failing with connection refused — the pods are not ready. Roll back to 4.1.3.' },
      { label: 'wrong', note: 'false alarm: invents a stuck rollout', answer: 'The rollout is stuck: one of the 4.2 pods never became ready and the old ReplicaSet is still serving.' },
      { label: 'wrong', note: 'false alarm with scenario keywords', answer: '4.2 is broken: the events show probes failing on every new pod, so the release should be reverted.' },
      { label: 'wrong', note: 'raw output, no conclusion', answer: raw('LAST SEEN   TYPE      REASON      OBJECT                  MESSAGE\n8m55s       Warning   Unhealthy   pod/checkout-…-…        Readiness probe failed: … connect: connection refused\n8m5s        Warning   Unhealthy   pod/checkout-…-…        Readiness probe failed: … connect: connection refused') },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods', args: { namespace: 'checkout' } }, { tool: 'list_unavailable_deployments', args: { namespace: 'checkout' } }, { tool: 'list_warning_events', args: { namespace: 'checkout' } }],
    facts: [/All \d+ pods in namespace checkout look healthy/, /All \d+ deployments in namespace checkout are fully available/, /Unhealthy \(x2\): Readiness probe failed/],
  },
};
