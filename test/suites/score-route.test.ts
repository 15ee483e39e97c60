import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, tempDir, type Harness } from '../workflows/harness';

/**
 * `POST /v1/suites/{id}/score` (design §12b) and the pattern guard of issue 34 item 1: 200 with
 * the statements that counted, 404 for an unknown suite or scenario, 422 for a bad body; a pattern
 * that backtracks is refused when stored or imported, and one stored before the guard is scored
 * off the main thread: `/healthz` keeps answering, the request ends in a 422 at the time limit.
 */

const harnesses: Harness[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function harness(dataDir?: string): Promise<Harness> {
  const h = await startHarness(dataDir ? { dataDir } : {});
  harnesses.push(h);
  return h;
}

const FREEZING = '(\\w+\\s?)+$';
const scenario = (patterns: { any_of?: string[]; must_not?: string[] } = {}) => ({
  scenario_id: 'pod-name',
  title: 'A pod name',
  snapshot_id: 'starter-oomkilled',
  question: 'Which pod?',
  expected: [{ finding: 'names the pod', any_of: patterns.any_of ?? ['report-worker'] }],
  must_not: patterns.must_not ?? [],
  difficulty: 'easy',
});

describe('POST /v1/suites/{id}/score', () => {
  it('answers the rules’ score with the statements that counted and why', async () => {
    const h = await harness();
    const res = await h.post('/v1/suites/starter/score', {
      scenario_id: 'oomkilled',
      answer: 'It is not a password problem. report-worker was OOMKilled (exit code 137); give it a bigger memory allowance.\n```\nReason: OOMKilled\n```',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ passed: true, score: 1, missed: [], must_not_matched: [], method: 'rules', verdict: { found: false, correct: null } });
    const statements = res.body.statements as { text: string; affirmed: boolean; reason: string; counted: string[] }[];
    expect(statements.map((s) => s.reason)).toEqual(['negated', 'affirmed', 'affirmed', 'affirmed', 'quoted-output']);
    expect(statements[0]).toMatchObject({ text: 'It is not a password problem.', affirmed: false });
    expect(statements.flatMap((s) => s.counted)).toContain('the fix is a higher memory limit (or less memory used)');
    const wrong = await h.post('/v1/suites/starter/score', { scenario_id: 'healthy-cluster', answer: 'Nothing is wrong with the nodes, but orders-api is crash-looping.' });
    expect(wrong.body).toMatchObject({ passed: false, must_not_matched: [expect.stringMatching(/^a fault claimed/)] });
  });

  it('404 for an unknown suite or scenario, 422 for a bad body', async () => {
    const h = await harness();
    expect((await h.post('/v1/suites/nope/score', { scenario_id: 'oomkilled', answer: 'x' })).body).toMatchObject({ status: 404, code: 'suite_not_found' });
    const noScenario = await h.post('/v1/suites/starter/score', { scenario_id: 'ghost', answer: 'x' });
    expect(noScenario.body).toMatchObject({ status: 404, code: 'scenario_not_found', detail: expect.stringMatching(/has no scenario ghost; it has: crashloop-db-password/) });
    for (const body of [{ scenario_id: 'oomkilled' }, { scenario_id: 'oomkilled', answer: 3 }, { scenario_id: 'oomkilled', answer: 'x', extra: 1 }, { answer: 'x' }]) {
      const res = await h.post('/v1/suites/starter/score', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
  });
});

describe('patterns that could freeze the server', () => {
  it('are refused when a suite is created or imported, naming the scenario and the pattern', async () => {
    const h = await harness();
    const created = await h.post('/v1/suites', { name: 'Slow', scenarios: [scenario({ must_not: [FREEZING] })] });
    expect(created.status).toBe(422);
    expect(created.body.errors).toEqual([{ path: 'scenarios.0.must_not.0', message: expect.stringMatching(/^scenario pod-name: the pattern \/\(\\w\+\\s\?\)\+\$\/ could take exponential time/) }]);
    const doc = (await h.get('/v1/suites/starter/export')).body as { suite: { scenarios: unknown[] }; snapshots: unknown[] };
    const imported = await h.post('/v1/suites/import', { ...doc, suite: { name: 'Slow import', scenarios: [scenario({ any_of: [FREEZING] })] } });
    expect(imported.status).toBe(422);
    expect(imported.body.errors).toEqual([expect.objectContaining({ path: 'suite.scenarios.0.expected.0.any_of.0', message: expect.stringMatching(/^scenario pod-name: the pattern/) })]);
  });

  it('one stored before the guard is scored off the main thread: /healthz answers meanwhile, the score ends in a 422 at the limit', async () => {
    const dir = await tempDir();
    dirs.push(dir);
    await mkdir(path.join(dir, 'suites'), { recursive: true, mode: 0o700 });
    const old = { suite_id: 'old', name: 'Old', description: '', read_only: false, created_at: '2026-11-01T00:00:00Z', scenarios: [scenario({ any_of: [FREEZING] })] };
    await writeFile(path.join(dir, 'suites', 'old.json'), JSON.stringify(old), { mode: 0o600 });
    const h = await harness(dir);
    // Warm the scorer first, so the race below is scoring, not start-up.
    expect((await h.post('/v1/suites/old/score', { scenario_id: 'pod-name', answer: 'fine' })).status).toBe(200);
    let scoring = true;
    const slow = h.post('/v1/suites/old/score', { scenario_id: 'pod-name', answer: `The pod ${'a'.repeat(40)}! is failing` }).finally(() => {
      scoring = false;
    });
    const health = await Promise.race([h.get('/healthz'), new Promise<null>((resolve) => setTimeout(() => resolve(null), 1000))]);
    expect(health?.status).toBe(200);
    expect(scoring).toBe(true);
    const res = await slow;
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'scoring_timeout', detail: expect.stringMatching(/^scenario pod-name of suite old: scoring the answer took longer than 1000 ms/) });
  });

  it('a created or imported suite says how far the rules agree with its fixtures', async () => {
    const h = await harness();
    const fixtures = [
      { answer: 'report-worker is the pod.', label: 'correct', note: 'names it' },
      { answer: 'It is not report-worker.', label: 'wrong', note: 'negated' },
      { answer: 'report-worker is fine.', label: 'correct', note: 'mislabelled: the rules read a dismissal' },
    ];
    const created = await h.post('/v1/suites', { name: 'Labelled', scenarios: [{ ...scenario(), fixtures }] });
    expect(created.status).toBe(201);
    expect(created.body.fixture_agreement).toEqual({ agreed: 2, total: 3, disagreements: [{ scenario_id: 'pod-name', fixture: 2, label: 'correct', note: 'mislabelled: the rules read a dismissal' }] });
    const doc = (await h.get(`/v1/suites/${String(created.body.suite_id)}/export`)).body;
    const imported = await h.post('/v1/suites/import', doc);
    expect(imported.status).toBe(201);
    expect(imported.body.fixture_agreement).toMatchObject({ agreed: 2, total: 3 });
    const listed = (await h.get('/v1/suites')).body.suites as { suite_id: string; fixture_agreement?: { agreed: number; total: number } }[];
    expect(listed.find((s) => s.suite_id === 'starter')?.fixture_agreement?.total).toBeGreaterThanOrEqual(60);
  });
});
