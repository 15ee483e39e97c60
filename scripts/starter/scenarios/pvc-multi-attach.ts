import { Cluster, appNamespace, baseCluster, claim, deployment, event, lines, linesAfter, replica, replicaSet, service, startedAt, volume } from '../builder';
import { WRONG, raw, verdictBlock } from '../patterns';
import { podOf, waiting, type StarterScenario } from '../scenario';

/** A rolling update of a one-replica deployment with a ReadWriteOnce EBS volume: the new pod lands on another node, Multi-Attach. */

const IMAGE_NEW = 'ghcr.io/acme/wiki:1.43.0';

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-pvc-multi-attach',
    name: 'Starter: wiki rollout stuck on a Multi-Attach error',
    description: 'wiki has one replica, a ReadWriteOnce EBS volume and the default RollingUpdate strategy. The update started a new pod on the other eu-west-1b node while the old pod still holds the volume: the attach fails (Multi-Attach) and the new pod stays in ContainerCreating.',
    recordedAt: '2026-11-26T14:25:00Z',
  });
  const { nodes } = baseCluster(c, { nodes: { 2: { zone: 'eu-west-1b' } } });
  appNamespace(c, 'docs', '700d');
  const pvc = claim(c, { namespace: 'docs', name: 'wiki-data', created: c.ago('700d'), storageClass: 'gp2', size: '50Gi', volume: 'pvc-3f2a81c4-6d0e-4b7a-9c55-0e1d2f3a4b5c' });
  const pv = volume(c, { name: 'pvc-3f2a81c4-6d0e-4b7a-9c55-0e1d2f3a4b5c', created: c.ago('700d'), claim: pvc, zone: 'eu-west-1b', size: '50Gi', storageClass: 'gp2' });
  const container = (image: string) => ({ name: 'wiki', image, ports: [{ name: 'http', containerPort: 3000, protocol: 'TCP' }], resources: { requests: { cpu: '200m', memory: '512Mi' }, limits: { memory: '1Gi' } }, volumeMounts: [{ name: 'data', mountPath: '/var/lib/wiki' }] });
  const extras = { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'wiki-data' } }] };
  const d = deployment(c, { namespace: 'docs', name: 'wiki', replicas: 1, created: c.ago('700d'), rolled: c.ago('19m'), revision: 17, stalled: true, extras, containers: [container(IMAGE_NEW)] });
  const old = replicaSet(c, d, { revision: 16, containers: [container('ghcr.io/acme/wiki:1.42.2')], created: c.ago('41d') });
  const running = replica(c, old, { node: nodes[1], created: c.ago('41d') });
  c.log('docs', running.metadata.name, 'wiki', { current: [...linesAfter('iso', startedAt(running), [[2600, 'wiki 1.42.2: database /var/lib/wiki/wiki.db opened, listening on :3000']]), ...lines(c, 'iso', [['31s', 'GET /page/runbooks/payments 200 18ms']])] });
  const stuck = replica(c, d.current, { node: nodes[2], created: c.ago('19m'), states: { wiki: { state: { waiting: 'ContainerCreating' } } } });
  const host = nodes[2].name;
  event(c, { on: d.deploy, reason: 'ScalingReplicaSet', message: `Scaled up replica set ${d.current.name} from 0 to 1`, first: '19m', component: 'deployment-controller' });
  event(c, { on: stuck, reason: 'Scheduled', message: `Successfully assigned docs/${stuck.metadata.name} to ${host}`, first: '19m', component: 'default-scheduler', newApi: true });
  event(c, { on: stuck, reason: 'FailedAttachVolume', type: 'Warning', message: `Multi-Attach error for volume "${pv.metadata.name}" Volume is already used by pod(s) ${running.metadata.name}`, first: '19m', component: 'attachdetach-controller' });
  event(c, { on: stuck, reason: 'FailedMount', type: 'Warning', message: 'Unable to attach or mount volumes: unmounted volumes=[data], unattached volumes=[data], failed to process volumes=[]: timed out waiting for the condition', first: '17m', last: '1m5s', count: 8, component: 'kubelet', host });
  service(c, { namespace: 'docs', name: 'wiki', selector: { app: 'wiki' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }], created: c.ago('700d') });
  return c;
}

const built = build();
const STUCK = podOf(built, 'docs', 'wiki-', waiting('ContainerCreating'));
const OLD = podOf(built, 'docs', 'wiki-', (p) => JSON.stringify(p.status).includes('"running"'));
const VOLUME = String.raw`volume|\bpvc\b|claim|wiki-data|\bebs\b|disk|\bpv\b`;

