import { describe, expect, it } from 'vitest';
import { CreateSuiteInputSchema } from '../../shared/suites';
import { scoreAnswer, scoreRules, ScoringPatternError } from '../../shared/scoring';
import { splitStatements } from '../../shared/statements';

/**
 * The rules of design §12b, read as statements: a finding counts only where it is affirmed (not
 * negated, dismissed, asked, put as a hypothesis or only quoted as tool output); must_not claims
 * likewise; the healthy scenario fails any affirmed fault.
 */

const expected = [
  { finding: 'crash loop', any_of: ['crash ?-?loop', 'back-?off'] },
  { finding: 'wrong password', any_of: ['password.{0,40}(wrong|rejected)', '(wrong|bad) password', 'password authentication failed'] },
];

const reasons = (answer: string, rules = { expected, must_not: ['OOM ?-?kill'] }) => scoreRules(answer, rules).statements.map((s) => [s.reason, s.text]);

describe('splitStatements', () => {
  it('splits sentences and clauses, keeps quoted output apart', () => {
    const text = 'It is not OOMKilled; the password is wrong. The tag is fine, not the cause (see below).\n```\n$ kubectl get pods\nNAME  READY\n```\n2026-11-20T09:30:00Z FATAL password authentication failed\n- one item\n- two: items';
    expect(splitStatements(text).map((s) => [s.shape, s.text])).toEqual([
      ['prose', 'It is not OOMKilled'],
      ['prose', 'the password is wrong.'],
      ['prose', 'The tag is fine'],
      ['prose', 'not the cause'],
      ['prose', 'see below'],
      ['quoted', '$ kubectl get pods\nNAME  READY'],
      ['quoted', '2026-11-20T09:30:00Z FATAL password authentication failed'],
      ['prose', 'one item'],
      ['prose', 'two'],
      ['prose', 'items'],
    ]);
  });

  it('reads kubectl tables, describe fields, log lines and block quotes as quoted output', () => {
    const raw = [
      'NAME                         READY   STATUS             RESTARTS   AGE',
      'orders-api-6c9f7d4b8-x2kq9   0/1     CrashLoopBackOff   12         40m',
      '      Reason:       OOMKilled',
      'E1120 09:30:00.000000       1 reflector.go:138] failed',
      'level=error msg="password authentication failed"',
      '> FATAL: password authentication failed',
      '$ kubectl logs orders-api --previous',
    ];
    expect(splitStatements(raw.join('\n')).every((s) => s.shape === 'quoted')).toBe(true);
  });

  it('keeps a `key: value` pair in one statement, and still breaks at a colon before words', () => {
    expect(splitStatements('Someone set recommendations to replicas: 0 an hour ago. Cause: the tag is wrong.').map((s) => s.text)).toEqual([
      'Someone set recommendations to replicas: 0 an hour ago.',
      'Cause',
      'the tag is wrong.',
    ]);
    expect(splitStatements('It has suspend: true, and timeoutSeconds: 1s.').map((s) => s.text)).toEqual(['It has suspend: true', 'and timeoutSeconds: 1s.']);
  });

  it('never cuts a quotation the answer cites', () => {
    expect(splitStatements('Its log says "configmaps is forbidden: cannot list (shop)"; add a Role.').map((s) => s.text)).toEqual([
      'Its log says "configmaps is forbidden: cannot list (shop)"',
      'add a Role.',
    ]);
  });

  it('joins a paragraph wrapped over lines and marks questions', () => {
    expect(splitStatements('The orders-api pods crash\nat start. Is it the password?')).toMatchObject([
      { text: 'The orders-api pods crash at start.', question: false },
      { text: 'Is it the password?', question: true },
    ]);
  });
});

