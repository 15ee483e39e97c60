/** The seeded cluster's controllers, services, volumes, config maps and its one Secret (see kubernetes-seed.ts). */
import type { SnapshotResource } from '../../shared/snapshots';
import { SCENARIO, at, meta, plantedEnv, type Json } from './kubernetes-seed';

/** A pod template as controllers carry it, with the planted env (init containers too). */
function template(app: string, image: string, extra: Json = {}): Json {
  return { metadata: { labels: { app } }, spec: { containers: [{ name: app, image, env: plantedEnv() }], ...extra } };
}

/** Every other resource a snapshot records, seeded around the same scenario. */
export function seedOthers(): Partial<Record<SnapshotResource, Json[]>> {
  return { ...seedWorkloads(), ...seedServices(), ...seedStorage(), ...seedPolicies(), ...seedConfigMaps() };
}

/** Controllers: replica sets, stateful sets, daemon sets, jobs and cron jobs, each pod template with the planted env. */
function seedWorkloads(): Partial<Record<SnapshotResource, Json[]>> {
  const owner = (kind: string, name: string): Json[] => [{ apiVersion: 'apps/v1', kind, name, uid: `uid-${name}`, controller: true, blockOwnerDeletion: true }];
  return {
    replicasets: [
      {
        metadata: meta('web-7d9c8b6f5', 'shop', 0, { labels: { app: 'web', 'pod-template-hash': '7d9c8b6f5' }, ownerReferences: owner('Deployment', 'web') }),
        spec: { replicas: 3, selector: { matchLabels: { app: 'web', 'pod-template-hash': '7d9c8b6f5' } }, template: template('web', 'ghcr.io/acme/web:1.4.2') },
        status: { replicas: 3, fullyLabeledReplicas: 3, observedGeneration: 3 },
      },
      {
        metadata: meta('nginx-7c5ddbdf54', 'default', 0, { labels: { app: 'nginx' }, ownerReferences: owner('Deployment', 'nginx') }),
        spec: { replicas: 1, selector: { matchLabels: { app: 'nginx' } }, template: template('nginx', 'nginx:1.27') },
        status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 },
      },
    ],
    statefulsets: [
      {
        metadata: meta('search-indexer', 'shop', 0, { labels: { app: 'search' } }),
        spec: {
          replicas: 1,
          serviceName: 'search',
          selector: { matchLabels: { app: 'search' } },
          template: template('indexer', 'ghcr.io/acme/indexer:2.0', { initContainers: [{ name: 'init-schema', image: 'ghcr.io/acme/indexer:2.0', env: plantedEnv() }] }),
          volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'fast-ssd', resources: { requests: { storage: '50Gi' } } } }],
        },
        status: { replicas: 1, currentReplicas: 1, updatedReplicas: 1, availableReplicas: 0 },
      },
    ],
    daemonsets: [
      {
        metadata: meta('node-exporter', 'kube-system', 0, { labels: { app: 'node-exporter' } }),
        spec: { selector: { matchLabels: { app: 'node-exporter' } }, template: template('node-exporter', 'prom/node-exporter:v1.8.2', { nodeSelector: { 'kubernetes.io/os': 'linux' } }) },
        status: { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 3, numberAvailable: 2, numberUnavailable: 1 },
      },
    ],
    jobs: [
      {
        metadata: meta('db-migrate-28734120', 'batch', 0, { labels: { 'job-name': 'db-migrate-28734120' } }),
        spec: { completions: 1, parallelism: 1, backoffLimit: 6, template: template('migrate', 'ghcr.io/acme/migrate:1.0', { restartPolicy: 'Never' }) },
        status: { succeeded: 1, startTime: at(1), completionTime: at(3), conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: at(3) }] },
      },
    ],
    cronjobs: [
      {
        metadata: meta('db-migrate', 'batch', 0),
        spec: {
          schedule: '0 * * * *',
          suspend: false,
          jobTemplate: {
            metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({ env: plantedEnv() }) } },
            spec: { template: template('migrate', 'ghcr.io/acme/migrate:1.0', { restartPolicy: 'Never', initContainers: [{ name: 'wait-db', image: 'busybox:1.36', env: plantedEnv() }] }) },
          },
        },
        status: { lastScheduleTime: at(0), lastSuccessfulTime: at(3) },
      },
    ],
  };
}

