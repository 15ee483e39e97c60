import { describe, expect, it } from 'vitest';
import { ageAt, humanDuration, nodeRoles, nodeStatus, podDisplay, restartsText } from '../../shared/kube-display';

const NOW = Date.parse('2026-08-20T10:30:00Z');
const running = (name: string, extra: Record<string, unknown> = {}) => ({ name, ready: true, restartCount: 0, state: { running: { startedAt: '2026-08-20T10:00:00Z' } }, ...extra });
const pod = (status: Record<string, unknown>, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  metadata: { name: 'p', namespace: 'ns', creationTimestamp: '2026-08-20T10:00:00Z', ...metadata },
  spec: { containers: [{ name: 'app' }], ...spec },
  status,
});

describe('humanDuration (kubectl ages)', () => {
  it.each([
    [0, '0s'],
    [-1500, '0s'],
    [-5000, '<invalid>'],
    [45_000, '45s'],
    [119_000, '119s'],
    [120_000, '2m'],
    [310_000, '5m10s'],
    [15 * 60_000, '15m'],
    [179 * 60_000, '179m'],
    [3 * 3600_000 + 12 * 60_000, '3h12m'],
    [5 * 3600_000, '5h'],
    [30 * 3600_000, '30h'],
    [2 * 86_400_000 + 4 * 3600_000, '2d4h'],
    [3 * 86_400_000, '3d'],
    [30 * 86_400_000, '30d'],
    [800 * 86_400_000, '2y70d'],
    [9 * 365 * 86_400_000, '9y'],
  ])('%d ms → %s', (ms, text) => expect(humanDuration(ms)).toBe(text));

  it('ages count from the given now; no timestamp is <unknown>', () => {
    expect(ageAt('2026-08-20T10:00:00Z', NOW)).toBe('30m');
    expect(ageAt(undefined, NOW)).toBe('<unknown>');
  });
});

