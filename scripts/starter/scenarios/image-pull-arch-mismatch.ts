import { Cluster, appNamespace, baseCluster, deployment, event, httpProbe, imagePullReplica, lines, linesAfter, replica, replicaSet, startEvents, startedAt } from '../builder';
import { C, WRONG, raw, verdictBlock } from '../patterns';
import { podOf, waiting, type StarterScenario } from '../scenario';

/** An amd64-only image on a new Graviton (arm64) node: "no match for platform in manifest". */

const IMAGE = 'ghcr.io/acme/report-api:2.8.0';
const ARM = 'ip-10-0-3-17.eu-west-1.compute.internal';

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-image-pull-arch-mismatch',
    name: 'Starter: report-api has no arm64 image for the new Graviton node',
    description: 'The cluster autoscaler added an arm64 node (m7g.xlarge) two days ago. report-api 2.8.0 is built for linux/amd64 only: its pod on the new node cannot pull ("no match for platform in manifest"), the one on an amd64 node runs.',
    recordedAt: '2026-11-24T13:50:00Z',
  });
  const { nodes } = baseCluster(c, { nodes: { 2: { arch: 'arm64', instanceType: 'm7g.xlarge', nodegroup: 'graviton-2026-11', created: c.ago('2d1h') } } });
  appNamespace(c, 'reporting', '150d');
  const container = (image: string) => ({ name: 'report-api', image, ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }], resources: { requests: { cpu: '250m', memory: '384Mi' }, limits: { memory: '768Mi' } }, readinessProbe: httpProbe('/healthz', 'http') });
  const d = deployment(c, { namespace: 'reporting', name: 'report-api', replicas: 3, created: c.ago('150d'), rolled: c.ago('41m'), revision: 9, stalled: true, containers: [container(IMAGE)] });
  const old = replicaSet(c, d, { revision: 8, containers: [container('ghcr.io/acme/report-api:2.7.3')], created: c.ago('12d') });
  for (const n of [nodes[1], nodes[0]]) {
    const p = replica(c, old, { node: n, created: c.ago('12d') });
    c.log('reporting', p.metadata.name, 'report-api', { current: [...linesAfter('iso', startedAt(p), [[1220, 'INFO report-api 2.7.3 ready on :8080']]), ...lines(c, 'iso', [['38s', 'INFO GET /reports/weekly?team=ops 200 312ms']])] });
  }
  const fresh = replica(c, d.current, { node: nodes[0], created: c.ago('41m') });
  startEvents(c, fresh, { node: nodes[0], at: '41m', image: IMAGE, container: 'report-api', pullSeconds: 6 });
  c.log('reporting', fresh.metadata.name, 'report-api', { current: [...linesAfter('iso', startedAt(fresh), [[1190, 'INFO report-api 2.8.0 ready on :8080']]), ...lines(c, 'iso', [['12s', 'INFO GET /reports/weekly?team=sales 200 287ms']])] });
  imagePullReplica(c, d.current, { node: nodes[2], created: '40m', container: 'report-api', image: IMAGE, error: `failed to pull and unpack image "${IMAGE}": no match for platform in manifest: not found` });
  event(c, { on: d.deploy, reason: 'ScalingReplicaSet', message: `Scaled up replica set ${d.current.name} from 0 to 1`, first: '41m', component: 'deployment-controller' });
  event(c, { on: d.deploy, reason: 'ScalingReplicaSet', message: `Scaled down replica set ${old.name} from 3 to 2`, first: '40m', component: 'deployment-controller' });
  event(c, { on: d.deploy, reason: 'ScalingReplicaSet', message: `Scaled up replica set ${d.current.name} from 1 to 2`, first: '40m', component: 'deployment-controller' });
  return c;
}

const built = build();
const STUCK = podOf(built, 'reporting', 'report-api-', waiting('ImagePullBackOff'));
/** The new node's architecture, however an answer names it. */
const ARM_NODE = String.raw`arm64|aarch64|graviton|\barm\b|m7g|ip-10-0-3-17`;

