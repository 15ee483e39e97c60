import { z } from 'zod';
import { OBJECT_KINDS, type ObjectKind } from './kube-objects';

/**
 * What the built-in agent reads from Kubernetes (only the fields its tools use) and the tool-call
 * arguments the LLM writes. Extra keys are dropped.
 */

// ---------------------------------------------------------------------------------------------
// Kubernetes objects, only the fields the built-in tools read. client-node turns date-time
// fields into Date objects; a string is accepted too.

const KubeTimeSchema = z.union([z.date(), z.string()]).nullish();

const KubeMetadataSchema = z.object({
  name: z.string(),
  namespace: z.string().nullish(),
  creationTimestamp: KubeTimeSchema,
});

const KubeConditionSchema = z.object({
  type: z.string(),
  status: z.string(),
  reason: z.string().nullish(),
  message: z.string().nullish(),
});

const KubeContainerStateSchema = z.object({
  waiting: z.object({ reason: z.string().nullish(), message: z.string().nullish() }).nullish(),
  running: z.object({ startedAt: KubeTimeSchema }).nullish(),
  terminated: z
    .object({
      exitCode: z.number().int(),
      reason: z.string().nullish(),
      message: z.string().nullish(),
      signal: z.number().int().nullish(),
      finishedAt: KubeTimeSchema,
    })
    .nullish(),
});
export type KubeContainerState = z.infer<typeof KubeContainerStateSchema>;

const KubeContainerStatusSchema = z.object({
  name: z.string(),
  ready: z.boolean().nullish(),
  restartCount: z.number().int().nullish(),
  state: KubeContainerStateSchema.nullish(),
  lastState: KubeContainerStateSchema.nullish(),
});
export type KubeContainerStatus = z.infer<typeof KubeContainerStatusSchema>;

export const KubePodSchema = z.object({
  metadata: KubeMetadataSchema,
  spec: z
    .object({
      nodeName: z.string().nullish(),
      containers: z.array(z.object({ name: z.string() })).nullish(),
    })
    .nullish(),
  status: z
    .object({
      phase: z.string().nullish(),
      reason: z.string().nullish(),
      message: z.string().nullish(),
      conditions: z.array(KubeConditionSchema).nullish(),
      containerStatuses: z.array(KubeContainerStatusSchema).nullish(),
      initContainerStatuses: z.array(KubeContainerStatusSchema).nullish(),
    })
    .nullish(),
});
export type KubePod = z.infer<typeof KubePodSchema>;

export const KubeNamespaceSchema = z.object({
  metadata: KubeMetadataSchema,
  status: z.object({ phase: z.string().nullish() }).nullish(),
});
export type KubeNamespace = z.infer<typeof KubeNamespaceSchema>;

export const KubeEventSchema = z.object({
  metadata: KubeMetadataSchema,
  involvedObject: z.object({
    kind: z.string().nullish(),
    name: z.string().nullish(),
    namespace: z.string().nullish(),
  }),
  reason: z.string().nullish(),
  message: z.string().nullish(),
  type: z.string().nullish(),
  count: z.number().int().nullish(),
  firstTimestamp: KubeTimeSchema,
  lastTimestamp: KubeTimeSchema,
  eventTime: KubeTimeSchema,
  series: z.object({ count: z.number().int().nullish(), lastObservedTime: KubeTimeSchema }).nullish(),
});
export type KubeEvent = z.infer<typeof KubeEventSchema>;

export const KubeDeploymentSchema = z.object({
  metadata: KubeMetadataSchema,
  spec: z.object({ replicas: z.number().int().nullish() }).nullish(),
  status: z
    .object({
      replicas: z.number().int().nullish(),
      updatedReplicas: z.number().int().nullish(),
      readyReplicas: z.number().int().nullish(),
      availableReplicas: z.number().int().nullish(),
      unavailableReplicas: z.number().int().nullish(),
      conditions: z.array(KubeConditionSchema).nullish(),
    })
    .nullish(),
});
export type KubeDeployment = z.infer<typeof KubeDeploymentSchema>;

