import { describe, expect, it } from 'vitest';
import type { SnapshotLintCheck } from '../../shared/snapshots';
import { canonicalSnapshot } from './document';
import { lintSnapshot } from './lint';

type Json = Record<string, unknown>;

const REC = '2026-11-20T09:30:00Z';

/** A small consistent cluster: one Ready node, a running web pod that restarted once, its logs, an event. */
function cluster(): { objects: Record<string, Json[]>; logs: Json[] } {
  const ready = { type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: '2026-11-20T09:29:10Z', lastTransitionTime: '2026-10-01T00:00:00Z' };
  const pressure = (type: string) => ({ type, status: 'False', lastHeartbeatTime: '2026-11-20T09:29:10Z', lastTransitionTime: '2026-10-01T00:00:00Z' });
  return {
    objects: {
      nodes: [{ metadata: { name: 'node-1', creationTimestamp: '2026-10-01T00:00:00Z' }, spec: {}, status: { conditions: [pressure('MemoryPressure'), pressure('DiskPressure'), pressure('PIDPressure'), ready] } }],
      pods: [
        {
          metadata: { name: 'web-1', namespace: 'shop', uid: 'u-web-1', creationTimestamp: '2026-11-20T09:00:00Z' },
          spec: { nodeName: 'node-1', containers: [{ name: 'web', image: 'web:1' }] },
          status: {
            phase: 'Running',
            conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-11-20T09:00:00Z' }],
            containerStatuses: [
              {
                name: 'web',
                ready: true,
                restartCount: 1,
                state: { running: { startedAt: '2026-11-20T09:10:05Z' } },
                lastState: { terminated: { exitCode: 1, reason: 'Error', startedAt: '2026-11-20T09:00:03Z', finishedAt: '2026-11-20T09:10:00Z' } },
              },
            ],
          },
        },
      ],
      events: [
        {
          metadata: { name: 'web-1.1', namespace: 'shop', creationTimestamp: '2026-11-20T09:10:00Z' },
          involvedObject: { kind: 'Pod', name: 'web-1', namespace: 'shop' },
          reason: 'BackOff',
          type: 'Warning',
          count: 3,
          firstTimestamp: '2026-11-20T09:10:00Z',
          lastTimestamp: '2026-11-20T09:10:04Z',
        },
      ],
    },
    logs: [
      {
        namespace: 'shop',
        pod: 'web-1',
        container: 'web',
        current: ['2026-11-20T09:10:05.512Z listening on :8080', '2026-11-20T09:29:59.001Z GET / 200'],
        previous: ['2026-11-20T09:00:03.300Z listening on :8080', '2026-11-20T09:09:59.870Z FATAL lost the database', '\tat db.connect(db.go:12)'],
      },
    ],
  };
}

function lint(mutate: (c: ReturnType<typeof cluster>) => void = () => undefined) {
  const c = cluster();
  mutate(c);
  return lintSnapshot(canonicalSnapshot({ format: 'benchdesk.snapshot/v1', name: 't', recorded_at: REC, source: { server: 'https://k' }, objects: c.objects, logs: c.logs }));
}

const checks = (warnings: { check: SnapshotLintCheck }[]) => warnings.map((w) => w.check);
const pod = (c: ReturnType<typeof cluster>) => c.objects.pods?.[0] as Json & { metadata: Json; spec: Json; status: { containerStatuses: Json[]; conditions: Json[] } };
const node = (c: ReturnType<typeof cluster>) => c.objects.nodes?.[0] as Json & { metadata: Json; spec: Json; status: { conditions: Json[] } };
const log = (c: ReturnType<typeof cluster>) => c.logs[0] as { current: string[]; previous: string[] };
const cs = (c: ReturnType<typeof cluster>) => pod(c).status.containerStatuses[0] as Json & { state: Json; lastState?: { terminated: Json } };

