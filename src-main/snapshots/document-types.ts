import type { ExportedSnapshot, ValidationIssue } from '../../shared';

/**
 * A snapshot document, checked and put in its one canonical form, whether it was recorded or
 * written by hand: every object carries `apiVersion`, `kind`, a namespace (namespaced kinds),
 * a `uid`, a `resourceVersion` and a `creationTimestamp`; an event's `involvedObject` carries
 * the uid of the object it names (kubectl describe selects events by it); every namespace an
 * object lives in exists; collections are in the API server's order (namespace, then name);
 * logs are lines; and the never-captured rules of sanitize.ts hold.
 */
export type CanonicalSnapshot = Omit<ExportedSnapshot, 'snapshot_id'> & { snapshot_id?: string };

export type Json = Record<string, unknown>;

export class SnapshotDocumentError extends Error {
  override name = 'SnapshotDocumentError';
  constructor(readonly issues: ValidationIssue[]) {
    super(`invalid snapshot document: ${issues.slice(0, 3).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`);
  }
}
