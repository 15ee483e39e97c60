import { describe, expect, it } from 'vitest';
import { acceptedForm, PRINTERS, tableRow, toTable } from './table';

const NOW = Date.parse('2026-08-20T10:30:00Z');
const T0 = '2026-08-20T10:00:00Z';
const names = (resource: keyof typeof PRINTERS, priority: number) => PRINTERS[resource].columns.filter((c) => c.priority === priority).map((c) => c.name.toUpperCase());

describe("kubectl's columns", () => {
  it('pods, deployments, nodes and events: the columns kubectl prints, wide ones at priority 1', () => {
    expect(names('pods', 0)).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(names('pods', 1)).toEqual(['IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']);
    expect(names('deployments', 0)).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    expect(names('deployments', 1)).toEqual(['CONTAINERS', 'IMAGES', 'SELECTOR']);
    expect(names('nodes', 0)).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION']);
    expect(names('events', 0)).toEqual(['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    expect(names('services', 0)).toEqual(['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE']);
    expect(names('persistentvolumeclaims', 0)).toEqual(['NAME', 'STATUS', 'VOLUME', 'CAPACITY', 'ACCESS MODES', 'STORAGECLASS', 'AGE']);
    expect(names('jobs', 0)).toEqual(['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE']);
    expect(names('cronjobs', 0)).toEqual(['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST SCHEDULE', 'AGE']);
    for (const printer of Object.values(PRINTERS)) expect(printer.columns.filter((c) => c.format === 'name').length).toBeLessThanOrEqual(1);
  });

  it('every row has one cell per column', () => {
    for (const [resource, printer] of Object.entries(PRINTERS)) {
      const row = tableRow(resource as keyof typeof PRINTERS, { metadata: { name: 'x', creationTimestamp: T0 }, spec: { containers: [{ name: 'c' }] } }, NOW);
      expect((row.cells as unknown[]).length, resource).toBe(printer.columns.length);
    }
  });

  it('cells as kubectl prints them, with ages at the given now', () => {
    const deploy = { metadata: { name: 'web', creationTimestamp: T0 }, spec: { replicas: 3, selector: { matchLabels: { tier: 'fe', app: 'web' } }, template: { spec: { containers: [{ name: 'web', image: 'web:1' }, { name: 'envoy', image: 'envoy:1' }] } } }, status: { updatedReplicas: 3 } };
    expect(tableRow('deployments', deploy, NOW).cells).toEqual(['web', '0/3', 3, 0, '30m', 'web,envoy', 'web:1,envoy:1', 'app=web,tier=fe']);
    const event = { metadata: { name: 'e1', creationTimestamp: T0 }, involvedObject: { kind: 'Pod', name: 'web-1', fieldPath: 'spec.containers{web}' }, type: 'Warning', reason: 'BackOff', message: ' Back-off \n', firstTimestamp: '2026-08-20T10:01:00Z', lastTimestamp: '2026-08-20T10:25:00Z', count: 97, source: { component: 'kubelet', host: 'node-1' } };
    expect(tableRow('events', event, NOW).cells).toEqual(['5m', 'Warning', 'BackOff', 'pod/web-1', 'spec.containers{web}', 'kubelet, node-1', 'Back-off', '29m', 97, 'e1']);
    // An event of the new API: no first/last timestamps, eventTime only, count 1.
    const scheduler = { metadata: { name: 'e2' }, involvedObject: { kind: 'Pod', name: 'p' }, type: 'Warning', reason: 'FailedScheduling', message: 'm', eventTime: '2026-08-20T10:26:30.123456Z', firstTimestamp: null, lastTimestamp: null, reportingComponent: 'default-scheduler' };
    expect((tableRow('events', scheduler, NOW).cells as unknown[]).slice(0, 4)).toEqual(['3m29s', 'Warning', 'FailedScheduling', 'pod/p']);
    expect((tableRow('events', scheduler, NOW).cells as unknown[])[8]).toBe(1);
    const svc = { metadata: { name: 'lb', creationTimestamp: T0 }, spec: { type: 'LoadBalancer', clusterIP: '10.0.0.9', ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }], selector: { app: 'web' } }, status: { loadBalancer: {} } };
    expect(tableRow('services', svc, NOW).cells).toEqual(['lb', 'LoadBalancer', '10.0.0.9', '<pending>', '80:30080/TCP', '30m', 'app=web']);
  });

  it('network policies, resource quotas, roles and role bindings: the columns and cells of their printers', () => {
    expect(names('networkpolicies', 0)).toEqual(['NAME', 'POD-SELECTOR', 'AGE']);
    expect(names('resourcequotas', 0)).toEqual(['NAME', 'REQUEST', 'LIMIT', 'AGE']);
    expect(names('roles', 0)).toEqual(['NAME', 'CREATED AT']);
    expect(names('rolebindings', 0)).toEqual(['NAME', 'ROLE', 'AGE']);
    expect(names('rolebindings', 1)).toEqual(['USERS', 'GROUPS', 'SERVICEACCOUNTS']);
    const denyAll = { metadata: { name: 'deny-all', creationTimestamp: T0 }, spec: { podSelector: {}, policyTypes: ['Ingress'] } };
    expect(tableRow('networkpolicies', denyAll, NOW).cells).toEqual(['deny-all', '<none>', '30m']);
    const db = { metadata: { name: 'db', creationTimestamp: T0 }, spec: { podSelector: { matchLabels: { app: 'db', tier: 'data' } } } };
    expect(tableRow('networkpolicies', db, NOW).cells).toEqual(['db', 'app=db,tier=data', '30m']);
    const hard = { pods: '10', 'requests.cpu': '4', 'limits.memory': '16Gi', 'limits.cpu': '8' };
    const quota = { metadata: { name: 'compute', creationTimestamp: T0 }, status: { hard, used: { pods: '10', 'requests.cpu': '3500m', 'limits.cpu': '7' } } };
    // Sorted by resource name; a resource with no usage yet counts 0.
    expect(tableRow('resourcequotas', quota, NOW).cells).toEqual(['compute', 'pods: 10/10, requests.cpu: 3500m/4', 'limits.cpu: 7/8, limits.memory: 0/16Gi', '30m']);
    expect(tableRow('roles', { metadata: { name: 'pod-reader', creationTimestamp: T0 } }, NOW).cells).toEqual(['pod-reader', T0]);
    const binding = {
      metadata: { name: 'rb', creationTimestamp: T0 },
      roleRef: { kind: 'Role', name: 'pod-reader' },
      subjects: [{ kind: 'ServiceAccount', name: 'web', namespace: 'shop' }, { kind: 'User', name: 'alice' }, { kind: 'Group', name: 'devs' }, { kind: 'ServiceAccount', name: 'ci', namespace: 'ops' }],
    };
    expect(tableRow('rolebindings', binding, NOW).cells).toEqual(['rb', 'Role/pod-reader', '30m', 'alice', 'devs', 'shop/web, ops/ci']);
  });

  it('a cron job\'s SUSPEND is the text True or False, as printBoolPtr writes it', () => {
    const cj = (suspend?: boolean) => ({ metadata: { name: 'cj', creationTimestamp: T0 }, spec: { schedule: '0 * * * *', ...(suspend === undefined ? {} : { suspend }) }, status: {} });
    expect((tableRow('cronjobs', cj(true), NOW).cells as unknown[])[3]).toBe('True');
    expect((tableRow('cronjobs', cj(false), NOW).cells as unknown[])[3]).toBe('False');
    expect((tableRow('cronjobs', cj(), NOW).cells as unknown[])[3]).toBe('<unset>');
  });

  it('the Table envelope and what each row carries (includeObject)', () => {
    const pod = { metadata: { name: 'p', namespace: 'ns', creationTimestamp: T0 }, spec: { containers: [{ name: 'c' }] }, status: { phase: 'Pending' } };
    const table = toTable('pods', [pod], NOW);
    expect(table).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', rows: [{ cells: ['p', '0/1', 'Pending', '0', '30m', '<none>', '<none>', '<none>', '<none>'], object: { kind: 'PartialObjectMetadata', metadata: { name: 'p', namespace: 'ns' } } }] });
    expect(tableRow('pods', pod, NOW, 'None')).not.toHaveProperty('object');
    expect(tableRow('pods', pod, NOW, 'Object').object).toBe(pod);
  });
});

describe('acceptedForm (content negotiation)', () => {
  it("kubectl's Accept asks for a Table; the first form the server knows wins", () => {
    expect(acceptedForm('application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json')).toEqual({ form: 'table', version: 'v1' });
    expect(acceptedForm('application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json')).toEqual({ form: 'table', version: 'v1beta1' });
    expect(acceptedForm('application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io')).toEqual({ form: 'metadata', version: 'v1' });
    expect(acceptedForm('application/json, */*;q=0.8')).toEqual({ form: 'json' });
    expect(acceptedForm(undefined)).toEqual({ form: 'json' });
    expect(acceptedForm('application/json;as=Table;v=v2;g=meta.k8s.io,application/json')).toEqual({ form: 'json' });
  });
});
