import type { z } from 'zod';
import { APP_TENANT_ID, SUITE_FORMAT, type Scenario, type Suite, type SuiteDocumentSchema, type ValidationIssue } from '../../shared';
import { ProblemError } from './problem-error';
import type { SnapshotService } from './snapshots';

/**
 * A suite and the snapshots it runs on, as one document: what an export writes and an import
 * reads, and the check that every snapshot a new suite names is stored.
 */

export type SuiteExport = {
  format: typeof SUITE_FORMAT;
  suite: { suite_id: string; name: string; description: string; scenarios: Scenario[] };
  snapshots: NonNullable<Awaited<ReturnType<SnapshotService['document']>>>[];
};

/** One issue per scenario whose snapshot is not stored. */
export async function missingSnapshots(snapshots: SnapshotService, scenarios: readonly Scenario[]): Promise<ValidationIssue[]> {
  const issues: ValidationIssue[] = [];
  for (const [i, s] of scenarios.entries()) {
    if (!(await snapshots.has(s.snapshot_id))) {
      issues.push({ path: `scenarios.${i}.snapshot_id`, message: `no snapshot ${s.snapshot_id}: record or import it first (benchdesk snapshot list)` });
    }
  }
  return issues;
}

/** The suite with every snapshot it runs on (409 when one is no longer stored). */
export async function exportSuite(suite: Suite, snapshots: SnapshotService): Promise<SuiteExport> {
  const ids = [...new Set(suite.scenarios.map((s) => s.snapshot_id))];
  const documents = [];
  for (const id of ids) {
    const doc = await snapshots.document(id);
    if (!doc) throw new ProblemError(409, 'snapshot_not_found', `suite ${suite.suite_id} runs on snapshot ${id}, which is no longer stored`);
    documents.push(doc);
  }
  return { format: SUITE_FORMAT, suite: { suite_id: suite.suite_id, name: suite.name, description: suite.description, scenarios: suite.scenarios }, snapshots: documents };
}

/**
 * Stores the snapshots of an imported suite document and answers the id each got (document id →
 * stored id): each keeps its id when free; one already stored with the same content is reused.
 * An invalid snapshot is a validation problem naming its place in the document.
 */
export async function importSnapshotsOf(documents: z.output<typeof SuiteDocumentSchema>['snapshots'], snapshots: SnapshotService): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const [i, snapshot] of documents.entries()) {
    try {
      const stored = await snapshots.import(APP_TENANT_ID, snapshot);
      if (snapshot.snapshot_id) ids.set(snapshot.snapshot_id, stored.snapshot_id);
    } catch (err) {
      if (err instanceof ProblemError && err.errors) {
        throw ProblemError.validation(err.errors.map((e) => ({ path: `snapshots.${i}.${e.path}`, message: e.message })), 'suite document');
      }
      throw err;
    }
  }
  return ids;
}
