import { Cluster, appNamespace, baseCluster, configMap, deployment, event, httpProbe, lines, linesAfter, replica, replicaSet, startedAt, webApp } from '../builder';
import { C, WRONG, raw, verdictBlock } from '../patterns';
import type { StarterScenario } from '../scenario';

/** A rollout stuck on CreateContainerConfigError: the new template reads a key the ConfigMap does not have. */

const NEW_POD_SEED = 'rev7-a';

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-configmap-missing-key',
    name: 'Starter: storefront rollout stuck on a missing ConfigMap key',
    description: 'storefront 2.5.0 reads FEATURE_FLAGS from the key feature-flags of ConfigMap storefront-config, which has features.json instead; the new pod never starts and the rollout stalls.',
    recordedAt: '2026-11-21T14:05:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'shop', '120d');
  configMap(c, 'shop', 'storefront-config', c.ago('120d'), ['api-url', 'features.json', 'log-level']);
  const env = (key: string) => [
    { name: 'API_URL', valueFrom: { configMapKeyRef: { name: 'storefront-config', key: 'api-url' } } },
    { name: 'FEATURE_FLAGS', valueFrom: { configMapKeyRef: { name: 'storefront-config', key } } },
  ];
  const container = (image: string, key: string) => ({
    name: 'storefront',
    image,
    ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
    env: env(key),
    resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '512Mi' } },
    readinessProbe: httpProbe('/healthz', 'http'),
  });
  const d = deployment(c, { namespace: 'shop', name: 'storefront', replicas: 3, created: c.ago('120d'), rolled: c.ago('21m'), revision: 7, stalled: true, containers: [container('ghcr.io/acme/storefront:2.5.0', 'feature-flags')] });
  // Revision 6 still serves: the rollout surged one new pod and waits for it.
  const old = replicaSet(c, d, { revision: 6, replicas: 3, containers: [container('ghcr.io/acme/storefront:2.4.3', 'features.json')], created: c.ago('9d') });
  for (let i = 0; i < 3; i++) {
    const p = replica(c, old, { node: nodes[i], created: c.ago('9d') });
    c.log('shop', p.metadata.name, 'storefront', {
      current: [...linesAfter('iso', startedAt(p), [[1840, 'storefront 2.4.3 listening on :8080']]), ...lines(c, 'iso', [[`${20 + i * 7}s`, 'GET /api/products?page=2 200 38ms']])],
    });
  }
  const message = "couldn't find key feature-flags in ConfigMap shop/storefront-config";
  const stuck = replica(c, d.current, { node: nodes[1], created: c.ago('21m'), seed: NEW_POD_SEED, states: { storefront: { state: { waiting: 'CreateContainerConfigError', message } } } });
  const host = nodes[1]?.name;
  event(c, { on: d.deploy, reason: 'ScalingReplicaSet', message: `Scaled up replica set ${d.current.name} from 0 to 1`, first: '21m', component: 'deployment-controller' });
  event(c, { on: stuck, reason: 'Scheduled', message: `Successfully assigned shop/${stuck.metadata.name} to ${host}`, first: '21m', component: 'default-scheduler', newApi: true });
  event(c, { on: stuck, reason: 'Pulling', message: 'Pulling image "ghcr.io/acme/storefront:2.5.0"', first: '20m58s', component: 'kubelet', host, fieldPath: 'spec.containers{storefront}' });
  event(c, { on: stuck, reason: 'Pulled', message: 'Successfully pulled image "ghcr.io/acme/storefront:2.5.0" in 4.218s (4.218s including waiting). Image size: 48211987 bytes.', first: '20m53s', component: 'kubelet', host, fieldPath: 'spec.containers{storefront}' });
  event(c, { on: stuck, reason: 'Failed', type: 'Warning', message: `Error: ${message}`, first: '20m53s', last: '14s', count: 96, component: 'kubelet', host, fieldPath: 'spec.containers{storefront}' });
  event(c, { on: stuck, reason: 'Pulled', message: 'Container image "ghcr.io/acme/storefront:2.5.0" already present on machine', first: '20m40s', last: '14s', count: 95, component: 'kubelet', host, fieldPath: 'spec.containers{storefront}' });
  webApp(c, { namespace: 'shop', name: 'cart', image: 'ghcr.io/acme/cart:1.9.2', replicas: 2, created: '120d', rolled: '6d', revision: 4 }, nodes);
  webApp(c, { namespace: 'shop', name: 'catalog', image: 'ghcr.io/acme/catalog:5.1.0', replicas: 2, created: '120d', rolled: '13d', revision: 9 }, nodes.slice(1));
  return c;
}

/** The new pod, said in any of the ways an answer names it. */
const SUBJECT = String.raw`storefront|new (pod|replica|version|revision)|2\.5\.0|revision 7|the rollout`;
const KEY = String.raw`feature[-_ ]?flags`;