export const pvcMultiAttach: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'pvc-multi-attach',
    title: 'Rollout stuck: a ReadWriteOnce volume cannot attach to a second node',
    question: 'The wiki upgrade to 1.43.0 in the docs namespace started 20 minutes ago and the new pod has been "ContainerCreating" ever since. The old version still answers. What is blocking it, and how do we avoid it next time?',
    expected: [
      {
        finding: 'the new pod cannot attach the volume: Multi-Attach error, the ReadWriteOnce EBS volume is still attached to the old pod on another node',
        any_of: [
          String.raw`multi-?attach`,
          String.raw`(already|still) (being )?(attached|used|in use|mounted|held|claimed|bound to)`,
          String.raw`(can ?not|can't|cannot|could ?n[o']t|unable to|fails? to|failed to|won't|never) (get|attach|mount|grab|take|acquire)\w* (its |the |a |that )?(disk|volume|pvc|ebs|storage)`,
          String.raw`attach\w* (is |was |keeps )?(refused|fail\w*|blocked|rejected|denied|impossible)`,
          String.raw`(held|locked|owned|used) by the old (wiki )?pod`,
        ],
        all_of: [[VOLUME]],
      },
      {
        finding: 'a rolling update of a one-replica deployment with an RWO volume deadlocks: use the Recreate strategy (or co-locate the pods)',
        any_of: [
          String.raw`\brecreate\b`,
          String.raw`deadlock\w*|chicken[- ]and[- ]egg`,
          String.raw`(rolling ?update|surge|maxSurge|maxUnavailable|strategy)\b.{0,80}\b(cannot work|can't work|never (finish|complete)|waits?|single|one replica|both pods|two pods|at the same time|RWO|read ?-?write ?-?once)`,
          String.raw`(same node|co-?locat\w*|pod ?affinity|pin\w* (it |them |the pods )?to (one|a single|the same) node)`,
        ],
      },
    ],
    must_not: [
      WRONG.imagePull,
      WRONG.insufficientCpu,
      String.raw`storage ?class\b.{0,40}(missing|not found|does ?n[o']t exist)|(pvc|claim|wiki-data)\b.{0,20}(is |was )?(pending|unbound|not bound)|never provisioned`,
      WRONG.crashLoop,
      String.raw`zone\w*.{0,40}(conflict|mismatch)|(another|different|other|wrong) (availability )?zone`,
      WRONG.nodeDown,
    ],
    tags: ['unschedulable-volume', 'hard', 'storage', 'rollout', 'events'],
    difficulty: 'hard',
    verdict: { healthy: false, causes: [{ category: 'unschedulable-volume', objects: ['deployment/docs/wiki', 'persistentvolumeclaim/docs/wiki-data', `pod/docs/${STUCK}`] }] },
    fixtures: [
      { label: 'correct', note: 'the attach error and the strategy', answer: `${STUCK} was scheduled on ${'ip-10-0-3-17'} while the old pod ${OLD} still runs on ip-10-0-2-34 with the volume wiki-data mounted. It is a ReadWriteOnce EBS volume, so the attach fails: "Multi-Attach error … Volume is already used by pod(s) ${OLD}". With RollingUpdate (maxUnavailable 0 for one replica) the old pod waits for the new one and the new one waits for the volume. Scale down the old ReplicaSet to finish now, and switch the Deployment to strategy Recreate.` },
      { label: 'correct', note: 'other words', answer: 'The new wiki pod can\'t get its disk: the EBS volume is read-write-once and is still attached to the old pod, which sits on a different node. A rolling update of a single-replica app that owns an RWO disk deadlocks like this; use the Recreate strategy.' },
      { label: 'correct', note: 'with a verdict', answer: `Multi-Attach: the RWO volume is still attached to the old wiki pod on another node; a rolling update cannot work here — use Recreate.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'unschedulable-volume', objects: ['deployment/docs/wiki', 'persistentvolumeclaim/docs/wiki-data'] }], fix: 'strategy: Recreate' })}` },
      { label: 'wrong', note: 'keywords, wrong cause: a zone mismatch', answer: 'The new pod is stuck because its volume wiki-data is in another availability zone than the node (zone conflict); rolling updates are fine.' },
      { label: 'wrong', note: 'wrong cause', answer: 'The wiki-data PVC is unbound: its storage class gp2 is missing, so the volume is never provisioned.' },
      { label: 'wrong', note: 'negation of the cause', answer: 'The volume is not the problem. The new pod is pulling ghcr.io/acme/wiki:1.43.0 and the image pull fails.' },
      { label: 'wrong', note: 'raw output', answer: raw(`Warning  FailedAttachVolume  19m  attachdetach-controller  Multi-Attach error for volume "pvc-3f2a81c4-6d0e-4b7a-9c55-0e1d2f3a4b5c" Volume is already used by pod(s) ${OLD}\nWarning  FailedMount  65s (x8 over 17m)  kubelet  Unable to attach or mount volumes: unmounted volumes=[data]`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_warning_events', args: { namespace: 'docs' } }, { tool: 'list_unavailable_deployments', args: { namespace: 'docs' } }],
    facts: [new RegExp(`FailedAttachVolume: Multi-Attach error for volume "pvc-3f2a81c4-6d0e-4b7a-9c55-0e1d2f3a4b5c" Volume is already used by pod\\(s\\) ${OLD}`), /FailedMount \(x8\): Unable to attach or mount volumes/, /docs\/wiki: .*ProgressDeadlineExceeded/],
    objects: [{ path: '/apis/apps/v1/namespaces/docs/deployments/wiki', facts: [/"strategy":\{"type":"RollingUpdate"/, /"claimName":"wiki-data"/] }, { path: '/api/v1/namespaces/docs/persistentvolumeclaims/wiki-data', facts: [/"accessModes":\["ReadWriteOnce"\]/] }],
  },
};
