import { Cluster, appNamespace, baseCluster, deployment, event, httpProbe, imagePullReplica, lines, linesAfter, replica, replicaSet, startedAt } from '../builder';
import { C, WRONG, raw, verdictBlock } from '../patterns';
import { podOf, waiting, type StarterScenario } from '../scenario';

/** One release, two unrelated mistakes: frontend's tag has a letter O for a zero, orders-api references a Secret that was never created. */

const BAD_IMAGE = 'ghcr.io/acme/frontend:5.0.O';

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-two-causes-image-and-secret',
    name: 'Starter: one release, two faults — a mistyped image tag and a missing Secret',
    description: 'This morning\'s release changed two services. frontend now points at ghcr.io/acme/frontend:5.0.O (a letter O): not found, ImagePullBackOff. orders-api 4.0 reads DB_PASSWORD from Secret orders-db-v2, which was never created: CreateContainerConfigError. Both rollouts are stuck; the old pods of each still serve, so the shop half-works.',
    recordedAt: '2026-12-04T10:30:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'shop', '500d');
  const fe = (image: string) => ({ name: 'frontend', image, ports: [{ name: 'http', containerPort: 3000, protocol: 'TCP' }], resources: { requests: { cpu: '200m', memory: '256Mi' }, limits: { memory: '512Mi' } }, readinessProbe: httpProbe('/healthz', 'http') });
  const f = deployment(c, { namespace: 'shop', name: 'frontend', replicas: 2, created: c.ago('500d'), rolled: c.ago('47m'), revision: 40, stalled: true, containers: [fe(BAD_IMAGE)] });
  const fOld = replicaSet(c, f, { revision: 39, containers: [fe('ghcr.io/acme/frontend:4.9.2')], created: c.ago('8d') });
  for (const n of [nodes[0], nodes[1]]) {
    const p = replica(c, fOld, { node: n, created: c.ago('8d') });
    c.log('shop', p.metadata.name, 'frontend', { current: [...linesAfter('iso', startedAt(p), [[1100, 'frontend 4.9.2 ready on :3000']]), ...lines(c, 'iso', [['19s', 'GET / 200 44ms']])] });
  }
  imagePullReplica(c, f.current, { node: nodes[2], created: '47m', container: 'frontend', image: BAD_IMAGE, error: `rpc error: code = NotFound desc = failed to pull and unpack image "${BAD_IMAGE}": failed to resolve reference "${BAD_IMAGE}": ${BAD_IMAGE}: not found` });
  event(c, { on: f.deploy, reason: 'ScalingReplicaSet', message: `Scaled up replica set ${f.current.name} from 0 to 1`, first: '47m', component: 'deployment-controller' });

  const env = (secret: string) => [{ name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: secret, key: 'password' } } }];
  const oa = (image: string, secret: string) => ({ name: 'orders-api', image, env: env(secret), ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }], resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { memory: '1536Mi' } } });
  const o = deployment(c, { namespace: 'shop', name: 'orders-api', replicas: 2, created: c.ago('500d'), rolled: c.ago('46m'), revision: 44, stalled: true, containers: [oa('ghcr.io/acme/orders-api:4.0.0', 'orders-db-v2')] });
  const oOld = replicaSet(c, o, { revision: 43, containers: [oa('ghcr.io/acme/orders-api:3.9.1', 'orders-db')], created: c.ago('8d') });
  for (const n of [nodes[1], nodes[2]]) {
    const p = replica(c, oOld, { node: n, created: c.ago('8d') });
    c.log('shop', p.metadata.name, 'orders-api', { current: [...linesAfter('iso', startedAt(p), [[9_800, 'INFO  Started OrdersApplication in 9.6 seconds']]), ...lines(c, 'iso', [['44s', 'INFO  POST /orders 201 88ms']])] });
  }
  const stuck = replica(c, o.current, { node: nodes[0], created: c.ago('46m'), states: { 'orders-api': { state: { waiting: 'CreateContainerConfigError', message: 'secret "orders-db-v2" not found' } } } });
  const host = nodes[0].name;
  event(c, { on: stuck, reason: 'Failed', type: 'Warning', message: 'Error: secret "orders-db-v2" not found', first: '45m50s', last: '21s', count: 212, component: 'kubelet', host, fieldPath: 'spec.containers{orders-api}' });
  event(c, { on: o.deploy, reason: 'ScalingReplicaSet', message: `Scaled up replica set ${o.current.name} from 0 to 1`, first: '46m', component: 'deployment-controller' });
  return c;
}

const built = build();
const FE = podOf(built, 'shop', 'frontend-', waiting('ImagePullBackOff'));
const OA = podOf(built, 'shop', 'orders-api-', waiting('CreateContainerConfigError'));

