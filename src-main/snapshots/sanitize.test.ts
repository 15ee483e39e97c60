import { describe, expect, it } from 'vitest';
import { isSecretKey, LAST_APPLIED_ANNOTATION, REDACTED, sanitizeLines, sanitizeObject, sanitizeServerUrl } from './sanitize';

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
    const withStringData = sanitizeObject('configmaps', { metadata: { name: 'x' }, stringData: { anything: SECRET } });
    expect(withStringData.stringData).toEqual({ anything: REDACTED });
  });

  it('leaves other objects as they are, but for the annotation', () => {
    const node = { metadata: { name: 'n', labels: { a: 'b' } }, spec: { unschedulable: true }, status: { conditions: [] } };
    expect(sanitizeObject('nodes', structuredClone(node))).toEqual(node);
  });

  it('by rule, wherever it sits: *last-applied-configuration anywhere, secret-named keys, URLs with userinfo, credential text (issue 34 item 4)', () => {
    const cronjob = sanitizeObject('cronjobs', {
      metadata: { name: 'c', annotations: { 'example.com/last-applied-configuration': SECRET, 'example.com/api-token': SECRET, note: 'keep' } },
      spec: { jobTemplate: { metadata: { annotations: { [LAST_APPLIED_ANNOTATION]: SECRET } }, spec: { template: { spec: { containers: [{ name: 'c', args: [`--password=${SECRET}`, '--verbose'] }] } } } } },
    });
    expect(cronjob.metadata).toEqual({ name: 'c', annotations: { 'example.com/api-token': REDACTED, note: 'keep' } });
    expect((cronjob.spec as { jobTemplate: Record<string, unknown> }).jobTemplate.metadata).toEqual({});
    const pod = sanitizeObject('pods', {
      metadata: { name: 'p' },
      spec: {
        containers: [{ name: 'c' }],
        volumes: [
          { name: 'v', flexVolume: { driver: 'x/cifs', secretRef: { name: 'cifs-creds' }, options: { user: 'web', password: SECRET, accessToken: SECRET } } },
          { name: 's', secret: { secretName: 'db-creds' } },
        ],
        automountServiceAccountToken: false,
        imagePullSecrets: [{ name: 'regcred' }],
      },
      status: { containerStatuses: [{ name: 'c', lastState: { terminated: { message: `login failed: token: ${SECRET}` } } }] },
    });
    const spec = pod.spec as { volumes: Record<string, unknown>[]; automountServiceAccountToken: boolean; imagePullSecrets: unknown };
    expect(spec.volumes[0]).toEqual({ name: 'v', flexVolume: { driver: 'x/cifs', secretRef: { name: 'cifs-creds' }, options: { user: 'web', password: REDACTED, accessToken: REDACTED } } });
    // References to other objects are kept: "secret db-creds not found" must stay diagnosable.
    expect(spec.volumes[1]).toEqual({ name: 's', secret: { secretName: 'db-creds' } });
    expect(spec.automountServiceAccountToken).toBe(false);
    expect(spec.imagePullSecrets).toEqual([{ name: 'regcred' }]);
    const pv = sanitizeObject('persistentvolumes', { metadata: { name: 'pv' }, spec: { csi: { driver: 'd', volumeAttributes: { password: SECRET, share: 'x' }, nodeStageSecretRef: { name: 'n', namespace: 'ns' } } } });
    expect((pv.spec as { csi: unknown }).csi).toEqual({ driver: 'd', volumeAttributes: { password: REDACTED, share: 'x' }, nodeStageSecretRef: { name: 'n', namespace: 'ns' } });
    const sc = sanitizeObject('storageclasses', { metadata: { name: 'sc' }, provisioner: 'p', parameters: { 'csi.storage.k8s.io/provisioner-secret-name': 'sc-creds', 'csi.storage.k8s.io/provisioner-secret-namespace': 'kube-system', adminSecret: SECRET, restuserkey: 'k' } });
    expect(sc.parameters).toEqual({ 'csi.storage.k8s.io/provisioner-secret-name': 'sc-creds', 'csi.storage.k8s.io/provisioner-secret-namespace': 'kube-system', adminSecret: REDACTED, restuserkey: 'k' });
    const event = sanitizeObject('events', { metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'p' }, message: `pull from https://robot:${SECRET}@registry.example.com failed; Authorization: Bearer ${SECRET}` });
    expect(event.message).toBe('pull from https://robot:***@registry.example.com failed; Authorization: Bearer ***');
    for (const o of [cronjob, pod, pv, sc, event]) expect(JSON.stringify(o)).not.toContain(SECRET);
  });

  it('the secret-key rule: values of secrets, not references to them', () => {
    for (const key of ['password', 'DB_PASSWORD', 'passwd', 'secret', 'clientSecret', 'token', 'mountToken', 'api-key', 'apiKey', 'accessKey', 'secretKey', 'credentials']) expect(isSecretKey(key), key).toBe(true);
    for (const key of ['secretName', 'secretRef', 'secretNamespace', 'csi.storage.k8s.io/node-stage-secret-name', 'tokenPath', 'secretFile', 'name', 'user', 'description']) expect(isSecretKey(key), key).toBe(false);
  });

  it('logs and the server URL: credential patterns masked, the rest as it was', () => {
    expect(sanitizeLines(['starting', `DB_PASSWORD=${SECRET}`, 'FATAL: password authentication failed for user "app"', 'prompt_tokens: 512'])).toEqual([
      'starting',
      'DB_PASSWORD=***',
      'FATAL: password authentication failed for user "app"',
      'prompt_tokens: 512',
    ]);
    expect(sanitizeServerUrl(`https://admin:${SECRET}@203.0.113.10:6443`)).toBe('https://203.0.113.10:6443');
    expect(sanitizeServerUrl('https://203.0.113.10:6443')).toBe('https://203.0.113.10:6443');
  });
});
