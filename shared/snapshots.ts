import { z } from 'zod';

/**
 * Recorded clusters (design §11): the snapshot's summary, the record request, and the portable
 * document (`format: "benchdesk.snapshot/v1"`) that export writes, import reads and people may
 * write by hand. Objects are plain Kubernetes JSON as the API server answers them; the document
 * adds only a small envelope and the container logs. docs/snapshots.md describes the format.
 */

export const SNAPSHOT_FORMAT = 'benchdesk.snapshot/v1' as const;

/** The resources a snapshot holds, in the order they are recorded and counted. Secrets are not among them. */
export const SNAPSHOT_RESOURCES = [
  'namespaces',
  'nodes',
  'pods',
  'deployments',
  'replicasets',
  'statefulsets',
  'daemonsets',
  'jobs',
  'cronjobs',
  'services',
  'endpoints',
  'persistentvolumeclaims',
  'persistentvolumes',
  'storageclasses',
  'ingresses',
  'networkpolicies',
  'events',
  'configmaps',
  'resourcequotas',
  'roles',
  'rolebindings',
] as const;
export type SnapshotResource = (typeof SNAPSHOT_RESOURCES)[number];

/** Cluster-scoped resources (no metadata.namespace); every other one lives in a namespace. */
export const CLUSTER_SCOPED_RESOURCES: readonly SnapshotResource[] = ['namespaces', 'nodes', 'persistentvolumes', 'storageclasses'];

/** Lower-case letters, digits and '-', up to 64 characters: an id is also a file name. */
export const SnapshotIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9-]*$/, 'a snapshot id is lower-case letters, digits and -');

export const DEFAULT_LOG_TAIL_LINES = 200;
/** What recording keeps of one container's current (or previous) log at most: its newest lines. */
export const MAX_LOG_BYTES_PER_CONTAINER = 256 * 1024;
/** What recording keeps of all logs together at most, so a snapshot's export stays importable (SNAPSHOT_IMPORT_LIMIT_BYTES). */
export const MAX_LOG_BYTES_PER_SNAPSHOT = 32 * 1024 * 1024;
export const MAX_LOG_TAIL_LINES = 5000;

const SnapshotNameSchema = z.string().trim().min(1).max(200);
/** A Kubernetes object name as the API allows it (DNS subdomain or label, up to 253 characters). */
const KubeNameSchema = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9]([A-Za-z0-9._:-]*[A-Za-z0-9])?$/, 'a Kubernetes name: letters, digits, ".", "-", "_" and ":", starting and ending with a letter or digit');
const NamespaceNameSchema = z
  .string()
  .min(1)
  .max(63)
  .regex(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/, 'a namespace name: lower-case letters, digits and "-"');
const TimestampSchema = z.iso.datetime({ offset: true, local: false, error: 'must be an RFC 3339 time, e.g. 2026-08-20T10:30:00Z' });

export const RecordSnapshotInputSchema = z
  .object({
    name: SnapshotNameSchema.describe('a name for the snapshot, shown in lists'),
    kubeconfig: z.string().trim().min(1).max(4096).describe("path of the kubeconfig to record (its current context's cluster), on the server's machine"),
    namespaces: z.array(NamespaceNameSchema).min(1).max(200).optional().describe('record only these namespaces (default: all of them); nodes, volumes and storage classes are recorded either way'),
    log_tail_lines: z.number().int().min(0).max(MAX_LOG_TAIL_LINES).default(DEFAULT_LOG_TAIL_LINES).describe('last lines kept of each container log, current and previous (0 = no logs)'),
    description: z.string().trim().max(4000).optional().describe('free text kept with the snapshot'),
  })
  .strict();
export type RecordSnapshotInput = z.input<typeof RecordSnapshotInputSchema>;

export const SnapshotRefSchema = z.object({ snapshot_id: SnapshotIdSchema }).strict();

