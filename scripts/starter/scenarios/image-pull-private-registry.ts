import { Cluster, appNamespace, baseCluster, deployment, event, imagePullReplica, webApp } from '../builder';
import { C, WRONG, raw, verdictBlock } from '../patterns';
import { podOf, type StarterScenario } from '../scenario';

/** A new deployment from a private registry without the pull secret its neighbours use: 401 from ghcr.io. */

const IMAGE = 'ghcr.io/acme-private/ledger-sync:1.0.3';
const ERROR = `failed to pull and unpack image "${IMAGE}": failed to resolve reference "${IMAGE}": failed to authorize: failed to fetch anonymous token: unexpected status from GET request to https://ghcr.io/token?scope=repository%3Aacme-private%2Fledger-sync%3Apull&service=ghcr.io: 401 Unauthorized`;

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-image-pull-private-registry',
    name: 'Starter: ledger-sync cannot pull from a private registry',
    description: 'ledger-sync is new; its image is in the private ghcr.io/acme-private organisation, and its Deployment has no imagePullSecrets (ledger-api, from the same registry, uses ghcr-pull). ghcr.io answers 401 to the anonymous pull.',
    recordedAt: '2026-11-24T08:15:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'ledger', '95d');
  webApp(c, { namespace: 'ledger', name: 'ledger-api', image: 'ghcr.io/acme-private/ledger-api:2.3.1', replicas: 2, created: '95d', rolled: '8d', revision: 6, extras: { imagePullSecrets: [{ name: 'ghcr-pull' }] }, requestLog: 'GET /v1/accounts/8812/balance 200 12ms' }, nodes);
  const d = deployment(c, {
    namespace: 'ledger',
    name: 'ledger-sync',
    replicas: 2,
    created: c.ago('27m'),
    containers: [{ name: 'ledger-sync', image: IMAGE, env: [{ name: 'LEDGER_API', value: 'http://ledger-api.ledger.svc' }], resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } } }],
  });
  for (const node of [nodes[0], nodes[2]]) imagePullReplica(c, d.current, { node, created: '27m', container: 'ledger-sync', image: IMAGE, error: ERROR });
  event(c, { on: d.deploy, reason: 'ScalingReplicaSet', message: `Scaled up replica set ${d.current.name} from 0 to 2`, first: '27m', component: 'deployment-controller' });
  return c;
}

const built = build();
const POD = podOf(built, 'ledger', 'ledger-sync-');
const SECRET = String.raw`image ?pull ?secrets?|pull ?secrets?|registry (credentials?|secret|auth\w*|login|token)|ghcr-pull|credentials?`;

export const imagePullPrivateRegistry: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'image-pull-private-registry',
    title: 'Image pull refused by a private registry (no pull secret)',
    question: 'We deployed the new ledger-sync service to the ledger namespace 25 minutes ago and none of its pods has started. ledger-api in the same namespace is fine. What is going on?',
    expected: [
      { finding: 'the ledger-sync pods cannot pull their image (ImagePullBackOff / ErrImagePull)', any_of: [C.imagePull] },
      {
        finding: 'ghcr.io refuses the pull (401 Unauthorized) because ledger-sync has no imagePullSecrets, unlike ledger-api',
        any_of: [
          String.raw`\b401\b|unauthori[sz]ed|not authori[sz]ed|unauthenticated|not authenticated|anonymous (pull|request|token|access)|authenticat\w* (fail\w*|error|required|needed)|(requires?|needs?|wants?) (authentication|credentials?|a login|a token)`,
          String.raw`(missing|no|without|lacks?|lacking|forgot|add|needs?|set|give it)\W{1,3}(the |an? |its |any )?(${SECRET})`,
          String.raw`(${SECRET})\W.{0,40}\b(missing|not set|absent|none|unset|empty|forgotten|left out)`,
          String.raw`(private|non-?public) (registry|repo\w*|org\w*|image|package)`,
        ],
      },
    ],
    must_not: [
      String.raw`(tag|image|version|manifest)\W.{0,40}\b(does ?n[o']t exist|not found|wrong tag|typo|manifest unknown|never (pushed|published))`,
      String.raw`rate[ -]?limit\w*|toomanyrequests|too many requests`,
      String.raw`(registry|ghcr(\.io)?)\S* (is |was )?(down|unreachable|unavailable|offline|having an outage)`,
      WRONG.oom,
      WRONG.crashLoop,
      WRONG.insufficientCpu,
      WRONG.netpol,
    ],
    tags: ['image-pull', 'medium', 'registry', 'credentials', 'events'],
    difficulty: 'medium',
    verdict: { healthy: false, causes: [{ category: 'image-pull', objects: ['deployment/ledger/ledger-sync', `pod/ledger/${POD}`] }] },
    fixtures: [
      {
        label: 'correct',
        note: 'the diagnosis with the registry answer',
        answer: `Both ledger-sync pods (e.g. ${POD}) are in ImagePullBackOff. The kubelet's pull of ${IMAGE} fails with "failed to fetch anonymous token … 401 Unauthorized": the image is in a private ghcr.io organisation and the ledger-sync Deployment has no imagePullSecrets. ledger-api pulls from the same registry with imagePullSecrets ghcr-pull — add the same secret to ledger-sync.`,
      },
      { label: 'correct', note: 'other words', answer: "ledger-sync never starts because Kubernetes can't download its container image: GitHub's registry rejects the request as unauthenticated. Its pod template lacks the registry credentials (the ghcr-pull secret that ledger-api references)." },
      { label: 'correct', note: 'with the structured verdict', answer: `Image pull fails with 401 from ghcr.io: ledger-sync is missing imagePullSecrets.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'image-pull', objects: ['deployment/ledger/ledger-sync'] }], fix: 'add imagePullSecrets: [{name: ghcr-pull}]' })}` },
      { label: 'wrong', note: 'keywords, wrong cause: a missing tag, and clears the secret', answer: 'The pods are in ImagePullBackOff because the tag 1.0.3 does not exist in ghcr.io/acme-private/ledger-sync (manifest unknown). The imagePullSecrets are fine. Push the tag.' },
      { label: 'wrong', note: 'negation of the cause', answer: 'This is not an authentication problem — ghcr.io is rate-limiting the cluster (toomanyrequests). Wait and the pull will succeed.' },
      { label: 'wrong', note: 'wrong diagnosis with the scenario words', answer: 'ledger-sync crash-loops after pulling its image: it cannot reach ledger-api because a network policy blocks it.' },
      { label: 'wrong', note: 'raw events only', answer: raw(`Warning  Failed   3m (x9 over 27m)  kubelet  Failed to pull image "${IMAGE}": ... 401 Unauthorized\nWarning  Failed   3m (x9 over 27m)  kubelet  Error: ErrImagePull\nNormal   BackOff  12s (x108 over 27m) kubelet  Back-off pulling image "${IMAGE}"`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods', args: { namespace: 'ledger' } }, { tool: 'list_warning_events', args: { namespace: 'ledger', limit: 40 } }],
    facts: [new RegExp(`ledger/${POD}: phase Pending.*waiting: ImagePullBackOff`), /Failed to pull image "ghcr\.io\/acme-private\/ledger-sync:1\.0\.3".*failed to authorize: failed to fetch anonymous token/],
    absent: [/ledger-api-\w+-\w+:/],
    objects: [{ path: '/apis/apps/v1/namespaces/ledger/deployments/ledger-api', facts: [/"imagePullSecrets":\[\{"name":"ghcr-pull"\}\]/] }],
  },
};
