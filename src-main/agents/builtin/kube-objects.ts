import type * as KubeClientNode from '@kubernetes/client-node';
import type { ConfigurationOptions, KubeConfig } from '@kubernetes/client-node';

/**
 * The other objects the built-in agent may read (get_resources): services and endpoints,
 * storage, config map keys, quotas, jobs and cron jobs, network policies, ingresses, RBAC and
 * the workload controllers besides deployments. One typed client-node call per kind, in a
 * namespace or across all of them (cluster-scoped kinds ignore the namespace).
 */

export const OBJECT_KINDS = [
  'services',
  'endpoints',
  'persistentvolumeclaims',
  'persistentvolumes',
  'storageclasses',
  'configmaps',
  'resourcequotas',
  'jobs',
  'cronjobs',
  'networkpolicies',
  'ingresses',
  'roles',
  'rolebindings',
  'deployments',
  'statefulsets',
  'daemonsets',
  'replicasets',
] as const;
export type ObjectKind = (typeof OBJECT_KINDS)[number];

export type ObjectPage = { items?: unknown[]; metadata?: { _continue?: string } };
export type ObjectPager = (kind: ObjectKind, namespace: string | undefined, limit: number, cont: string | undefined, opts: ConfigurationOptions) => Promise<ObjectPage>;

export function objectPager(k8s: typeof KubeClientNode, kc: KubeConfig): ObjectPager {
  const core = kc.makeApiClient(k8s.CoreV1Api);
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const batch = kc.makeApiClient(k8s.BatchV1Api);
  const net = kc.makeApiClient(k8s.NetworkingV1Api);
  const rbac = kc.makeApiClient(k8s.RbacAuthorizationV1Api);
  const storage = kc.makeApiClient(k8s.StorageV1Api);
  return (kind, namespace, limit, cont, opts) => {
    const all = { limit, _continue: cont };
    const ns = namespace ? { namespace, ...all } : undefined;
    switch (kind) {
      case 'services':
        return ns ? core.listNamespacedService(ns, opts) : core.listServiceForAllNamespaces(all, opts);
      case 'endpoints':
        return ns ? core.listNamespacedEndpoints(ns, opts) : core.listEndpointsForAllNamespaces(all, opts);
      case 'persistentvolumeclaims':
        return ns ? core.listNamespacedPersistentVolumeClaim(ns, opts) : core.listPersistentVolumeClaimForAllNamespaces(all, opts);
      case 'persistentvolumes':
        return core.listPersistentVolume(all, opts);
      case 'storageclasses':
        return storage.listStorageClass(all, opts);
      case 'configmaps':
        return ns ? core.listNamespacedConfigMap(ns, opts) : core.listConfigMapForAllNamespaces(all, opts);
      case 'resourcequotas':
        return ns ? core.listNamespacedResourceQuota(ns, opts) : core.listResourceQuotaForAllNamespaces(all, opts);
      case 'jobs':
        return ns ? batch.listNamespacedJob(ns, opts) : batch.listJobForAllNamespaces(all, opts);
      case 'cronjobs':
        return ns ? batch.listNamespacedCronJob(ns, opts) : batch.listCronJobForAllNamespaces(all, opts);
      case 'networkpolicies':
        return ns ? net.listNamespacedNetworkPolicy(ns, opts) : net.listNetworkPolicyForAllNamespaces(all, opts);
      case 'ingresses':
        return ns ? net.listNamespacedIngress(ns, opts) : net.listIngressForAllNamespaces(all, opts);
      case 'roles':
        return ns ? rbac.listNamespacedRole(ns, opts) : rbac.listRoleForAllNamespaces(all, opts);
      case 'rolebindings':
        return ns ? rbac.listNamespacedRoleBinding(ns, opts) : rbac.listRoleBindingForAllNamespaces(all, opts);
      case 'deployments':
        return ns ? apps.listNamespacedDeployment(ns, opts) : apps.listDeploymentForAllNamespaces(all, opts);
      case 'statefulsets':
        return ns ? apps.listNamespacedStatefulSet(ns, opts) : apps.listStatefulSetForAllNamespaces(all, opts);
      case 'daemonsets':
        return ns ? apps.listNamespacedDaemonSet(ns, opts) : apps.listDaemonSetForAllNamespaces(all, opts);
      case 'replicasets':
        return ns ? apps.listNamespacedReplicaSet(ns, opts) : apps.listReplicaSetForAllNamespaces(all, opts);
    }
  };
}