export const SnapshotCountsSchema = z.object({
  ...Object.fromEntries(SNAPSHOT_RESOURCES.map((r) => [r, z.number().int().nonnegative()])),
  /** Container logs held (one per container with a current or previous log). */
  logs: z.number().int().nonnegative(),
} as Record<SnapshotResource | 'logs', z.ZodNumber>);
export type SnapshotCounts = z.infer<typeof SnapshotCountsSchema>;

/**
 * The snapshot lint's checks (design §12b): timeline impossibilities a real cluster cannot show.
 * docs/snapshots.md says what each one looks for.
 */
export const SNAPSHOT_LINT_CHECKS = [
  'future-timestamp',
  'event-after-recording',
  'event-order',
  'event-before-object',
  'log-after-recording',
  'log-outside-run',
  'log-without-run',
  'container-times',
  'restart-count',
  'exit-code',
  'untolerated-taint',
  'node-unknown-heartbeat',
  'node-unknown-partial',
  'node-stale-heartbeat',
  'pod-on-missing-node',
  'pod-before-node',
] as const;
export type SnapshotLintCheck = (typeof SNAPSHOT_LINT_CHECKS)[number];

export const SnapshotLintWarningSchema = z.object({
  check: z.enum(SNAPSHOT_LINT_CHECKS),
  /** The object it is about: `kind/namespace/name`, or `kind/name` for a cluster-scoped one. */
  object: z.string(),
  message: z.string(),
});
export type SnapshotLintWarning = z.infer<typeof SnapshotLintWarningSchema>;

export const SnapshotSummarySchema = z.object({
  snapshot_id: SnapshotIdSchema,
  name: z.string(),
  description: z.string().nullable(),
  /** When the cluster was recorded: the replay's "now" (ages are counted from it). */
  recorded_at: TimestampSchema,
  /** The API server's host (host:port) the snapshot was recorded from. */
  source: z.string(),
  kubernetes_version: z.string().nullable(),
  counts: SnapshotCountsSchema,
  /** The namespaces the snapshot holds. */
  namespaces: z.array(z.string()),
  /** Size of the stored document. */
  size_bytes: z.number().int().nonnegative(),
  /** Bytes of container log text it holds (recording keeps at most MAX_LOG_BYTES_PER_CONTAINER of each log and MAX_LOG_BYTES_PER_SNAPSHOT in all). */
  log_bytes: z.number().int().nonnegative(),
  /** `recorded` by this install, or `imported` from a document. */
  origin: z.enum(['recorded', 'imported']),
  /** When this install stored it. */
  stored_at: TimestampSchema,
  /**
   * Every warning as a sentence: what could not be recorded (a resource the kubeconfig may not
   * list, logs cut short by the time bound), then what the snapshot lint found (`lint`).
   */
  warnings: z.array(z.string()),
  /** The snapshot lint's findings: timeline impossibilities (log lines or events after `recorded_at`, a pod on a node whose taint it does not tolerate, …). A shipped snapshot has none. */
  lint: z.array(SnapshotLintWarningSchema),
  /** Who uses it now (suites, running jobs): a snapshot in use cannot be deleted. */
  used_by: z.array(z.string()),
});
export type SnapshotSummary = z.infer<typeof SnapshotSummarySchema>;

export const SnapshotListSchema = z.object({ snapshots: z.array(SnapshotSummarySchema) });
export type SnapshotList = z.infer<typeof SnapshotListSchema>;

/**
 * One Kubernetes object. Only `metadata.name` is required (and `metadata.namespace` for a
 * namespaced resource, where it defaults to `default`); everything else is kept as written.
 */
const KubeObjectSchema = z.looseObject({
  apiVersion: z.string().max(100).optional(),
  kind: z.string().max(100).optional(),
  metadata: z.looseObject({
    name: KubeNameSchema,
    namespace: NamespaceNameSchema.optional(),
    uid: z.string().max(128).optional(),
    creationTimestamp: TimestampSchema.nullable().optional(),
    labels: z.record(z.string(), z.string()).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
  }),
});
export type SnapshotObject = z.infer<typeof KubeObjectSchema>;

