import {
  APP_TENANT_ID,
  CreateSuiteInputSchema,
  fixtureAgreement,
  STARTER_SUITE_ID,
  SuiteDocumentSchema,
  type ScoreAnswerOutput,
  type Suite,
  type SuiteList,
  type SuiteSummary,
} from '../../shared';
import type { Logger } from '../engine/types';
import { starterSuite } from '../suites/starter';
import { createScorePool, type AnswerScorer } from '../suites/score-pool';
import { scoreOneAnswer, withAgreement } from './suite-scoring';
import { SuiteStore } from '../suites/suite-store';
import { newRecordId } from '../store/id-files';
import { ProblemError } from './problem-error';
import { exportSuite, importSnapshotsOf, missingSnapshots, type SuiteExport } from './suite-documents';
import { requireAppTenant } from './tenant-refusals';
import type { SnapshotService } from './snapshots';

/**
 * Suites as a resource of the install (design §12): list, show, create, delete, export, import.
 * Like snapshots, suites are install-wide: every tenant may list, read, export and run them; only
 * the app's own tenant may create, import or delete one. The shipped `starter` suite comes with
 * the program (its snapshots are stored on first start) and cannot be deleted.
 */

export type { SuiteExport } from './suite-documents';

export type SuiteService = {
  list(): Promise<SuiteList>;
  get(suiteId: string): Promise<Suite>;
  /** The suite, or undefined (the `suite` job kind looks suites up with this). */
  find(suiteId: string): Promise<Suite | undefined>;
  create(tenantId: string, input: unknown): Promise<Suite>;
  delete(tenantId: string, suiteId: string): Promise<void>;
  export(suiteId: string): Promise<SuiteExport>;
  import(tenantId: string, document: unknown): Promise<Suite>;
  /** The stored documents of these snapshots, by id (for a run's manifest); one that cannot be read is left out. */
  snapshotDocuments(ids: readonly string[]): Promise<Record<string, unknown>>;
  /** `POST /v1/suites/{id}/score`: `input` is `{suite_id, scenario_id, answer}`. */
  score(input: unknown): Promise<ScoreAnswerOutput>;
  /** Scores answers off the main thread, each within a time limit (the suite job scores with it too). */
  readonly scorer: AnswerScorer;
  close(): Promise<void>;
};

export type SuiteServiceDeps = { dataDir: string; log: Logger; snapshots: SnapshotService; now?: () => Date; scorer?: AnswerScorer };

function summaryOf(suite: Suite): SuiteSummary {
  const { scenarios, ...rest } = suite;
  return { ...rest, scenario_count: scenarios.length, tags: [...new Set(scenarios.flatMap((s) => s.tags))].sort() };
}

