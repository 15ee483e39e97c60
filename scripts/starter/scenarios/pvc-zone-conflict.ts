import { Cluster, appNamespace, baseCluster, claim, event, lines, linesAfter, pendingReplica, replica, service, startedAt, statefulSet, volume, webApp } from '../builder';
import { C, WRONG, raw, verdictBlock } from '../patterns';
import type { StarterScenario } from '../scenario';

/** kafka-2's volume lives in eu-west-1c, and the only node there is cordoned: a volume node affinity conflict. */

const CORDONED = 'ip-10-0-3-17.eu-west-1.compute.internal';
const MESSAGE = '0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) had volume node affinity conflict. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.';

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-pvc-zone-conflict',
    name: 'Starter: kafka-2 cannot follow its volume (zone conflict, node cordoned)',
    description: 'The node of eu-west-1c was drained for maintenance 50 minutes ago and is still cordoned. kafka-2 was evicted and recreated, but its EBS volume (PV of data-kafka-2) can only attach in eu-west-1c: no schedulable node there.',
    recordedAt: '2026-11-26T09:10:00Z',
  });
  const { nodes } = baseCluster(c, { nodes: { 2: { unschedulable: '50m' } } });
  appNamespace(c, 'streaming', '330d');
  const sts = statefulSet(c, {
    namespace: 'streaming',
    name: 'kafka',
    replicas: 3,
    created: c.ago('330d'),
    serviceName: 'kafka-headless',
    claims: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'gp3', resources: { requests: { storage: '200Gi' } } } }],
    containers: [{ name: 'kafka', image: 'bitnami/kafka:3.8.1', ports: [{ name: 'client', containerPort: 9092, protocol: 'TCP' }], resources: { requests: { cpu: '1', memory: '4Gi' }, limits: { memory: '6Gi' } }, volumeMounts: [{ name: 'data', mountPath: '/bitnami/kafka' }] }],
  });
  service(c, { namespace: 'streaming', name: 'kafka-headless', selector: { app: 'kafka' }, ports: [{ name: 'client', port: 9092, targetPort: 'client' }], created: c.ago('330d'), clusterIp: 'None' });
  for (let i = 0; i < 3; i++) {
    const n = nodes[i as 0 | 1 | 2];
    const pvc = claim(c, { namespace: 'streaming', name: `data-kafka-${i}`, created: c.ago('330d'), storageClass: 'gp3', size: '200Gi', volume: `pvc-${c.uid('pv', '', String(i))}`, labels: { app: 'kafka' } });
    volume(c, { name: `pvc-${c.uid('pv', '', String(i))}`, created: c.ago('330d'), claim: pvc, zone: n.zone, size: '200Gi', storageClass: 'gp3' });
    const volumes = [{ name: 'data', persistentVolumeClaim: { claimName: `data-kafka-${i}` } }];
    if (i < 2) {
      const p = replica(c, sts, { node: n, created: c.ago('27d'), volumes });
      c.log('streaming', p.metadata.name, 'kafka', { current: [...linesAfter('iso', startedAt(p), [[8_000, `[KafkaServer id=${i}] started (kafka.server.KafkaServer)`]]), ...lines(c, 'iso', [['6m', `[Partition orders-7 broker=${i}] Shrinking ISR from 0,1,2 to 0,1. Leader: (highWatermark: 88412201, endOffset: 88412240). Out of sync replicas: (brokerId: 2, endOffset: 88409112). (kafka.cluster.Partition)`]])] });
    } else {
      pendingReplica(c, sts, { created: '49m', message: MESSAGE, volumes });
    }
  }
  event(c, { on: nodes[2].object, reason: 'NodeNotSchedulable', message: `Node ${CORDONED} status is now: NodeNotSchedulable`, first: '50m', component: 'kubelet', host: CORDONED });
  webApp(c, { namespace: 'streaming', name: 'orders-consumer', image: 'ghcr.io/acme/orders-consumer:2.0.4', replicas: 2, created: '300d', rolled: '15d', revision: 9, service: false, requestLog: 'INFO committed offsets for orders-[0-11]' }, [nodes[0], nodes[1]]);
  return c;
}

