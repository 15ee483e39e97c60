import { describe, expect, it } from 'vitest';
import { describeObject } from './describe-object';

describe('describeObject: one line per object for get_resources', () => {
  it('network policies: selector, types and rules, whether the peer key is `from` or client-node\'s `_from`', () => {
    const deny = { metadata: { name: 'default-deny-ingress', namespace: 'data' }, spec: { podSelector: {}, policyTypes: ['Ingress'] } };
    expect(describeObject('networkpolicies', deny)).toBe('- data/default-deny-ingress: podSelector (all pods) policyTypes ["Ingress"] ingress none allowed');
    const allow = { metadata: { name: 'allow', namespace: 'data' }, spec: { podSelector: { matchLabels: { app: 'db' } }, policyTypes: ['Ingress'], ingress: [{ _from: [{ namespaceSelector: { matchLabels: { team: 'shop' } } }], ports: [{ protocol: 'TCP', port: 5432 }] }] } };
    expect(describeObject('networkpolicies', allow)).toBe('- data/allow: podSelector app=db policyTypes ["Ingress"] ingress [namespaces team=shop ports TCP/5432]');
    const egress = { metadata: { name: 'e', namespace: 'p' }, spec: { podSelector: {}, policyTypes: ['Egress'], egress: [{ to: [{ ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8'] } }], ports: [{ protocol: 'TCP', port: 443 }] }] } };
    expect(describeObject('networkpolicies', egress)).toContain('egress [ipBlock 0.0.0.0/0 except 10.0.0.0/8 ports TCP/443]');
  });

  it('services, endpoints, jobs, cron jobs, quotas, bindings and deployments', () => {
    expect(describeObject('services', { metadata: { name: 'auth', namespace: 'id' }, spec: { type: 'ClusterIP', clusterIP: '172.20.1.1', selector: { app: 'auth-service' }, ports: [{ port: 80, targetPort: 'http' }] } })).toBe('- id/auth: type ClusterIP clusterIP 172.20.1.1 selector app=auth-service ports 80->http/TCP');
    expect(describeObject('endpoints', { metadata: { name: 'auth', namespace: 'id' } })).toBe('- id/auth: ready <none>');
    const job = { metadata: { name: 'j', namespace: 'b' }, spec: { backoffLimit: 2, activeDeadlineSeconds: 3600 }, status: { failed: 1, startTime: '2026-12-01T02:00:00Z', conditions: [{ type: 'Failed', status: 'True', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' }] } };
    expect(describeObject('jobs', job)).toBe('- b/j: Failed (DeadlineExceeded: Job was active longer than specified deadline); succeeded 0 failed 1 active 0; backoffLimit 2 activeDeadlineSeconds 3600; started 2026-12-01T02:00:00Z');
    expect(describeObject('cronjobs', { metadata: { name: 'r', namespace: 'a' }, spec: { schedule: '30 6 * * *', suspend: true }, status: {} })).toBe('- a/r: schedule "30 6 * * *" suspend true active 0 lastSchedule - lastSuccess -');
    expect(describeObject('resourcequotas', { metadata: { name: 'q', namespace: 'm' }, status: { hard: { 'requests.cpu': '4', pods: '20' }, used: { 'requests.cpu': '3800m' } } })).toBe('- m/q: pods 0/20, requests.cpu 3800m/4');
    expect(describeObject('rolebindings', { metadata: { name: 'rb', namespace: 'ops' }, roleRef: { kind: 'Role', name: 'config-sync' }, subjects: [{ kind: 'ServiceAccount', name: 'config-sync', namespace: 'ops' }] })).toBe('- ops/rb: role Role/config-sync subjects ServiceAccount ops/config-sync');
    const deploy = { metadata: { name: 'recs', namespace: 'shop' }, spec: { replicas: 0, template: { spec: { containers: [{ name: 'recs', image: 'recs:4' }], nodeSelector: { disk: 'ssd' } } } }, status: {} };
    expect(describeObject('deployments', deploy)).toBe('- shop/recs: replicas 0 ready 0 available 0 updated 0 strategy RollingUpdate images recs=recs:4 nodeSelector disk=ssd');
  });
});