describe('scoreRules', () => {
  it('counts a finding in an affirmed statement, case-insensitively', () => {
    const s = scoreRules('The pod is in CRASHLOOPBACKOFF because of a Wrong Password.', { expected, must_not: ['OOMKilled'] });
    expect(s).toMatchObject({ score: 1, passed: true, matched: ['crash loop', 'wrong password'], missed: [], must_not_matched: [] });
    expect(s.statements.filter((x) => x.counted.length > 0).map((x) => x.affirmed)).toEqual([true, true]);
  });

  it('does not count a negated or dismissed finding, and says why', () => {
    expect(reasons('The password is fine, not wrong.')).toEqual([
      ['dismissed', 'The password is fine'],
      ['negated', 'not wrong.'],
    ]);
    expect(scoreRules('The password is not wrong.', { expected }).missed).toContain('wrong password');
    expect(scoreRules('A wrong password is not the problem here.', { expected }).missed).toContain('wrong password');
    expect(scoreRules('We can rule out a bad password.', { expected }).missed).toContain('wrong password');
    expect(scoreRules('Crash loop? The password is correct.', { expected }).statements.map((x) => [x.reason, x.cue])).toEqual([
      ['question', null],
      ['dismissed', 'is correct'],
    ]);
  });

  it('keeps a negation the pattern itself needs ("does not exist", "cannot pull")', () => {
    const tag = [{ finding: 'tag missing', any_of: ["tag.{0,40}does ?n[o']t exist", "(cannot|can't) pull"] }];
    expect(scoreRules('The tag v2.41 does not exist.', { expected: tag }).passed).toBe(true);
    expect(scoreRules("The node can't pull the image.", { expected: tag }).passed).toBe(true);
    expect(scoreRules('It is not true that the tag does not exist.', { expected: tag }).passed).toBe(false);
  });

  it('does not count findings only quoted as raw tool output', () => {
    const raw = '```\n2026-11-20T09:30:00Z FATAL password authentication failed\n```\nNAME   READY   STATUS\norders-api   0/1   CrashLoopBackOff';
    const s = scoreRules(raw, { expected });
    expect(s).toMatchObject({ passed: false, matched: [] });
    expect(s.statements.every((x) => x.reason === 'quoted-output' && !x.affirmed)).toBe(true);
  });

  it('does not count a hypothesis', () => {
    expect(scoreRules('Check whether the password is wrong.', { expected }).statements[0]).toMatchObject({ reason: 'hypothetical', cue: 'whether' });
    expect(scoreRules('If the password were wrong, we would see auth errors.', { expected }).matched).not.toContain('wrong password');
  });

  it('matches must_not claims only where affirmed', () => {
    const mustNot = ['OOM ?-?kill'];
    expect(scoreRules('Crash loop from a wrong password; it was not OOMKilled.', { expected, must_not: mustNot })).toMatchObject({ passed: true, must_not_matched: [] });
    const wrong = scoreRules('Crash loop from a wrong password, and it was OOMKilled.', { expected, must_not: mustNot });
    expect(wrong).toMatchObject({ passed: false, score: 1, must_not_matched: ['OOM ?-?kill'] });
    expect(wrong.statements.find((x) => x.wrong.length > 0)?.text).toMatch(/OOMKilled/);
  });

  it('needs every all_of concept affirmed somewhere in the answer, at any distance', () => {
    const node = [{ finding: 'node NotReady', any_of: ['not ?ready'], all_of: [['ip-10-0-3-17']] }];
    const far = `ip-10-0-3-17 ${'hosted the search pods and the log shipper, '.repeat(5)}ran out of disk. It then went NotReady.`;
    expect(scoreRules(far, { expected: node }).passed).toBe(true);
    expect(scoreRules('ip-10-0-3-17 is fine. ip-10-0-1-21 is NotReady.', { expected: node }).passed).toBe(false);
  });

  it('does not let the main pattern\'s own negation take back an all_of concept in the same statement', () => {
    const key = [{ finding: 'key missing', any_of: ["(has no|lacks|does ?n[o']t have) (the )?(key|entry)"], all_of: [['feature-flags']] }];
    // "no" belongs to "has no entry": the key named after it is not negated.
    expect(scoreRules('The ConfigMap has no entry called feature-flags.', { expected: key }).passed).toBe(true);
    // A negation of its own still takes the concept back, in that statement or elsewhere.
    expect(scoreRules('The ConfigMap has no entry called api-url. It is not feature-flags.', { expected: key }).passed).toBe(false);
    // And the concept alone, negated where no finding counted, is still negated.
    expect(scoreRules('The key is fine, not feature-flags. It lacks the key.', { expected: key }).passed).toBe(false);
  });

  it('does not read an opening "No," (the answer to the question) as a negation of what follows', () => {
    const allClear = { expected: [{ finding: 'healthy', any_of: ['(is|are) (all )?healthy'] }], healthy: true };
    expect(scoreRules('No, the cluster is healthy.', allClear).passed).toBe(true);
    expect(scoreRules('The cluster is not healthy.', allClear).passed).toBe(false);
  });

  it('dismisses a state said to be meant so or to be history ("by design", "a leftover from five days ago", "the old evicted pod")', () => {
    const healthy = { expected: [], healthy: true };
    expect(scoreRules('data-sandbox-db-0 is Pending by design.', healthy).passed).toBe(true);
    expect(scoreRules('The Evicted storefront pod is a leftover from five days ago.', healthy).passed).toBe(true);
    expect(scoreRules('The Evicted pod is five days old. You can delete the old evicted pod.', healthy).passed).toBe(true);
    expect(scoreRules('The catalog restarts date from the node reboot.', { expected: [], must_not: ['restarts'] }).passed).toBe(true);
    // Without the cue it is a fault claimed.
    expect(scoreRules('data-sandbox-db-0 is Pending.', healthy).passed).toBe(false);
    expect(scoreRules('The storefront pod was evicted an hour ago.', healthy).passed).toBe(false);
  });

  it('on a healthy scenario, does not read a message cited in quotes as a fault claimed, and reads the words around it', () => {
    const healthy = { expected: [], healthy: true };
    expect(scoreRules('The warnings are "Readiness probe failed: connection refused" from the first seconds of each pod.', healthy).passed).toBe(true);
    expect(scoreRules('The pods are failing: "Readiness probe failed".', healthy).passed).toBe(false);
    expect(scoreRules('checkout 4.2 has a readiness problem.', healthy).passed).toBe(false);
    expect(scoreRules('There was a brief problem during the rollout; all pods are ready now.', healthy).passed).toBe(true);
    expect(scoreRules('Its pods will keep flapping.', healthy).passed).toBe(false);
  });

  it('reads the verdict block\'s fix as the answer\'s own statement, and nothing else of the block', () => {
    const fix = [{ finding: 'raise the deadline', any_of: ['(increase|raise) activeDeadlineSeconds'] }];
    const block = (v: object) => `The job hit its deadline.\n\n\`\`\`json\n${JSON.stringify(v)}\n\`\`\``;
    const scored = scoreRules(block({ healthy: false, causes: [{ category: 'job-failure', objects: ['job/a/b'] }], fix: 'increase activeDeadlineSeconds' }), { expected: fix });
    expect(scored.passed).toBe(true);
    expect(scored.statements.at(-1)).toMatchObject({ text: 'increase activeDeadlineSeconds', reason: 'affirmed', counted: ['raise the deadline'] });
    expect(scoreRules(block({ healthy: false, causes: [{ category: 'increase activeDeadlineSeconds', objects: [] }] }), { expected: fix }).passed).toBe(false);
    expect(scoreRules(block({ healthy: false, causes: [], fix: 'raise the CPU limit' }), { expected: [], must_not: ['cpu limit'] }).passed).toBe(false);
  });

  it('reads "far from" as a negation', () => {
    expect(scoreRules('The quota is far from full.', { expected: [], must_not: ['quota.{0,20}full'] }).passed).toBe(true);
  });

  it('fails a healthy scenario on any affirmed fault, and not on a negated one', () => {
    const healthy = { expected: [{ finding: 'nothing wrong', any_of: ['nothing (is )?wrong', '\\bno\\b.{0,40}\\b(problems?|failing)\\b'] }], healthy: true };
    expect(scoreRules('No pods are failing.', healthy).passed).toBe(true);
    expect(scoreRules('Nothing is wrong; no errors in the logs.', healthy).passed).toBe(true);
    const alarm = scoreRules('Nothing is wrong with the nodes, but orders-api is crash-looping.', healthy);
    expect(alarm.passed).toBe(false);
    expect(alarm.must_not_matched[0]).toMatch(/^a fault claimed: "but orders-api is crash-looping/);
  });

  it('scores matched / expected; an empty answer scores 0 and fails; nothing expected scores 1 without wrong claims', () => {
    expect(scoreRules('it keeps crash looping', { expected })).toMatchObject({ score: 0.5, passed: false, missed: ['wrong password'] });
    expect(scoreRules('', { expected })).toMatchObject({ score: 0, passed: false, missed: ['crash loop', 'wrong password'] });
    expect(scoreAnswer('   ', [], ['broken'])).toMatchObject({ score: 0, passed: false });
    expect(scoreAnswer('Everything is healthy.', [], ['is broken'], false)).toMatchObject({ score: 1, passed: true });
    expect(scoreAnswer('The database is broken.', [], ['is broken'], false)).toMatchObject({ score: 0, passed: false });
  });

  it('refuses a pattern that does not compile (suites are validated before they reach it)', () => {
    expect(() => scoreAnswer('x', [{ finding: 'f', any_of: ['(unclosed'] }])).toThrow(ScoringPatternError);
  });
});

describe('a suite with an invalid regex is refused, naming its path', () => {
  it('in expected, all_of and must_not', () => {
    const scenario = {
      scenario_id: 's',
      title: 't',
      snapshot_id: 'snap',
      question: 'q',
      difficulty: 'easy',
      expected: [{ finding: 'f', any_of: ['ok', '(bad'], all_of: [['[z-a]']] }],
      must_not: ['[z-a]'],
    };
    const parsed = CreateSuiteInputSchema.safeParse({ name: 'n', scenarios: [scenario] });
    expect(parsed.success).toBe(false);
    const paths = parsed.error?.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(['scenarios.0.expected.0.any_of.1', 'scenarios.0.expected.0.all_of.0.0', 'scenarios.0.must_not.0']);
    expect(parsed.error?.issues[0]?.message).toMatch(/not a valid regular expression/);
  });
});