export const pvcZoneConflict: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'pvc-zone-conflict',
    title: 'Pending: the pod\'s volume is in a zone whose only node is cordoned',
    question: 'Since this morning\'s node maintenance, kafka in the streaming namespace runs two brokers out of three. The third never came back. Why?',
    expected: [
      { finding: 'kafka-2 is Pending: it cannot be scheduled', any_of: [C.scheduling, String.raw`\bpending\b`], all_of: [[String.raw`kafka|broker`]] },
      {
        finding: 'its volume (data-kafka-2) is pinned to eu-west-1c, and the only node in that zone is cordoned (SchedulingDisabled)',
        any_of: [
          String.raw`volume node affinity`,
          String.raw`cordon\w*|SchedulingDisabled|drain\w*`,
          String.raw`(marked|left|set|still|remains?|is) (\w+ )?unschedulable`,
          String.raw`(node|worker|machine)\b.{0,30}\b(unschedulable|disabled|out of service|not schedulable)`,
        ],
        all_of: [[String.raw`eu-west-1c|\bzone\b|\baz\b|volume|\bpv\b|data-kafka-2|\bebs\b|disk`]],
      },
    ],
    must_not: [
      WRONG.insufficientCpu,
      WRONG.insufficientMemory,
      String.raw`(storage ?class|provision\w*)\b.{0,40}(missing|fail\w*|not found|does ?n[o']t exist)`,
      String.raw`(pvc|claim|data-kafka-2)\b.{0,20}(is |was )?(pending|unbound|not bound)|unbound (pvc|claim)`,
      WRONG.imagePull,
      WRONG.crashLoop,
      String.raw`(zookeeper|broker id)\b.{0,40}(registered|conflict|stale|duplicate)`,
    ],
    tags: ['unschedulable-volume', 'hard', 'storage', 'zones', 'maintenance'],
    difficulty: 'hard',
    verdict: { healthy: false, causes: [{ category: 'unschedulable-volume', objects: ['pod/streaming/kafka-2', 'persistentvolumeclaim/streaming/data-kafka-2', `node/${CORDONED}`] }] },
    fixtures: [
      { label: 'correct', note: 'zone, volume and cordon', answer: `kafka-2 is Pending: "${MESSAGE}". Its claim data-kafka-2 is bound to an EBS volume whose node affinity is topology.kubernetes.io/zone=eu-west-1c, and the only eu-west-1c node, ${CORDONED}, is still cordoned (SchedulingDisabled) since the drain. Uncordon it (or add a node in eu-west-1c).` },
      { label: 'correct', note: 'other words', answer: 'The third broker\'s disk lives in one availability zone (c), and the maintenance left that zone\'s only worker marked unschedulable, so the scheduler has nowhere to put the broker next to its disk. Finish the maintenance and uncordon the node.' },
      { label: 'correct', note: 'with a verdict', answer: `kafka-2 cannot be scheduled: volume node affinity conflict — its PV is in eu-west-1c and that node is cordoned.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'unschedulable-volume', objects: ['pod/streaming/kafka-2', `node/${CORDONED}`] }], fix: `kubectl uncordon ${CORDONED}` })}` },
      { label: 'wrong', note: 'keywords, wrong mechanism: an unbound claim', answer: 'kafka-2 is Pending because its PVC data-kafka-2 is unbound: the gp3 storage class failed to provision a volume. The cordon has nothing to do with it.' },
      { label: 'wrong', note: 'wrong cause', answer: 'kafka-2 is Pending on insufficient memory: it requests 4Gi and the two remaining nodes are full.' },
      { label: 'wrong', note: 'negation of the cause', answer: 'It is not a scheduling or zone problem; kafka-2 is crash-looping because the broker id 2 is still registered in ZooKeeper.' },
      { label: 'wrong', note: 'raw output', answer: raw(`NAME      READY   STATUS    RESTARTS   AGE\nkafka-0   1/1     Running   0          27d\nkafka-1   1/1     Running   0          27d\nkafka-2   0/1     Pending   0          49m`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods', args: { namespace: 'streaming' } }, { tool: 'get_node_conditions' }],
    facts: [/streaming\/kafka-2: phase Pending; unschedulable: Unschedulable \(0\/3 nodes are available: 1 node\(s\) were unschedulable, 2 node\(s\) had volume node affinity conflict/, /ip-10-0-3-17\.eu-west-1\.compute\.internal: cordoned \(SchedulingDisabled\)/],
    objects: [{ path: '/api/v1/persistentvolumes', facts: [/"claimRef":\{[^}]*"name":"data-kafka-2"[^}]*\}.{0,600}"values":\["eu-west-1c"\]/] }],
  },
};