export async function createSuiteService(deps: SuiteServiceDeps): Promise<SuiteService> {
  const store = new SuiteStore(deps.dataDir, deps.log);
  await store.load();
  const now = deps.now ?? (() => new Date());
  const scorer = deps.scorer ?? createScorePool();
  const starter = await installStarter(deps);
  // The shipped suite's patterns are the program's own (tested, no backtracking shapes): its
  // agreement with its fixtures is measured in process, once, when someone first reads the suite
  // (jobs find it without: a start-up does not pay for it).
  let starterRead: Suite | null = null;
  const starterWithAgreement = (): Suite => {
    if (!starterRead) {
      const agreement = fixtureAgreement(starter.scenarios);
      starterRead = agreement ? { ...starter, fixture_agreement: agreement } : starter;
    }
    return starterRead;
  };

  const all = (): Suite[] => [starter, ...store.loaded()];
  // A snapshot a suite runs on cannot be deleted (409 from DELETE /v1/snapshots/{id}).
  deps.snapshots.registerUsage((snapshotId) => all().filter((s) => s.scenarios.some((c) => c.snapshot_id === snapshotId)).map((s) => `suite ${s.suite_id}`));

  async function find(suiteId: string): Promise<Suite> {
    const suite = suiteId === STARTER_SUITE_ID ? starter : await store.get(suiteId);
    if (!suite) throw new ProblemError(404, 'suite_not_found', `no suite ${suiteId}: list them with benchdesk suites list`);
    return suite;
  }

  async function freeId(name: string, wanted?: string): Promise<string> {
    if (wanted && wanted !== STARTER_SUITE_ID && !(await store.get(wanted))) return wanted;
    for (;;) {
      const id = newRecordId(name, 'suite');
      if (!(await store.get(id))) return id;
    }
  }

  return {
    async list() {
      return { suites: [summaryOf(starterWithAgreement()), ...(await store.list()).map(summaryOf)] };
    },

    async get(suiteId) {
      return suiteId === STARTER_SUITE_ID ? starterWithAgreement() : find(suiteId);
    },

    async find(suiteId) {
      return suiteId === STARTER_SUITE_ID ? starter : store.get(suiteId);
    },

    async create(tenantId, input) {
      requireAppTenant('suites', tenantId);
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        throw new ProblemError(400, 'bad_request', 'a suite is a JSON object: {name, description?, scenarios:[...]}');
      }
      const parsed = CreateSuiteInputSchema.safeParse(input);
      if (!parsed.success) throw ProblemError.validation(parsed.error.issues, 'suite');
      const missing = await missingSnapshots(deps.snapshots, parsed.data.scenarios);
      if (missing.length > 0) throw ProblemError.validation(missing, 'suite');
      const wanted = parsed.data.suite_id;
      if (wanted !== undefined && (wanted === STARTER_SUITE_ID || (await store.get(wanted)))) {
        throw new ProblemError(409, 'suite_exists', `a suite ${wanted} already exists; choose another suite_id or leave it out`);
      }
      const suite: Suite = await withAgreement(scorer, {
        suite_id: await freeId(parsed.data.name, wanted),
        name: parsed.data.name,
        description: parsed.data.description,
        scenarios: parsed.data.scenarios,
        read_only: false,
        created_at: now().toISOString(),
      });
      await store.write(suite);
      deps.log.info('created a suite', { suite_id: suite.suite_id, scenarios: suite.scenarios.length });
      return suite;
    },

    async delete(tenantId, suiteId) {
      requireAppTenant('suites', tenantId);
      const suite = await find(suiteId);
      if (suite.read_only) throw new ProblemError(409, 'suite_read_only', `suite ${suiteId} ships with benchdesk and cannot be deleted`);
      await store.remove(suiteId);
      deps.log.info('deleted a suite', { suite_id: suiteId });
    },

    async export(suiteId) {
      return exportSuite(await find(suiteId), deps.snapshots);
    },

    async import(tenantId, document) {
      requireAppTenant('suites', tenantId);
      if (typeof document !== 'object' || document === null || Array.isArray(document)) {
        throw new ProblemError(400, 'bad_request', 'a suite document is a JSON object (what GET /v1/suites/{id}/export answers)');
      }
      const parsed = SuiteDocumentSchema.safeParse(document);
      if (!parsed.success) throw ProblemError.validation(parsed.error.issues, 'suite document');
      const { suite, snapshots } = parsed.data;
      const ids = await importSnapshotsOf(snapshots, deps.snapshots);
      // The document's own agreement figure is not trusted: the rules are run on its fixtures here.
      const imported: Suite = await withAgreement(scorer, {
        suite_id: await freeId(suite.name, suite.suite_id),
        name: suite.name,
        description: suite.description,
        scenarios: suite.scenarios.map((s) => ({ ...s, snapshot_id: ids.get(s.snapshot_id) ?? s.snapshot_id })),
        read_only: false,
        created_at: now().toISOString(),
      });
      await store.write(imported);
      deps.log.info('imported a suite', { suite_id: imported.suite_id, scenarios: imported.scenarios.length, snapshots: snapshots.length, fixture_agreement: imported.fixture_agreement ? `${imported.fixture_agreement.agreed}/${imported.fixture_agreement.total}` : null });
      return imported;
    },

    async snapshotDocuments(ids) {
      const docs: Record<string, unknown> = {};
      for (const id of ids) {
        const doc = await deps.snapshots.document(id).catch(() => undefined);
        if (doc) docs[id] = doc;
      }
      return docs;
    },

    score: (input) => scoreOneAnswer(scorer, find, input),

    scorer,

    async close() {
      await scorer.close();
    },
  };
}

/** Stores the starter suite's snapshots (first start, or after an upgrade changed one) and answers the suite as it runs here. */
async function installStarter(deps: SuiteServiceDeps): Promise<Suite> {
  const shipped = starterSuite();
  const ids = new Map<string, string>();
  for (const doc of shipped.snapshots) {
    const stored = await deps.snapshots.import(APP_TENANT_ID, doc, { snapshotId: doc.snapshot_id });
    ids.set(doc.snapshot_id, stored.snapshot_id);
    if (stored.snapshot_id !== doc.snapshot_id) {
      deps.log.warn('a starter snapshot id is taken by other content; the starter suite uses a copy', { wanted: doc.snapshot_id, snapshot_id: stored.snapshot_id });
    }
  }
  return {
    ...shipped.suite,
    scenarios: shipped.suite.scenarios.map((s) => ({ ...s, snapshot_id: ids.get(s.snapshot_id) ?? s.snapshot_id })),
  };
}