describe('the snapshot lint', () => {
  it('a consistent cluster has no warnings', () => {
    expect(lint()).toEqual([]);
  });

  it('stamps after the recording: objects, events and log lines (a few seconds of clock skew are tolerated)', () => {
    expect(checks(lint((c) => void (cs(c).state = { running: { startedAt: '2026-11-20T09:31:00Z' } })))).toContain('future-timestamp');
    expect(checks(lint((c) => void ((c.objects.events?.[0] as Json).lastTimestamp = '2026-11-20T09:45:00Z')))).toEqual(['event-after-recording']);
    const late = lint((c) => log(c).current.push('2026-11-20T09:35:00.000Z GET / 200'));
    expect(checks(late)).toEqual(['log-after-recording']);
    expect(late[0]?.message).toMatch(/^pod\/shop\/web-1 the current log of container web has 1 line\(s\) stamped after the recording .*09:35:00/);
    expect(lint((c) => log(c).current.push('2026-11-20T09:30:03.000Z GET / 200'))).toEqual([]);
    // deletionTimestamp is the end of a grace period: it may be later.
    expect(lint((c) => void (pod(c).metadata.deletionTimestamp = '2026-11-20T09:30:20Z'))).toEqual([]);
  });

  it('events: last before first, one sighting over minutes, seen before their object existed', () => {
    expect(checks(lint((c) => void ((c.objects.events?.[0] as Json).firstTimestamp = '2026-11-20T09:20:00Z')))).toEqual(['event-order']);
    expect(checks(lint((c) => void ((c.objects.events?.[0] as Json).count = 1)))).toEqual(['event-order']);
    expect(checks(lint((c) => void ((c.objects.events?.[0] as Json).firstTimestamp = '2026-11-20T08:50:00Z')))).toEqual(['event-before-object']);
  });

  it('logs that contradict the container states: outside their instance run, or of an instance that never was', () => {
    const early = lint((c) => log(c).previous.unshift('2026-11-20T08:59:00.000Z booting'));
    expect(checks(early)).toEqual(['log-outside-run']);
    expect(early[0]?.message).toContain('before the last terminated instance started (2026-11-20T09:00:03Z)');
    expect(checks(lint((c) => log(c).previous.push('2026-11-20T09:12:00.000Z still here')))).toEqual(['log-outside-run']);
    expect(checks(lint((c) => log(c).current.unshift('2026-11-20T09:05:00.000Z too soon')))).toEqual(['log-outside-run']);
    // A container waiting to restart: its current log is the last terminated instance's.
    const waiting = (c: ReturnType<typeof cluster>) => void (cs(c).state = { waiting: { reason: 'CrashLoopBackOff' } });
    expect(checks(lint(waiting))).toEqual(['log-outside-run']);
    expect(lint((c) => (waiting(c), (log(c).current = [...log(c).previous])))).toEqual([]);
    // No previous instance, yet a previous log; never ran, yet a log.
    expect(checks(lint((c) => (delete cs(c).lastState, (cs(c).restartCount = 0))))).toEqual(['log-without-run']);
    expect(checks(lint((c) => (delete cs(c).lastState, (cs(c).restartCount = 0), (cs(c).state = { waiting: { reason: 'ImagePullBackOff' } }))))).toEqual(['log-without-run', 'log-without-run']);
  });

  it('container states that contradict themselves', () => {
    expect(checks(lint((c) => void (cs(c).restartCount = 0)))).toEqual(['restart-count']);
    expect(checks(lint((c) => void Object.assign(cs(c).lastState?.terminated ?? {}, { reason: 'OOMKilled', exitCode: 1 })))).toEqual(['exit-code']);
    expect(checks(lint((c) => void Object.assign(cs(c).lastState?.terminated ?? {}, { reason: 'Error', exitCode: 0 })))).toEqual(['exit-code']);
    expect(lint((c) => void Object.assign(cs(c).lastState?.terminated ?? {}, { reason: 'OOMKilled', exitCode: 137 }))).toEqual([]);
    expect(checks(lint((c) => void (cs(c).state = { running: { startedAt: '2026-11-20T09:09:00Z' } })))).toContain('container-times');
    expect(checks(lint((c) => void (pod(c).metadata.creationTimestamp = '2026-11-20T09:05:00Z')))).toContain('container-times');
  });

  it('pods on nodes whose taints they do not tolerate', () => {
    const gpu = { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' };
    const onGpu = lint((c) => void (node(c).spec.taints = [gpu]));
    expect(onGpu.map((w) => [w.check, w.object])).toEqual([['untolerated-taint', 'pod/shop/web-1']]);
    expect(onGpu[0]?.message).toContain('nvidia.com/gpu=present:NoSchedule');
    expect(lint((c) => ((node(c).spec.taints = [gpu]), (pod(c).spec.tolerations = [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }])))).toEqual([]);
    expect(lint((c) => ((node(c).spec.taints = [gpu]), (pod(c).spec.tolerations = [{ operator: 'Exists' }])))).toEqual([]);
    // A cordon keeps the pods it found; a pressure taint added after the pod was scheduled does too.
    expect(lint((c) => void (node(c).spec.taints = [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }]))).toEqual([]);
    // NoExecute: evicted at once when not tolerated, after tolerationSeconds when tolerated for a while.
    const unreachable = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2026-11-20T09:20:00Z' };
    expect(checks(lint((c) => void (node(c).spec.taints = [unreachable])))).toEqual(['untolerated-taint']);
    const tolerate = (seconds: number) => [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds }];
    expect(checks(lint((c) => ((node(c).spec.taints = [unreachable]), (pod(c).spec.tolerations = tolerate(300)))))).toEqual(['untolerated-taint']);
    expect(lint((c) => ((node(c).spec.taints = [unreachable]), (pod(c).spec.tolerations = tolerate(3600))))).toEqual([]);
    expect(lint((c) => ((node(c).spec.taints = [unreachable]), (pod(c).spec.tolerations = tolerate(300)), (pod(c).metadata.deletionTimestamp = '2026-11-20T09:25:30Z')))).toEqual([]);
    // Finished pods and static pods are not judged; a pod on a node the snapshot lacks is.
    expect(lint((c) => ((node(c).spec.taints = [gpu]), ((pod(c).status as Json).phase = 'Succeeded')))).toEqual([]);
    expect(checks(lint((c) => void (pod(c).spec.nodeName = 'node-9')))).toEqual(['pod-on-missing-node']);
    expect(checks(lint((c) => void (node(c).metadata.creationTimestamp = '2026-11-20T09:10:00Z')))).toEqual(['pod-before-node']);
  });

  it('nodes: Unknown with a fresh heartbeat or too soon after it, Unknown only in part, a stale heartbeat on a posting kubelet', () => {
    const unknown = (c: ReturnType<typeof cluster>, heartbeat: string, transition: string) => {
      for (const condition of node(c).status.conditions) Object.assign(condition, { status: 'Unknown', reason: 'NodeStatusUnknown', lastHeartbeatTime: heartbeat, lastTransitionTime: transition });
    };
    expect(lint((c) => unknown(c, '2026-11-20T09:16:31Z', '2026-11-20T09:17:12Z'))).toEqual([]);
    expect(checks(lint((c) => unknown(c, '2026-11-20T09:29:45Z', '2026-11-20T09:29:59Z')))).toEqual(['node-unknown-heartbeat']);
    expect(checks(lint((c) => unknown(c, '2026-11-20T09:29:00Z', '2026-10-10T09:30:00Z')))).toEqual(['node-unknown-heartbeat']);
    const partial = lint((c) => (unknown(c, '2026-11-20T09:16:31Z', '2026-11-20T09:17:12Z'), Object.assign(node(c).status.conditions[1] as Json, { status: 'True' })));
    expect(checks(partial)).toEqual(['node-unknown-partial']);
    expect(partial[0]?.message).toContain('DiskPressure=True');
    expect(checks(lint((c) => void Object.assign(node(c).status.conditions[3] as Json, { lastHeartbeatTime: '2026-11-20T09:10:00Z' })))).toEqual(['node-stale-heartbeat']);
  });
});
