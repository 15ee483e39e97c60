import { Cluster, appNamespace, baseCluster, crashLoopReplica, deployment, event, httpProbe, lines, linesAfter, replica, replicaSet, startedAt, webApp } from '../builder';
import { C, WRONG, raw, verdictBlock } from '../patterns';
import { podOf, waiting, type StarterScenario } from '../scenario';

/** A typo in the container args: the Go flag parser refuses -confg, prints its usage and exits 2. */

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-crashloop-bad-args',
    name: 'Starter: invoice-api crash-loops on a mistyped flag',
    description: 'invoice-api 4.7.0 was deployed with args --confg=/etc/invoice/config.yaml; the binary knows -config only, prints its usage and exits 2. The rollout stalls on the first new pod; the 4.6.2 pods keep serving.',
    recordedAt: '2026-11-22T10:40:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'billing', '210d');
  const container = (image: string, args: string[]) => ({
    name: 'invoice-api',
    image,
    args,
    ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
    resources: { requests: { cpu: '200m', memory: '192Mi' }, limits: { memory: '384Mi' } },
    readinessProbe: httpProbe('/readyz', 'http'),
    volumeMounts: [{ name: 'config', mountPath: '/etc/invoice', readOnly: true }],
  });
  const extras = { volumes: [{ name: 'config', configMap: { name: 'invoice-api-config', defaultMode: 420 } }] };
  const d = deployment(c, { namespace: 'billing', name: 'invoice-api', replicas: 2, created: c.ago('210d'), rolled: c.ago('34m'), revision: 12, stalled: true, extras, containers: [container('ghcr.io/acme/invoice-api:4.7.0', ['--confg=/etc/invoice/config.yaml', '--port=8080'])] });
  const old = replicaSet(c, d, { revision: 11, replicas: 2, containers: [container('ghcr.io/acme/invoice-api:4.6.2', ['--config=/etc/invoice/config.yaml', '--port=8080'])], created: c.ago('16d') });
  for (let i = 0; i < 2; i++) {
    const p = replica(c, old, { node: nodes[i + 1], created: c.ago('16d') });
    c.log('billing', p.metadata.name, 'invoice-api', {
      current: [
        ...linesAfter('iso', startedAt(p), [[310, 'level=info msg="invoice-api 4.6.2 starting" config=/etc/invoice/config.yaml'], [905, 'level=info msg="listening" addr=:8080']]),
        ...lines(c, 'iso', [[`${41 + i * 9}s`, 'level=info msg="request" method=POST path=/v1/invoices status=201 duration=84ms']]),
      ],
    });
  }
  const usage = ['flag provided but not defined: -confg', 'Usage of /usr/local/bin/invoice-api:', '  -config string', '    \tpath to the config file (default "/etc/invoice/config.yaml")', '  -port int', '    \tlisten port (default 8080)'];
  crashLoopReplica(c, d.current, { node: nodes[0], created: '34m', container: 'invoice-api', image: 'ghcr.io/acme/invoice-api:4.7.0', restarts: 11, finishedAgo: '2m41s', ranMs: 60, exitCode: 2, log: () => usage });
  event(c, { on: d.deploy, reason: 'ScalingReplicaSet', message: `Scaled up replica set ${d.current.name} from 0 to 1`, first: '34m', component: 'deployment-controller' });
  webApp(c, { namespace: 'billing', name: 'payments-ui', image: 'ghcr.io/acme/payments-ui:2.2.0', replicas: 2, created: '180d', rolled: '5d', revision: 8, requestLog: 'GET /static/app.js 200 2ms' }, nodes.slice(1));
  return c;
}

const built = build();
const CRASHING = podOf(built, 'billing', 'invoice-api-', waiting('CrashLoopBackOff'));
/** The new version, however an answer names it. */
const SUBJECT = String.raw`invoice-api|new (pod|replica|version|release|revision|container)|4\.7\.0|revision 12|the rollout`;
const FLAG = String.raw`-?-?confg|flags?|args?|arguments?|command[- ]line|options?|parameters?`;
const MISTYPED = String.raw`typo\w*|misspel\w*|mis-?spelt|mis-?typ\w*|unknown|unrecogni[sz]ed|undefined|not (a )?(defined|valid|known|recogni[sz]ed|accepted)|invalid|wrong|bad|bogus`;