describe('podDisplay (kubectl get pods: READY, STATUS, RESTARTS)', () => {
  it('CrashLoopBackOff with restarts and when the last one ended', () => {
    const d = podDisplay(pod({ phase: 'Running', containerStatuses: [{ name: 'app', ready: false, restartCount: 7, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: '2026-08-20T10:25:00Z' } } }] }));
    expect(d).toMatchObject({ ready: '0/1', status: 'CrashLoopBackOff', restarts: 7 });
    expect(restartsText(d, NOW)).toBe('7 (5m ago)');
  });

  it('ImagePullBackOff, ErrImagePull and CreateContainerConfigError are the waiting reason', () => {
    for (const reason of ['ImagePullBackOff', 'ErrImagePull', 'CreateContainerConfigError']) {
      expect(podDisplay(pod({ phase: 'Pending', containerStatuses: [{ name: 'app', ready: false, restartCount: 0, state: { waiting: { reason } } }] })).status).toBe(reason);
    }
  });

  it('OOMKilled while terminated; a running container after an OOM kill is Running with its restarts', () => {
    expect(podDisplay(pod({ phase: 'Running', containerStatuses: [{ name: 'app', ready: false, restartCount: 2, state: { terminated: { exitCode: 137, reason: 'OOMKilled' } } }] })).status).toBe('OOMKilled');
    const after = podDisplay(pod({ phase: 'Running', containerStatuses: [running('app', { restartCount: 3, lastState: { terminated: { exitCode: 137, reason: 'OOMKilled', finishedAt: '2026-08-20T10:12:00Z' } } })] }));
    expect(after).toMatchObject({ ready: '1/1', status: 'Running', restarts: 3 });
    expect(restartsText(after, NOW)).toBe('3 (18m ago)');
  });

  it('a terminated container without a reason shows its exit code or signal', () => {
    expect(podDisplay(pod({ phase: 'Failed', containerStatuses: [{ name: 'app', restartCount: 0, state: { terminated: { exitCode: 2 } } }] })).status).toBe('ExitCode:2');
    expect(podDisplay(pod({ phase: 'Failed', containerStatuses: [{ name: 'app', restartCount: 0, state: { terminated: { exitCode: 0, signal: 9 } } }] })).status).toBe('Signal:9');
  });

  it('Pending without container statuses (unschedulable) is the phase; Completed; Evicted from status.reason', () => {
    expect(podDisplay(pod({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }] }))).toMatchObject({ ready: '0/1', status: 'Pending', restarts: 0 });
    expect(podDisplay(pod({ phase: 'Succeeded', containerStatuses: [{ name: 'app', restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }] })).status).toBe('Completed');
    expect(podDisplay(pod({ phase: 'Failed', reason: 'Evicted', message: 'The node was low on resource: memory.' })).status).toBe('Evicted');
  });

  it('Completed with a container still running is Running when the pod is Ready, else NotReady', () => {
    const statuses = [running('sidecar'), { name: 'app', restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }];
    const spec = { containers: [{ name: 'app' }, { name: 'sidecar' }] };
    expect(podDisplay(pod({ phase: 'Running', containerStatuses: statuses, conditions: [{ type: 'Ready', status: 'True' }] }, spec)).status).toBe('Running');
    expect(podDisplay(pod({ phase: 'Running', containerStatuses: statuses }, spec)).status).toBe('NotReady');
  });

  it('a pod being deleted is Terminating (Unknown when its node was lost)', () => {
    expect(podDisplay(pod({ phase: 'Running', containerStatuses: [running('app')] }, {}, { deletionTimestamp: '2026-08-20T10:29:00Z' })).status).toBe('Terminating');
    expect(podDisplay(pod({ phase: 'Running', reason: 'NodeLost', containerStatuses: [running('app')] }, {}, { deletionTimestamp: '2026-08-20T10:29:00Z' })).status).toBe('Unknown');
    expect(podDisplay(pod({ phase: 'Succeeded' }, {}, { deletionTimestamp: '2026-08-20T10:29:00Z' })).status).toBe('Succeeded');
  });

  it('init containers: Init:N/M while they run, Init:<reason> when one fails or waits', () => {
    const spec = { initContainers: [{ name: 'migrate' }, { name: 'warm' }] };
    expect(podDisplay(pod({ phase: 'Pending', initContainerStatuses: [{ name: 'migrate', restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }, { name: 'warm', restartCount: 0, state: { running: {} } }] }, spec)).status).toBe('Init:1/2');
    expect(podDisplay(pod({ phase: 'Pending', initContainerStatuses: [{ name: 'migrate', restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } }] }, spec))).toMatchObject({ status: 'Init:CrashLoopBackOff', restarts: 4 });
    expect(podDisplay(pod({ phase: 'Pending', initContainerStatuses: [{ name: 'migrate', restartCount: 0, state: { terminated: { exitCode: 3 } } }] }, spec)).status).toBe('Init:ExitCode:3');
  });

  it('a restartable init container (sidecar) counts toward READY', () => {
    const spec = { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }] };
    const d = podDisplay(pod({ phase: 'Running', conditions: [{ type: 'Initialized', status: 'True' }], initContainerStatuses: [{ name: 'proxy', restartCount: 1, started: true, ready: true, state: { running: {} } }], containerStatuses: [running('app')] }, spec));
    expect(d).toMatchObject({ ready: '2/2', status: 'Running', restarts: 1 });
  });
});

describe('nodes', () => {
  const node = (ready: string | null, extra: Record<string, unknown> = {}) => ({ metadata: { name: 'n', labels: {} }, spec: {}, status: { conditions: ready ? [{ type: 'Ready', status: ready }] : [] }, ...extra });
  it('STATUS: Ready, NotReady (False or Unknown), Unknown without the condition, SchedulingDisabled when cordoned', () => {
    expect(nodeStatus(node('True'))).toBe('Ready');
    expect(nodeStatus(node('Unknown'))).toBe('NotReady');
    expect(nodeStatus(node('False'))).toBe('NotReady');
    expect(nodeStatus(node(null))).toBe('Unknown');
    expect(nodeStatus({ ...node('True'), spec: { unschedulable: true } })).toBe('Ready,SchedulingDisabled');
  });
  it('ROLES from node-role labels, sorted; <none> without', () => {
    expect(nodeRoles({ metadata: { labels: { 'node-role.kubernetes.io/worker': '', 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'gpu' } } })).toBe('control-plane,gpu,worker');
    expect(nodeRoles({ metadata: { labels: { 'kubernetes.io/hostname': 'n' } } })).toBe('<none>');
  });
});