export const imagePullArchMismatch: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'image-pull-arch-mismatch',
    title: 'Image pull fails on an arm64 node: the image is amd64 only',
    question: 'The report-api rollout in the reporting namespace has been stuck for 40 minutes. One new pod runs fine, the other never starts, and both use the same image. Why?',
    expected: [
      { finding: 'the stuck report-api pod cannot pull its image (ErrImagePull / ImagePullBackOff)', any_of: [C.imagePull] },
      {
        finding: 'the image has no linux/arm64 variant, and that pod was scheduled on the new arm64 (Graviton) node',
        any_of: [
          'no match for platform',
          String.raw`(only|just) (published |built |available |exists |pushed |released |made |compiled )?(for |as )?(linux/)?(amd64|x86\w*|intel|x64)`,
          String.raw`(amd64|x86\w*|intel|x64)[- ]only|(linux/)?(amd64|x86\w*) only\b`,
          String.raw`\bno (linux/)?(arm64|aarch64|arm) (variant|image|build|manifest|version|layer|platform)`,
          String.raw`(no|not an?|isn't an?|is not an?|without an?|lacks an?) multi-?(arch|architecture|platform)`,
          String.raw`(architecture|\barch\b|platform|cpu type)\W{0,3}(mismatch|conflict|incompatib\w*|is wrong)`,
          String.raw`(mismatch\w*|wrong|incompatible|unsupported) (cpu )?(architecture|\barch\b|platform)`,
          String.raw`(no|can ?not|can't|cannot|doesn't|does not|fails? to) (find )?(a |any )?(matching|compatible|suitable) (platform|architecture|variant|image)`,
        ],
        all_of: [[ARM_NODE]],
      },
    ],
    must_not: [
      String.raw`(tag|image|version)\W.{0,40}\b(does ?n[o']t exist|not found|wrong tag|typo|manifest unknown|never (pushed|published))`,
      String.raw`\b401\b|unauthori[sz]ed|(missing|no) (image ?pull ?)?secret`,
      String.raw`rate[ -]?limit\w*|toomanyrequests|too many requests`,
      WRONG.oom,
      WRONG.crashLoop,
      WRONG.insufficientCpu,
      WRONG.nodeDown,
    ],
    tags: ['image-pull', 'hard', 'architecture', 'nodes', 'rollout'],
    difficulty: 'hard',
    verdict: { healthy: false, causes: [{ category: 'image-pull', objects: ['deployment/reporting/report-api', `pod/reporting/${STUCK}`, `node/${ARM}`] }] },
    fixtures: [
      {
        label: 'correct',
        note: 'the diagnosis: platform mismatch on the Graviton node',
        answer: `${STUCK} is in ImagePullBackOff on ${ARM}, the m7g.xlarge (arm64) node the autoscaler added two days ago. containerd says "no match for platform in manifest": ${IMAGE} is published for linux/amd64 only. The other new pod landed on an amd64 node and runs. Publish a multi-arch image, or keep report-api off arm64 with a nodeSelector kubernetes.io/arch=amd64.`,
      },
      { label: 'correct', note: 'other words', answer: 'The image only exists for x86: the second pod was placed on the new ARM (Graviton) worker, so the node cannot find a matching architecture in the manifest and the pull fails; the first pod is on an Intel node and is fine.' },
      { label: 'correct', note: 'with a verdict block', answer: `report-api 2.8.0 cannot be pulled on the arm64 node: no arm64 variant in its manifest.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'image-pull', objects: ['deployment/reporting/report-api', `node/${ARM}`] }], fix: 'build a multi-arch image or pin kubernetes.io/arch=amd64' })}` },
      { label: 'wrong', note: 'keywords, wrong cause: blames a missing tag and rules out the architecture', answer: 'The pull fails because the tag 2.8.0 does not exist in ghcr.io (manifest unknown). The arm64 node is not the issue — the image is multi-arch.' },
      { label: 'wrong', note: 'negation', answer: 'It is not an image problem. The new report-api pod is crash-looping with exec format error after starting on the node.' },
      { label: 'wrong', note: 'node keywords, wrong diagnosis', answer: 'Node ip-10-0-3-17 is NotReady, so the pod scheduled there never starts; cordon the node.' },
      { label: 'wrong', note: 'raw events, no diagnosis', answer: raw(`Warning  Failed  2m (x12 over 40m)  kubelet  Failed to pull image "${IMAGE}": failed to pull and unpack image "${IMAGE}": no match for platform in manifest: not found`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods', args: { namespace: 'reporting' } }, { tool: 'list_warning_events', args: { namespace: 'reporting' } }],
    facts: [new RegExp(`reporting/${STUCK}: phase Pending, node ${ARM.replaceAll('.', '\\.')}; container report-api: waiting: ImagePullBackOff`), /no match for platform in manifest: not found/],
    objects: [{ path: `/api/v1/nodes/${ARM}`, facts: [/"kubernetes\.io\/arch":"arm64"/, /"node\.kubernetes\.io\/instance-type":"m7g\.xlarge"/] }],
  },
};