export const KubeNodeSchema = z.object({
  metadata: KubeMetadataSchema,
  spec: z
    .object({
      unschedulable: z.boolean().nullish(),
      taints: z.array(z.object({ key: z.string(), effect: z.string(), value: z.string().nullish() })).nullish(),
    })
    .nullish(),
  status: z.object({ conditions: z.array(KubeConditionSchema).nullish() }).nullish(),
});
export type KubeNode = z.infer<typeof KubeNodeSchema>;

/** A list envelope; items are validated one by one so one odd object does not hide the rest. */
export const KubeListSchema = z.object({
  items: z.array(z.unknown()),
  metadata: z.object({ continue: z.string().nullish() }).nullish(),
});

/** The API server's error body. */
export const KubeStatusSchema = z.object({
  kind: z.literal('Status'),
  message: z.string().nullish(),
  reason: z.string().nullish(),
  code: z.number().int().nullish(),
});

// ---------------------------------------------------------------------------------------------
// Built-in agent tool arguments (written by the LLM). Small models send "50" for 50, "true" for
// true and "" or null for "not given": all accepted.

function blankToUndefined(v: unknown): unknown {
  return v === null || (typeof v === 'string' && v.trim() === '') ? undefined : v;
}
const lenientInt = (min: number, max: number) =>
  z.preprocess(
    (v) => {
      const b = blankToUndefined(v);
      return typeof b === 'string' && /^\s*\d+\s*$/.test(b) ? Number(b) : b;
    },
    z.number().int().min(min).max(max).optional(),
  );
const lenientBool = z.preprocess((v) => {
  const b = blankToUndefined(v);
  if (b === 'true') return true;
  if (b === 'false') return false;
  return b;
}, z.boolean().optional());

/** DNS-1123 subdomain: what namespaces, pods, nodes and containers are named with. */
const KubeNameSchema = z
  .string()
  .trim()
  .max(253)
  .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be a Kubernetes object name (lower-case letters, digits, - and .)');
const optionalKubeName = z.preprocess(blankToUndefined, KubeNameSchema.optional());

export const ListNamespacesArgsSchema = z.object({});
export const ListUnhealthyPodsArgsSchema = z.object({ namespace: optionalKubeName });
export const GetPodLogsArgsSchema = z.object({
  namespace: KubeNameSchema,
  pod: KubeNameSchema,
  container: optionalKubeName,
  tail_lines: lenientInt(1, 500),
  previous: lenientBool,
});
export const ListWarningEventsArgsSchema = z.object({
  namespace: optionalKubeName,
  limit: lenientInt(1, 100),
});
export const ListUnavailableDeploymentsArgsSchema = z.object({ namespace: optionalKubeName });
export const GetNodeConditionsArgsSchema = z.object({ node: optionalKubeName });

/** get_resources: a kind (plural, singular or kubectl short name), an optional namespace and name. */
const OBJECT_KIND_ALIASES: Readonly<Record<string, ObjectKind>> = {
  svc: 'services', service: 'services', ep: 'endpoints', endpoint: 'endpoints', pvc: 'persistentvolumeclaims', persistentvolumeclaim: 'persistentvolumeclaims',
  pv: 'persistentvolumes', persistentvolume: 'persistentvolumes', sc: 'storageclasses', storageclass: 'storageclasses', cm: 'configmaps', configmap: 'configmaps',
  quota: 'resourcequotas', resourcequota: 'resourcequotas', job: 'jobs', cj: 'cronjobs', cronjob: 'cronjobs', netpol: 'networkpolicies', networkpolicy: 'networkpolicies',
  ing: 'ingresses', ingress: 'ingresses', role: 'roles', rolebinding: 'rolebindings', sts: 'statefulsets', statefulset: 'statefulsets', ds: 'daemonsets', daemonset: 'daemonsets',
  rs: 'replicasets', replicaset: 'replicasets', deploy: 'deployments', deployment: 'deployments',
};
export const GetResourcesArgsSchema = z.object({
  kind: z.preprocess((v) => (typeof v === 'string' ? (OBJECT_KIND_ALIASES[v.trim().toLowerCase()] ?? v.trim().toLowerCase()) : v), z.enum(OBJECT_KINDS)),
  namespace: optionalKubeName,
  name: optionalKubeName,
});
