import { parentPort } from 'node:worker_threads';
import { scoreScenario, type ScorableScenario } from '../../shared/scenario-score';

/**
 * The scoring worker (issue 34 item 1): scores one answer per message, off the app's event loop,
 * so a pattern that backtracks for seconds stalls this thread only; the pool (score-pool.ts)
 * terminates it at the time limit. Built to dist/main/score-worker.cjs.
 */

type Request = { id: number; answer: string; scenario: ScorableScenario };

// Loaded (zod and the scorer initialised): the pool's time limits start from here.
parentPort?.postMessage({ ready: true });

parentPort?.on('message', (request: Request) => {
  try {
    parentPort?.postMessage({ id: request.id, ok: true, score: scoreScenario(request.answer, request.scenario) });
  } catch (err) {
    parentPort?.postMessage({ id: request.id, ok: false, error: err instanceof Error ? err.message : String(err) });
  }
});
