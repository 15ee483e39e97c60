import { Worker } from 'node:worker_threads';
import type { FixtureAgreement, Scenario } from '../../shared';
import type { ScenarioScore, ScorableScenario } from '../../shared/scenario-score';
import { workerCode } from '../workers/worker-code';

/**
 * Scoring off the main thread (issue 34 item 1): one worker thread scores answers one at a time,
 * each within a time limit. A pattern that backtracks past the limit costs that worker (it is
 * terminated and a new one starts for the next answer), never the server: `/healthz`, cancels and
 * other tenants keep their answers. Every scorer of the app goes through this: the suite job,
 * `POST /v1/suites/{id}/score`, and the fixtures agreement shown on import.
 */

/** Scoring one answer takes well under 5 ms; a second is a pattern gone wrong. */
export const DEFAULT_SCORING_LIMIT_MS = 1000;

/** Loading the worker's code (the bundle, zod) on a busy machine. */
const START_LIMIT_MS = 30_000;

export class ScoringTimeoutError extends Error {
  override name = 'ScoringTimeoutError';
  constructor(readonly limitMs: number) {
    super(`scoring the answer took longer than ${limitMs} ms: a pattern of the scenario backtracks (rewrite it with bounded gaps such as .{0,60})`);
  }
}

export class ScoringFailedError extends Error {
  override name = 'ScoringFailedError';
}

export type AnswerScorer = {
  score(answer: string, scenario: ScorableScenario): Promise<ScenarioScore>;
  /** The rules against every labelled answer of these scenarios (each answer within the limit; one that times out counts as a disagreement). */
  agreement(scenarios: readonly (ScorableScenario & Pick<Scenario, 'scenario_id' | 'fixtures'>)[]): Promise<FixtureAgreement | undefined>;
  close(): Promise<void>;
};

type Reply = { id: number; ok: true; score: ScenarioScore } | { id: number; ok: false; error: string };

const SOURCE_ENTRY = new URL('./score-worker.ts', import.meta.url);

export function createScorePool(options: { limitMs?: number } = {}): AnswerScorer {
  const limitMs = options.limitMs ?? DEFAULT_SCORING_LIMIT_MS;
  let worker: Worker | null = null;
  let nextId = 1;
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;

  let starting: Promise<Worker> | null = null;

  /** A worker that has loaded its code: the per-answer limit never counts a start-up. */
  function ensureWorker(): Promise<Worker> {
    if (worker) return Promise.resolve(worker);
    starting ??= (async () => {
      const code = await workerCode('score-worker', import.meta.url, SOURCE_ENTRY);
      const started = new Worker(code, { eval: true });
      started.on('error', () => undefined);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new ScoringFailedError(`the scoring worker did not start within ${START_LIMIT_MS / 1000} s`)), START_LIMIT_MS);
        started.once('message', () => (clearTimeout(timer), resolve()));
        started.once('exit', (code) => (clearTimeout(timer), reject(new ScoringFailedError(`the scoring worker exited at start (code ${code})`))));
      }).catch(async (err: unknown) => {
        await started.terminate();
        throw err;
      });
      // An idle scorer never keeps the process alive.
      started.unref();
      worker = started;
      return started;
    })().finally(() => {
      starting = null;
    });
    return starting;
  }

  function retire(w: Worker): void {
    if (worker === w) worker = null;
    void w.terminate();
  }

  async function scoreOne(answer: string, scenario: ScorableScenario): Promise<ScenarioScore> {
    if (closed) throw new ScoringFailedError('the scorer is closed');
    const w = await ensureWorker();
    const id = nextId++;
    return new Promise<ScenarioScore>((resolve, reject) => {
      const done = (fn: () => void) => {
        clearTimeout(timer);
        w.off('message', onMessage);
        w.off('exit', onExit);
        fn();
      };
      const onMessage = (reply: Reply) => {
        if (reply.id !== id) return;
        done(() => (reply.ok ? resolve(reply.score) : reject(new ScoringFailedError(reply.error))));
      };
      const onExit = () => done(() => reject(new ScoringFailedError('the scoring worker stopped')));
      const timer = setTimeout(() => {
        done(() => reject(new ScoringTimeoutError(limitMs)));
        retire(w);
      }, limitMs);
      w.on('message', onMessage);
      w.on('exit', onExit);
      // Only the fields scoring reads travel to the worker.
      w.postMessage({ id, answer, scenario: { expected: scenario.expected, must_not: scenario.must_not, ...(scenario.verdict ? { verdict: scenario.verdict } : {}) } });
    });
  }

  function score(answer: string, scenario: ScorableScenario): Promise<ScenarioScore> {
    // One answer at a time: the limit is per answer, not shared with a queue.
    const run = queue.then(() => scoreOne(answer, scenario));
    queue = run.catch(() => undefined);
    return run;
  }

  return {
    score,
    async agreement(scenarios) {
      let agreed = 0;
      let total = 0;
      const disagreements: FixtureAgreement['disagreements'] = [];
      for (const scenario of scenarios) {
        for (const [index, fixture] of (scenario.fixtures ?? []).entries()) {
          total++;
          const passed = await score(fixture.answer, scenario).then(
            (s) => s.passed,
            () => null,
          );
          if (passed === (fixture.label === 'correct')) agreed++;
          else if (disagreements.length < 50) disagreements.push({ scenario_id: scenario.scenario_id, fixture: index, label: fixture.label, note: fixture.note });
        }
      }
      return total === 0 ? undefined : { agreed, total, disagreements };
    },
    async close() {
      closed = true;
      const w = worker;
      worker = null;
      if (w) await w.terminate();
    },
  };
}