export const configmapMissingKey: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'configmap-missing-key',
    title: 'Rollout stuck: a ConfigMap key the new version reads is missing',
    question: 'We started rolling out storefront 2.5.0 in the shop namespace about 20 minutes ago and it still has not finished. What is blocking it?',
    expected: [
      {
        finding: 'the new storefront pod never starts its container (CreateContainerConfigError)',
        any_of: C.neverStarts,
        all_of: [[SUBJECT]],
      },
      {
        finding: 'ConfigMap storefront-config has no key feature-flags (the template references a key that is not there)',
        any_of: [
          String.raw`${KEY}\W{1,3}(key |entry )?(is |was )?(${C.absent})`,
          String.raw`${KEY}.{0,60}\b(${C.absent})`,
          String.raw`(missing|lacks|without|no such|no|couldn't find|could not find|can't find|cannot find|non-?existent|absent)\W{1,3}(the |a )?(configmap |config ?map )?(key |entry )?(called |named )?["'\x60]?${KEY}`,
          String.raw`(no longer has|does ?n[o']t (have|hold|contain)|has no|holds no|lacks|is missing)\W{1,3}(the |a |any )?(key|entry|${KEY})`,
          String.raw`(missing|non-?existent|absent|unknown|renamed|stale) (configmap |config ?map )?key`,
          String.raw`(the|that|this|a|its) (configmap |config ?map )?(key|entry)\b.{0,30}\b(${C.absent})`,
          String.raw`(key|entry) that (is ?n[o']t|is not|does ?n[o']t exist|was renamed|no longer exists)`,
        ],
        all_of: [[KEY]],
      },
    ],
    must_not: [
      WRONG.imagePull,
      WRONG.oom,
      WRONG.crashLoop,
      WRONG.insufficientCpu,
      WRONG.probe,
      WRONG.quota,
      WRONG.badContent,
      String.raw`(storefront-config|the config ?map)\W{1,3}(config ?map\W{1,3})?(is |was )?(missing|deleted|not found|does ?n[o']t exist|absent)(?!\s+(the|a|an|its|key|entry|feature))`,
    ],
    tags: ['bad-config', 'easy', 'rollout', 'configmap', 'events'],
    difficulty: 'easy',
    verdict: { healthy: false, causes: [{ category: 'bad-config', objects: ['configmap/shop/storefront-config', 'deployment/shop/storefront'] }] },
    fixtures: [
      {
        label: 'correct',
        note: 'the diagnosis in kubectl words',
        answer:
          'The rollout is stuck on its first new pod. storefront revision 7 (image 2.5.0) sets FEATURE_FLAGS from configMapKeyRef storefront-config/feature-flags, but the ConfigMap only has api-url, features.json and log-level, so the new pod sits in CreateContainerConfigError ("couldn\'t find key feature-flags in ConfigMap shop/storefront-config") and the Deployment reports ProgressDeadlineExceeded. The three 2.4.3 pods keep serving. Fix: add the feature-flags key (or point the template back at features.json) and the rollout will continue.',
      },
      {
        label: 'correct',
        note: 'other words, no kubectl status names',
        answer: 'Nothing is wrong with the image or the nodes: the new storefront replica never gets its container started because the config map storefront-config has no entry called feature-flags — the 2.5.0 manifest expects a key that was renamed to features.json. Old replicas are still up, so customers are not affected yet.',
      },
      {
        label: 'correct',
        note: 'short answer with the structured verdict',
        answer: `storefront 2.5.0 references a missing ConfigMap key: feature-flags is not in shop/storefront-config, so its pod fails with CreateContainerConfigError.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'bad-config', objects: ['configmap/shop/storefront-config'] }], fix: 'add key feature-flags to storefront-config' })}`,
      },
      {
        label: 'wrong',
        note: 'keywords of the scenario in a wrong diagnosis: blames the image pull and clears the ConfigMap',
        answer: 'The new storefront pod cannot start because its image ghcr.io/acme/storefront:2.5.0 cannot be pulled (ImagePullBackOff). The ConfigMap storefront-config and its feature-flags key look fine. Check the registry credentials.',
      },
      {
        label: 'wrong',
        note: 'negation: says the ConfigMap is not the problem',
        answer: 'It is not a ConfigMap problem: feature-flags is present in storefront-config. The rollout is simply waiting for capacity — the nodes have insufficient cpu for the surge pod.',
      },
      {
        label: 'wrong',
        note: 'keywords, wrong mechanism: claims the container crash-loops on bad flag contents',
        answer: 'storefront 2.5.0 reads the feature-flags value from storefront-config, the JSON inside is malformed, and the container is crash-looping (CrashLoopBackOff) on startup.',
      },
      {
        label: 'wrong',
        note: 'raw kubectl output, no diagnosis',
        answer: raw(
          `NAME                          READY   STATUS                       RESTARTS   AGE\nstorefront-7f9c6b5d84-x2k9q   0/1     CreateContainerConfigError   0          21m\n\nWarning  Failed  14s (x96 over 20m)  kubelet  Error: couldn't find key feature-flags in ConfigMap shop/storefront-config`,
          'Here is what I found:',
        ),
      },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods' }, { tool: 'list_unavailable_deployments' }, { tool: 'list_warning_events', args: { namespace: 'shop' } }],
    facts: [
      /shop\/storefront-\w+-\w+: phase Pending.*waiting: CreateContainerConfigError \(couldn't find key feature-flags in ConfigMap shop\/storefront-config\)/,
      /shop\/storefront: 3\/3 available .*ProgressDeadlineExceeded/,
      /Failed \(x96\): Error: couldn't find key feature-flags/,
    ],
    absent: [/storefront-\w+-\w+: .*CrashLoopBackOff/, /ImagePull/],
    objects: [{ path: '/api/v1/namespaces/shop/configmaps/storefront-config', facts: [/"features\.json"/] }],
  },
};
