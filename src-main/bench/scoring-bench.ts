import { fixtureAgreement, scoreScenario } from '../../shared/scenario-score';
import { starterSuite } from '../suites/starter';
import { createScorePool } from '../suites/score-pool';
import type { Report } from './report';

/**
 * The scorer as code (design §12b, issue 30): how far the rules agree with the shipped suite's
 * labelled answers (target ≥ 95%), the time to score one answer in the scorer itself (target
 * ≤ 5 ms) and through the worker thread the app scores with (message round trip included).
 */
export async function runScoringBench(report: Report, options: { rounds: number }): Promise<void> {
  const { suite } = starterSuite();
  const agreement = fixtureAgreement(suite.scenarios);
  const share = agreement ? agreement.agreed / agreement.total : null;
  report.add({
    section: 'scoring',
    scenario: 'rules agree with the starter suite’s labelled answers',
    value: share === null ? null : Math.round(share * 1000) / 10,
    unit: '%',
    target: '≥ 95 %',
    ok: share === null ? undefined : share >= 0.95,
    note: agreement ? `${agreement.agreed} of ${agreement.total}${agreement.disagreements.length ? `; disagree: ${agreement.disagreements.map((d) => `${d.scenario_id}#${d.fixture}`).join(', ')}` : ''}` : 'no fixtures',
  });

  const answers = suite.scenarios.flatMap((s) => (s.fixtures ?? []).map((f) => ({ scenario: s, answer: f.answer })));
  // Warm the compiled-pattern cache and the JIT, as a running app is.
  for (const a of answers) scoreScenario(a.answer, a.scenario);
  const times: number[] = [];
  for (let r = 0; r < options.rounds; r++) {
    for (const a of answers) {
      const t0 = performance.now();
      scoreScenario(a.answer, a.scenario);
      times.push(performance.now() - t0);
    }
  }
  times.sort((a, b) => a - b);
  const p = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
  report.add({ section: 'scoring', scenario: 'score one answer, p50 (in process)', value: Math.round(p(0.5) * 1000) / 1000, unit: 'ms', target: '≤ 5 ms', ok: p(0.5) <= 5 });
  report.add({ section: 'scoring', scenario: 'score one answer, p99 (in process)', value: Math.round(p(0.99) * 1000) / 1000, unit: 'ms', target: '≤ 5 ms', ok: p(0.99) <= 5, note: `${times.length} scorings of ${answers.length} answers` });

  const first = answers[0];
  if (!first) return;
  const pool = createScorePool();
  try {
    // Started and warm: the figure is scoring, not the worker's start-up.
    await pool.score(first.answer, first.scenario);
    const trip: number[] = [];
    for (const a of answers) {
      const t0 = performance.now();
      await pool.score(a.answer, a.scenario);
      trip.push(performance.now() - t0);
    }
    trip.sort((a, b) => a - b);
    const median = trip[Math.floor(trip.length / 2)] ?? 0;
    report.add({ section: 'scoring', scenario: 'score one answer through the worker thread, p50', value: Math.round(median * 1000) / 1000, unit: 'ms', target: '≤ 5 ms', ok: median <= 5 });
  } finally {
    await pool.close();
  }
}
