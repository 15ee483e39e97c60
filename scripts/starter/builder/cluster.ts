import { SNAPSHOT_FORMAT, SNAPSHOT_RESOURCES, type SnapshotDocumentInput, type SnapshotResource } from '../../../shared/snapshots';
import { Clock, stamp } from './clock';
import { hexOf, intOf, kubeSuffix, uidOf } from './random';

/**
 * A cluster being written: its objects per resource, its container logs and its clock. The
 * helpers of the other builder modules add objects to it; `build()` gives the snapshot document.
 * Names, uids, IPs and hashes are derived from the snapshot id and the object's name, so the same
 * scenario always builds the same bytes.
 */

export type Json = Record<string, unknown>;
export type Lines = string[];

/** An object the builder made: its metadata is always there. */
export type KubeObject = Json & { metadata: Json & { name: string; uid: string; namespace?: string; labels?: Record<string, string> } };

export type ClusterOptions = {
  id: string;
  name: string;
  description: string;
  /** The recording's moment; every stamp is before it. */
  recordedAt: string;
  /** The API server URL the cluster was "recorded" from. */
  server?: string;
  kubernetesVersion?: string;
};

export class Cluster {
  readonly clock: Clock;
  readonly objects = new Map<SnapshotResource, KubeObject[]>(SNAPSHOT_RESOURCES.map((r) => [r, []]));
  readonly logs: { namespace: string; pod: string; container: string; current: Lines | null; previous: Lines | null }[] = [];
  private ipCounter = 0;
  /** Run by build(), in order: statuses and endpoints computed from the pods once they are all there. */
  private readonly finishers: (() => void)[] = [];

  constructor(readonly options: ClusterOptions) {
    this.clock = new Clock(options.recordedAt);
  }

  get id(): string {
    return this.options.id;
  }

  /** `text` before the recording, as an RFC 3339 stamp (whole seconds). */
  ago(text: string): string {
    return stamp(this.clock.ago(text));
  }

  uid(kind: string, namespace: string, name: string): string {
    return uidOf(`${this.id}/${kind}/${namespace}/${name}`);
  }

  suffix(seed: string, n = 5): string {
    return kubeSuffix(`${this.id}/${seed}`, n);
  }

  hex(seed: string, n: number): string {
    return hexOf(`${this.id}/${seed}`, n);
  }

  int(seed: string, min: number, max: number): number {
    return intOf(`${this.id}/${seed}`, min, max);
  }

  /** The next pod IP of a node's range (VPC CNI: pod IPs come from the node's subnet). */
  podIp(nodeIp: string): string {
    this.ipCounter++;
    const [a, b, c] = nodeIp.split('.');
    return `${a}.${b}.${c}.${(this.ipCounter * 37 + 11) % 240 + 10}`;
  }

  add<T extends KubeObject>(resource: SnapshotResource, object: T): T {
    this.objects.get(resource)?.push(object);
    return object;
  }

  list(resource: SnapshotResource): KubeObject[] {
    return this.objects.get(resource) ?? [];
  }

  find(resource: SnapshotResource, namespace: string, name: string): KubeObject | undefined {
    return this.list(resource).find((o) => o.metadata.name === name && (o.metadata.namespace ?? '') === namespace);
  }

  log(namespace: string, pod: string, container: string, logs: { current?: Lines | null; previous?: Lines | null }): void {
    this.logs.push({ namespace, pod, container, current: logs.current ?? null, previous: logs.previous ?? null });
  }

  /** Object metadata as the API server writes it. */
  meta(kind: string, name: string, namespace: string | null, created: string, extra: Json = {}): KubeObject['metadata'] {
    return {
      name,
      ...(namespace ? { namespace } : {}),
      uid: this.uid(kind, namespace ?? '', name),
      resourceVersion: String(this.int(`rv/${kind}/${namespace}/${name}`, 1000, 9_999_999)),
      creationTimestamp: created,
      ...extra,
    };
  }

  finish(fn: () => void): void {
    this.finishers.push(fn);
  }

  /** The pods a controller owns (by owner uid). */
  podsOf(ownerUid: string): KubeObject[] {
    return this.list('pods').filter((p) => ((p.metadata.ownerReferences as Json[] | undefined) ?? []).some((r) => r.uid === ownerUid));
  }

  build(): SnapshotDocumentInput & { snapshot_id: string } {
    for (const fn of this.finishers.splice(0)) fn();
    const objects = Object.fromEntries(
      SNAPSHOT_RESOURCES.filter((r) => (this.objects.get(r) ?? []).length > 0).map((r) => [r, this.objects.get(r) ?? []]),
    ) as SnapshotDocumentInput['objects'];
    return {
      format: SNAPSHOT_FORMAT,
      snapshot_id: this.id,
      name: this.options.name,
      description: this.options.description,
      recorded_at: this.options.recordedAt,
      source: { server: this.options.server ?? 'https://7D3F9A1C2B.gr7.eu-west-1.eks.amazonaws.com', kubernetes_version: this.options.kubernetesVersion ?? 'v1.32.4-eks-7f9a1c3' },
      log_tail_lines: 200,
      objects,
      logs: this.logs,
      warnings: [],
    };
  }
}