const ContainerRefSchema = z.looseObject({ name: KubeNameSchema });
const PodObjectSchema = KubeObjectSchema.extend({
  spec: z.looseObject({
    containers: z.array(ContainerRefSchema).min(1),
    initContainers: z.array(ContainerRefSchema).optional(),
    nodeName: z.string().optional(),
  }),
  status: z.looseObject({ phase: z.string().optional() }).optional(),
});
const EventObjectSchema = KubeObjectSchema.extend({
  involvedObject: z.looseObject({ kind: z.string().min(1), name: z.string().optional(), namespace: z.string().optional(), uid: z.string().optional() }),
  type: z.string().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
});

/** Objects of one resource a document may hold at most. */
export const MAX_OBJECTS_PER_RESOURCE = 100_000;
/** Container logs a document may hold at most. */
export const MAX_CONTAINER_LOGS = 200_000;

/** The schema of one object of a resource (a streaming import checks objects one by one). */
export function snapshotObjectSchema(resource: SnapshotResource): typeof KubeObjectSchema {
  return resource === 'pods' ? PodObjectSchema : resource === 'events' ? EventObjectSchema : KubeObjectSchema;
}

const objectsShape = Object.fromEntries(
  SNAPSHOT_RESOURCES.map((r) => [r, z.array(snapshotObjectSchema(r)).max(MAX_OBJECTS_PER_RESOURCE).default([])]),
) as Record<SnapshotResource, z.ZodDefault<z.ZodArray<typeof KubeObjectSchema>>>;

/** A log as lines (what export writes) or as one text (split at newlines on import). */
const LogTextSchema = z.union([z.array(z.string()), z.string()]).nullable();

export const ContainerLogSchema = z
  .object({
    namespace: NamespaceNameSchema,
    pod: KubeNameSchema,
    container: KubeNameSchema,
    /** The running (or last) instance's log; null = none recorded. */
    current: LogTextSchema.default(null),
    /** The previous instance's log (`kubectl logs --previous`); null = no previous instance. */
    previous: LogTextSchema.default(null),
  })
  .strict();
export type ContainerLog = z.infer<typeof ContainerLogSchema>;

export const SnapshotSourceSchema = z
  .object({
    /** The API server URL (no credentials). */
    server: z.string().min(1).max(2048),
    kubernetes_version: z.string().max(100).nullable().optional(),
    /** The namespace of the kubeconfig context it was recorded from: a replay's kubeconfig starts there (default `default`). */
    namespace: NamespaceNameSchema.nullable().optional(),
  })
  .strict();

export const SnapshotDocumentSchema = z
  .object({
    format: z.literal(SNAPSHOT_FORMAT, { error: () => `format must be "${SNAPSHOT_FORMAT}"` }),
    /** Kept on import when this install has no snapshot of that id (so a suite's references still hold). */
    snapshot_id: SnapshotIdSchema.optional(),
    name: SnapshotNameSchema,
    description: z.string().max(4000).nullable().optional(),
    recorded_at: TimestampSchema,
    source: SnapshotSourceSchema,
    /** The last N lines kept of each log when it was recorded. */
    log_tail_lines: z.number().int().min(0).max(MAX_LOG_TAIL_LINES).optional(),
    objects: z.object(objectsShape).strict(),
    logs: z.array(ContainerLogSchema).max(MAX_CONTAINER_LOGS).default([]),
    warnings: z.array(z.string().max(2000)).max(1000).default([]),
  })
  .strict();
export type SnapshotDocumentInput = z.input<typeof SnapshotDocumentSchema>;
/** A document's envelope: everything but its objects and logs (a streaming import checks those one by one). */
export const SnapshotEnvelopeSchema = SnapshotDocumentSchema.omit({ objects: true, logs: true });
export type SnapshotDocument = z.infer<typeof SnapshotDocumentSchema>;

/** What export writes: every collection present, logs as lines. */
export type ExportedSnapshot = Omit<SnapshotDocument, 'logs'> & {
  snapshot_id: string;
  logs: (Omit<ContainerLog, 'current' | 'previous'> & { current: string[] | null; previous: string[] | null })[];
};