export const twoCausesImageAndSecret: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'two-causes-image-and-secret',
    title: 'Two causes: a mistyped image tag and a missing Secret in one release',
    question: 'This morning\'s release in the shop namespace updated frontend and orders-api. Neither new version has gone live after 45 minutes, and each team says its own change is fine. What is wrong?',
    expected: [
      {
        finding: 'frontend\'s new image ghcr.io/acme/frontend:5.0.O does not exist (a letter O instead of a zero): ImagePullBackOff, not found',
        any_of: [
          String.raw`(tag|image|version|5\.0\.O)\b.{0,60}\b(${C.absent}|typo\w*|misspel\w*|mis-?typed|letter o|capital o|manifest unknown|not in the registry|never (pushed|published|built))`,
          String.raw`(letter|capital) ["'\x60]?O\b|\bO\b\W{0,3}(instead of|rather than|not) (a |the )?(zero|0)`,
          String.raw`(wrong|bad|mistyped|non-?existent|invalid|bogus|misspelt|misspelled) (image )?(tag|version)`,
        ],
        all_of: [[String.raw`front-?end`]],
      },
      {
        finding: 'orders-api 4.0 references Secret orders-db-v2, which does not exist: CreateContainerConfigError',
        any_of: [
          String.raw`(orders-db-v2|secret)\b.{0,60}\b(${C.absent}|nobody created|no one created|never (created|made))`,
          String.raw`(missing|non-?existent|absent|unknown) (\w+ )?secret`,
          C.configError,
        ],
        all_of: [[String.raw`orders-db-v2|secret`]],
      },
    ],
    must_not: [
      WRONG.oom,
      WRONG.insufficientCpu,
      String.raw`\b401\b|unauthori[sz]ed|(registry|pull|imagePull) ?secrets?\b.{0,20}(is |are )?(missing|absent|not set)|(missing|no) (image ?pull ?|registry |pull )secrets?|(needs?|requires?) (registry )?credentials`,
      WRONG.crashLoop,
      WRONG.netpol,
      WRONG.quota,
    ],
    tags: ['image-pull', 'hard', 'bad-config', 'two-causes', 'release'],
    difficulty: 'hard',
    verdict: {
      healthy: false,
      causes: [
        { category: 'image-pull', objects: ['deployment/shop/frontend', `pod/shop/${FE}`] },
        { category: 'bad-config', objects: ['deployment/shop/orders-api', `pod/shop/${OA}`] },
      ],
    },
    fixtures: [
      { label: 'correct', note: 'both causes', answer: `Two separate mistakes. frontend: the new pod ${FE} is in ImagePullBackOff — "${BAD_IMAGE}: not found"; the tag is 5.0.O with a capital letter O, not 5.0.0. orders-api: the new pod ${OA} is in CreateContainerConfigError — "secret \\"orders-db-v2\\" not found"; 4.0 reads DB_PASSWORD from a Secret that was never created (3.9.1 uses orders-db). Fix the tag and create the Secret; the old versions keep serving meanwhile.` },
      { label: 'correct', note: 'other words', answer: 'Both teams have a bug. The front-end release points at an image version that isn\'t in the registry — "5.0.O" spelled with the letter O — so it can\'t be downloaded; the orders release expects a password Secret named orders-db-v2 that nobody created, so its container is never set up.' },
      { label: 'correct', note: 'with a two-cause verdict', answer: `frontend: image tag 5.0.O not found; orders-api: secret orders-db-v2 not found.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'image-pull', objects: ['deployment/shop/frontend'] }, { category: 'bad-config', objects: ['deployment/shop/orders-api'] }], fix: 'fix the frontend tag; create the orders-db-v2 Secret' })}` },
      { label: 'wrong', note: 'only one of the two causes', answer: 'frontend cannot pull its image: the tag 5.0.O does not exist. Fix the tag and both services will come up.' },
      { label: 'wrong', note: 'keywords, wrong mechanism for the image', answer: 'The frontend pull fails with 401 Unauthorized: the registry secret is missing. orders-api is waiting for it too.' },
      { label: 'wrong', note: 'negation of one cause', answer: 'The orders-db-v2 Secret exists and is fine; orders-api is crash-looping on a code bug, and frontend has the wrong tag.' },
      { label: 'wrong', note: 'raw output', answer: raw(`${FE}   0/1   ImagePullBackOff             0   47m\n${OA}   0/1   CreateContainerConfigError   0   46m`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods', args: { namespace: 'shop' } }, { tool: 'list_unavailable_deployments', args: { namespace: 'shop' } }],
    facts: [new RegExp(`shop/${FE}: phase Pending.*waiting: ImagePullBackOff \\(Back-off pulling image "ghcr\\.io/acme/frontend:5\\.0\\.O"`), new RegExp(`shop/${OA}: phase Pending.*waiting: CreateContainerConfigError \\(secret "orders-db-v2" not found\\)`), /shop\/frontend: .*ProgressDeadlineExceeded/, /shop\/orders-api: .*ProgressDeadlineExceeded/],
  },
};
