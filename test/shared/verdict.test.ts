import { describe, expect, it } from 'vitest';
import { scoreScenario } from '../../shared/scenario-score';
import type { GroundTruthVerdict } from '../../shared/suites';
import { judgeVerdict, parseAnswerVerdict, scoreVerdict } from '../../shared/verdict';

/** The structured verdict of design §12b: read leniently, validated, scored against the ground truth. */

const block = (json: string) => `The orders-api pods crash.\n\n\`\`\`json\n${json}\n\`\`\``;
const truth: GroundTruthVerdict = { healthy: false, causes: [{ category: 'bad-config', objects: ['deployment/shop/orders-api'] }] };

describe('parseAnswerVerdict', () => {
  it('reads the last fenced block with "healthy", leniently', () => {
    const text = `${block('{"healthy": true}')}\nActually:\n${block('{"healthy": "false", "causes": [{"category": "CrashLoopBackOff", "objects": "Pod/shop/orders-api-6c9f7d4b8-x2kq9"},], "fix": "x"}')}`;
    expect(parseAnswerVerdict(text)).toEqual({ verdict: { healthy: false, causes: [{ category: 'crash-loop', objects: ['Pod/shop/orders-api-6c9f7d4b8-x2kq9'] }], fix: 'x' } });
  });

  it('reads a bare object at the end, and says why when there is none or it is broken', () => {
    expect(parseAnswerVerdict('Done. {"healthy": true, "causes": []}')).toEqual({ verdict: { healthy: true, causes: [] } });
    expect(parseAnswerVerdict('no block here')).toEqual({ error: 'no verdict block' });
    expect(parseAnswerVerdict(block('{"healthy": maybe}'))).toMatchObject({ error: expect.stringMatching(/not JSON/) });
    expect(parseAnswerVerdict(block('{"healthy": 3}'))).toMatchObject({ error: expect.stringMatching(/^the verdict block does not read: healthy/) });
  });
});

describe('judgeVerdict', () => {
  const v = (healthy: boolean, causes: { category: string; objects: string[] }[]) => ({ healthy, causes });

  it('needs the healthy flag, each cause category and one of its objects', () => {
    expect(judgeVerdict(v(false, [{ category: 'bad-config', objects: ['pod/shop/orders-api-6c9f7d4b8-x2kq9'] }]), truth)).toMatchObject({ correct: true });
    // crash-loop stands for a wrong setting that crashes the app
    expect(judgeVerdict(v(false, [{ category: 'crash-loop', objects: ['shop/orders-api'] }]), truth)).toMatchObject({ correct: true });
    expect(judgeVerdict(v(false, [{ category: 'bad-config', objects: ['deployment/shop/payments'] }]), truth)).toEqual({ correct: false, detail: 'bad-config named without its object (deployment/shop/orders-api)' });
    expect(judgeVerdict(v(false, [{ category: 'bad-config', objects: ['deployment/web/orders-api'] }]), truth).correct).toBe(false);
    expect(judgeVerdict(v(true, []), truth)).toMatchObject({ correct: false, detail: 'says healthy; the cause is bad-config' });
  });

  it('fails a cause that is not there, tolerates crash-loop beside the cause', () => {
    const answer = (extra: string) => v(false, [{ category: 'bad-config', objects: ['deployment/shop/orders-api'] }, { category: extra, objects: ['deployment/shop/orders-api'] }]);
    expect(judgeVerdict(answer('crash-loop'), truth).correct).toBe(true);
    expect(judgeVerdict(answer('oom-killed'), truth)).toEqual({ correct: false, detail: 'names a cause that is not there: oom-killed' });
    expect(judgeVerdict(answer('gremlins'), truth)).toEqual({ correct: false, detail: 'names an unknown category: gremlins' });
  });

  it('matches a node by its short name and needs both causes of a two-cause truth', () => {
    const node: GroundTruthVerdict = { healthy: false, causes: [{ category: 'node-pressure', objects: ['node/ip-10-0-3-17.eu-west-1.compute.internal'] }, { category: 'quota', objects: ['resourcequota/ml/compute'] }] };
    expect(judgeVerdict(v(false, [{ category: 'node-pressure', objects: ['node/ip-10-0-3-17'] }]), node)).toEqual({ correct: false, detail: 'misses quota (resourcequota/ml/compute)' });
    expect(judgeVerdict(v(false, [{ category: 'node-pressure', objects: ['node/ip-10-0-3-17'] }, { category: 'quota', objects: ['ml/compute'] }]), node).correct).toBe(true);
  });

  it('a healthy truth wants healthy and no cause', () => {
    const healthy: GroundTruthVerdict = { healthy: true, causes: [] };
    expect(judgeVerdict(v(true, [{ category: 'none', objects: [] }]), healthy).correct).toBe(true);
    expect(judgeVerdict(v(true, [{ category: 'crash-loop', objects: [] }]), healthy).correct).toBe(false);
    expect(judgeVerdict(v(false, []), healthy).correct).toBe(false);
  });
});

describe('scoreVerdict and scoreScenario', () => {
  const scenario = { expected: [{ finding: 'crash', any_of: ['crash'] }], must_not: [], verdict: truth };
  it('is null without a block or a truth; found false with a truth and no block', () => {
    expect(scoreVerdict('nothing', undefined)).toBeNull();
    expect(scoreVerdict('nothing', truth)).toEqual({ found: false, correct: null, detail: 'no verdict block' });
    expect(scoreVerdict(block('{"healthy": false, "causes": []}'), undefined)).toMatchObject({ found: true, correct: null });
  });
  it('a wrong verdict fails an answer whose findings pass; no verdict leaves the findings to decide', () => {
    expect(scoreScenario('The orders-api pods crash.', scenario)).toMatchObject({ passed: true, findings_passed: true, verdict: { found: false } });
    const wrong = scoreScenario(block('{"healthy": false, "causes": [{"category": "dns", "objects": ["deployment/shop/orders-api"]}]}'), scenario);
    expect(wrong).toMatchObject({ passed: false, findings_passed: true, verdict: { found: true, correct: false } });
    // The block itself is quoted output: its words never count as findings.
    expect(scoreScenario(block('{"healthy": false, "causes": [{"category": "crash-loop", "objects": ["deployment/shop/orders-api"]}]}').replace('The orders-api pods crash.', ''), scenario).findings_passed).toBe(false);
  });
});