export const crashloopBadArgs: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'crashloop-bad-args',
    title: 'Crash loop from a mistyped command-line flag',
    question: 'The invoice-api deploy in the billing namespace started about half an hour ago and the service still runs the old version. What is wrong with the new one?',
    expected: [
      {
        finding: 'the new invoice-api pod crash-loops: it exits right after starting (exit code 2)',
        any_of: [C.crashLoop, C.exitsAtStart, String.raw`exit(s|ed|ing)?\W{1,3}(with )?(code|status) 2\b|exit code 2\b`],
        all_of: [[SUBJECT]],
      },
      {
        finding: 'its args mistype the flag: --confg is not a flag the binary knows (it is --config)',
        any_of: [
          'flag provided but not defined',
          String.raw`\b(${FLAG})\b.{0,60}\b(${MISTYPED})`,
          String.raw`\b(${MISTYPED}) (command[- ]line )?(flag|arg\w*|option|parameter|spelling)`,
          String.raw`(typo|misspel\w*|mis-?spelt|mis-?typ\w*)\b.{0,40}(-?-?config|-?-?confg)`,
          String.raw`(does ?n[o']t|did ?n[o']t|does not|did not|won't|can ?not|can't) (recogni[sz]e|know|accept|understand|parse)\w* (the |that |this |its |an? )?(-?-confg |unknown )?(flag|arg\w*|option|parameter|-?-confg)`,
          String.raw`confg.{0,20}(instead of|rather than|for|should be|meant|not)\W{1,3}-?-?config`,
          String.raw`(should|must|needs to) (be|read|say) ["'\x60]?-?-config`,
          String.raw`(rejects?|refuses?)\w* (the |its )?(flag|arg\w*|option|-?-confg)`,
        ],
      },
    ],
    must_not: [
      WRONG.oom,
      WRONG.imagePull,
      WRONG.password,
      WRONG.probe,
      WRONG.insufficientCpu,
      String.raw`(config(\.yaml| file| ?map)|/etc/invoice\S*)\W.{0,40}\b(missing|not found|does ?n[o']t exist|absent|not mounted|empty)`,
      WRONG.badContent,
    ],
    tags: ['bad-config', 'medium', 'crash-loop', 'rollout', 'logs'],
    difficulty: 'medium',
    verdict: { healthy: false, causes: [{ category: 'bad-config', objects: ['deployment/billing/invoice-api', `pod/billing/${CRASHING}`] }] },
    fixtures: [
      {
        label: 'correct',
        note: 'the diagnosis with the log line',
        answer: `The new pod ${CRASHING} (revision 12, image 4.7.0) is in CrashLoopBackOff: it exits with code 2 a few milliseconds after starting. Its previous log says "flag provided but not defined: -confg" — the Deployment's args have --confg=/etc/invoice/config.yaml, a typo of --config. Fix the arg and the rollout will proceed; the two 4.6.2 pods keep serving meanwhile.`,
      },
      {
        label: 'correct',
        note: 'other words: no kubectl status names',
        answer: 'Revision 12 cannot boot. Someone misspelled the config option on the command line (confg instead of config), so the Go flag parser prints its usage and quits with status 2; Kubernetes keeps restarting it and the rollout never gets past the first replica.',
      },
      {
        label: 'correct',
        note: 'short, with the structured verdict',
        answer: `invoice-api 4.7.0 crash-loops because its argument --confg is unknown to the binary (should be --config).\n\n${verdictBlock({ healthy: false, causes: [{ category: 'bad-config', objects: ['deployment/billing/invoice-api'] }], fix: 'change --confg to --config in the container args' })}`,
      },
      {
        label: 'wrong',
        note: 'keywords in a wrong diagnosis: blames a missing config file and clears the flag',
        answer: 'The new invoice-api pod crash-loops because /etc/invoice/config.yaml is missing from the 4.7.0 image. The --confg flag is fine (it is an accepted alias); rebuild the image with the config file.',
      },
      {
        label: 'wrong',
        note: 'negation of the cause, a wrong one instead',
        answer: 'The args are not the problem. The 4.7.0 container is OOMKilled at start — it exits with code 2 because it runs out of memory under its 384Mi limit.',
      },
      {
        label: 'wrong',
        note: 'rollout keywords, wrong mechanism',
        answer: 'The rollout is blocked because the readiness probe on /readyz fails for the new invoice-api pod; increase the probe timeout.',
      },
      {
        label: 'wrong',
        note: 'raw log output, no diagnosis',
        answer: raw(`$ kubectl logs -n billing ${CRASHING} --previous\nflag provided but not defined: -confg\nUsage of /usr/local/bin/invoice-api:\n  -config string\n  -port int`),
      },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods', args: { namespace: 'billing' } }, { tool: 'get_pod_logs', args: { namespace: 'billing', pod: CRASHING, previous: true } }, { tool: 'list_unavailable_deployments' }],
    facts: [new RegExp(`billing/${CRASHING}: .*waiting: CrashLoopBackOff.*last termination: Error, exit code 2`), /flag provided but not defined: -confg/, /billing\/invoice-api: .*ProgressDeadlineExceeded/],
    absent: [/OOMKilled/],
    objects: [{ path: '/apis/apps/v1/namespaces/billing/deployments/invoice-api', facts: [/"--confg=\/etc\/invoice\/config\.yaml"/] }],
  },
};
