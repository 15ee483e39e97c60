import { describe, expect, it } from 'vitest';
import { LAST_APPLIED_ANNOTATION, REDACTED, sanitizeObject } from './sanitize';

const SECRET = 'p4ssw0rd-do-not-keep';
const env = () => [
  { name: 'PASSWORD', value: SECRET },
  { name: 'EMPTY', value: '' },
  { name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
];
const podSpec = () => ({
  containers: [{ name: 'app', env: env() }],
  initContainers: [{ name: 'init', env: env() }],
  ephemeralContainers: [{ name: 'debug', env: env() }],
});

function expectRedacted(spec: unknown): void {
  const s = spec as { containers: { env: { name: string; value?: string; valueFrom?: unknown }[] }[]; initContainers: typeof s.containers; ephemeralContainers: typeof s.containers };
  for (const list of [s.containers, s.initContainers, s.ephemeralContainers]) {
    const vars = list[0]?.env ?? [];
    expect(vars.map((v) => v.name)).toEqual(['PASSWORD', 'EMPTY', 'FROM_SECRET']);
    expect(vars[0]?.value).toBe(REDACTED);
    expect(vars[1]?.value).toBe(REDACTED);
    expect(vars[2]).toEqual({ name: 'FROM_SECRET', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } });
  }
}

describe('sanitizeObject: what a snapshot never holds', () => {
  it('a pod: env values of every kind of container become ***, names and valueFrom stay', () => {
    const pod = sanitizeObject('pods', { metadata: { name: 'p', annotations: { [LAST_APPLIED_ANNOTATION]: SECRET, keep: 'me' }, managedFields: [{ manager: 'kubectl' }] }, spec: podSpec() });
    expectRedacted(pod.spec);
    expect(pod.metadata).toEqual({ name: 'p', annotations: { keep: 'me' } });
    expect(JSON.stringify(pod)).not.toContain(SECRET);
  });

  it('pod templates of every controller, the cron job nested one included', () => {
    for (const resource of ['deployments', 'replicasets', 'statefulsets', 'daemonsets', 'jobs'] as const) {
      const o = sanitizeObject(resource, { metadata: { name: 'x' }, spec: { template: { metadata: { annotations: { [LAST_APPLIED_ANNOTATION]: SECRET } }, spec: podSpec() } } });
      expectRedacted((o.spec as { template: { spec: unknown } }).template.spec);
      expect(JSON.stringify(o), resource).not.toContain(SECRET);
    }
    const cj = sanitizeObject('cronjobs', { metadata: { name: 'c' }, spec: { jobTemplate: { spec: { template: { spec: podSpec() } } } } });
    expectRedacted((cj.spec as { jobTemplate: { spec: { template: { spec: unknown } } } }).jobTemplate.spec.template.spec);
  });

  it('a config map keeps its keys only; the last-applied annotation goes (and an emptied annotations map with it)', () => {
    const cm = sanitizeObject('configmaps', {
      metadata: { name: 'cfg', annotations: { [LAST_APPLIED_ANNOTATION]: JSON.stringify({ data: { url: SECRET } }) } },
      data: { url: `postgres://u:${SECRET}@db`, level: 'info' },
      binaryData: { blob: Buffer.from(SECRET).toString('base64') },
    });
    expect(cm).toEqual({ metadata: { name: 'cfg' }, data: { url: REDACTED, level: REDACTED }, binaryData: { blob: '' } });
  });

  it('leaves other objects as they are, but for the annotation', () => {
    const node = { metadata: { name: 'n', labels: { a: 'b' } }, spec: { unschedulable: true }, status: { conditions: [] } };
    expect(sanitizeObject('nodes', structuredClone(node))).toEqual(node);
  });
});