/** Services and their endpoints (one selects no pod, so has none). */
function seedServices(): Partial<Record<SnapshotResource, Json[]>> {
  return {
    services: [
      {
        metadata: meta('web', 'shop', 0, { labels: { app: 'web' } }),
        spec: { type: 'ClusterIP', clusterIP: '10.96.12.34', clusterIPs: ['10.96.12.34'], selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] },
        status: { loadBalancer: {} },
      },
      {
        // Its selector matches no pod.
        metadata: meta('postgres', 'shop', 0),
        spec: { type: 'ClusterIP', clusterIP: '10.96.40.2', clusterIPs: ['10.96.40.2'], selector: { app: 'postgresql' }, ports: [{ port: 5432, targetPort: 5432, protocol: 'TCP' }] },
        status: { loadBalancer: {} },
      },
      {
        metadata: meta('kubernetes', 'default', 0, { labels: { component: 'apiserver', provider: 'kubernetes' } }),
        spec: { type: 'ClusterIP', clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], ports: [{ name: 'https', port: 443, targetPort: 6443, protocol: 'TCP' }] },
        status: { loadBalancer: {} },
      },
    ],
    endpoints: [
      {
        metadata: meta('web', 'shop', 0, { labels: { app: 'web' } }),
        subsets: [{ notReadyAddresses: [{ ip: '10.244.1.17', targetRef: { kind: 'Pod', namespace: 'shop', name: SCENARIO.crashLoopPod.name } }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }],
      },
      { metadata: meta('postgres', 'shop', 0) },
      { metadata: meta('kubernetes', 'default', 0), subsets: [{ addresses: [{ ip: '10.0.0.10' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }] },
    ],
  };
}

/** Volumes, claims and storage classes (their CSI attributes and parameters carry the planted secret). */
function seedStorage(): Partial<Record<SnapshotResource, Json[]>> {
  return {
    persistentvolumeclaims: [
      {
        metadata: meta('data-search-indexer-0', 'shop', 0, { labels: { app: 'search' } }),
        spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'fast-ssd', volumeMode: 'Filesystem', resources: { requests: { storage: '50Gi' } } },
        status: { phase: 'Pending' },
      },
      {
        metadata: meta('reports', 'batch', 0),
        spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'standard', volumeName: 'pv-reports', volumeMode: 'Filesystem', resources: { requests: { storage: '10Gi' } } },
        status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '10Gi' } },
      },
    ],
    persistentvolumes: [
      {
        metadata: meta('pv-reports', null, 0),
        spec: {
          capacity: { storage: '10Gi' },
          accessModes: ['ReadWriteOnce'],
          persistentVolumeReclaimPolicy: 'Delete',
          storageClassName: 'standard',
          volumeMode: 'Filesystem',
          claimRef: { kind: 'PersistentVolumeClaim', namespace: 'batch', name: 'reports' },
          csi: {
            driver: 'smb.csi.k8s.io',
            volumeHandle: 'fs-1/reports',
            volumeAttributes: { source: '//fs-1.batch.svc/reports', password: SCENARIO.plantedSecret },
            nodeStageSecretRef: { name: 'smb-credentials', namespace: 'batch' },
          },
        },
        status: { phase: 'Bound' },
      },
    ],
    storageclasses: [
      {
        metadata: meta('standard', null, 0, { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }),
        provisioner: 'rancher.io/local-path',
        parameters: { 'csi.storage.k8s.io/provisioner-secret-name': 'sc-credentials', adminToken: SCENARIO.plantedSecret, replicas: '1' },
        reclaimPolicy: 'Delete',
        volumeBindingMode: 'WaitForFirstConsumer',
      },
    ],
  };
}

/** Ingress, a network policy, a quota and RBAC. */
function seedPolicies(): Partial<Record<SnapshotResource, Json[]>> {
  return {
    ingresses: [
      {
        metadata: meta('web', 'shop', 0),
        spec: {
          ingressClassName: 'nginx',
          rules: [{ host: 'shop.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }],
        },
        status: { loadBalancer: { ingress: [{ ip: '203.0.113.20' }] } },
      },
    ],
    networkpolicies: [
      {
        metadata: meta('db-ingress', 'shop', 0),
        spec: {
          podSelector: { matchLabels: { app: 'postgres' } },
          policyTypes: ['Ingress'],
          ingress: [{ from: [{ podSelector: { matchLabels: { app: 'web' } } }], ports: [{ protocol: 'TCP', port: 5432 }] }],
        },
      },
    ],
    resourcequotas: [
      {
        metadata: meta('compute', 'shop', 0),
        spec: { hard: { 'requests.cpu': '4', 'requests.memory': '8Gi', 'limits.memory': '16Gi', pods: '20' } },
        status: { hard: { 'requests.cpu': '4', 'requests.memory': '8Gi', 'limits.memory': '16Gi', pods: '20' }, used: { 'requests.cpu': '1500m', 'requests.memory': '3Gi', 'limits.memory': '6Gi', pods: '6' } },
      },
    ],
    roles: [
      {
        metadata: meta('pod-reader', 'shop', 0),
        rules: [{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list', 'watch'] }],
      },
    ],
    rolebindings: [
      {
        metadata: meta('web-pod-reader', 'shop', 0),
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'web', namespace: 'shop' }, { kind: 'User', name: 'alice@example.com', apiGroup: 'rbac.authorization.k8s.io' }],
      },
    ],
  };
}

/** Config maps: their values (and a hand-made `stringData`) carry the planted secret and never stay. */
function seedConfigMaps(): Partial<Record<SnapshotResource, Json[]>> {
  return {
    configmaps: [
      {
        metadata: meta('web-config', 'shop', 0, {
          annotations: { 'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({ data: { DATABASE_URL: `postgres://app:${SCENARIO.plantedSecret}@postgres.shop.svc:5432/shop` } }) },
        }),
        data: { DATABASE_URL: `postgres://app:${SCENARIO.plantedSecret}@postgres.shop.svc:5432/shop`, LOG_LEVEL: 'info' },
        binaryData: { 'cert.der': Buffer.from(SCENARIO.plantedSecret).toString('base64') },
        // Not a ConfigMap field, but a hand-made object may carry it: its values never stay.
        stringData: { DB_PASS: SCENARIO.plantedSecret },
      },
      { metadata: meta('kube-root-ca.crt', 'default', 0), data: { 'ca.crt': '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' } },
    ],
  };
}

/** A Secret the recorder must never read (it is served, so a read would be seen in `calls`). */
export function seedSecrets(): Json[] {
  return [
    {
      metadata: meta('db-credentials', 'shop', 0),
      type: 'Opaque',
      data: { user: Buffer.from('app').toString('base64'), password: Buffer.from(SCENARIO.plantedSecret).toString('base64') },
      stringData: { password: SCENARIO.plantedSecret },
    },
  ];
}

