// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { scoreAnswerOutput, scoreScenario, type JobRecordOf, type Suite } from '../../../shared';
import { agentJob } from '../../test-helpers';
import { byTestId, mount, until, type Mounted } from '../../test-mount';
import { AnswerVerdict } from './AnswerVerdict';
import { findScenario, groundTruthWords, verdictView } from './verdict-model';

let view: Mounted | null = null;
afterEach(() => {
  view?.unmount();
  view = null;
});

const QUESTION = 'Why do the orders-api pods keep restarting?';
const suite: Suite = {
  suite_id: 'mine',
  name: 'My suite',
  description: '',
  read_only: false,
  created_at: '2026-01-01T12:00:00.000Z',
  scenarios: [
    {
      scenario_id: 'oom',
      title: 'orders-api runs out of memory',
      snapshot_id: 'snap-oom',
      question: QUESTION,
      expected: [{ finding: 'the container is OOMKilled', any_of: ['oom ?kill', 'out of memory'] }],
      must_not: ['cpu limit'],
      tags: [],
      difficulty: 'easy',
      verdict: { healthy: false, causes: [{ category: 'oom-killed', objects: ['deployment/shop/orders-api'] }] },
    },
  ],
};

const block = (json: string) => `The orders-api container is OOMKilled: its memory limit is too low.\n\n\`\`\`json\n${json}\n\`\`\``;
const RIGHT = block('{"healthy": false, "causes": [{"category": "oom-killed", "objects": ["pod/shop/orders-api-7d9f-abc"]}], "fix": "Raise the memory limit to 512Mi."}');

function askedJob(answer: string, snapshot: string | null): JobRecordOf<'agentic-agent'> {
  const job = agentJob('job-v', 'succeeded') as JobRecordOf<'agentic-agent'>;
  job.request = { ...job.request, question: `  ${QUESTION}\n`, ...(snapshot ? { snapshot } : {}) };
  job.result = { answer, result_type: 'text', artifacts: [], metadata: { agent: 'builtin', model: 'm', steps: 3, tool_calls: 2, prompt_tokens: 10, completion_tokens: 10, tokens_per_second: 5, duration_ms: 1000 } };
  return job;
}

/** The suite routes, scoring by the shared rules exactly as the server does. */
function suitesApi() {
  return {
    listSuites: vi.fn(async () => ({ suites: [{ ...suite, scenarios: undefined, scenario_count: 1, tags: [] }] })),
    getSuite: vi.fn(async () => suite),
    scoreAnswer: vi.fn(async ({ scenario_id, answer }: { scenario_id: string; answer: string }) => {
      const scenario = suite.scenarios.find((s) => s.scenario_id === scenario_id);
      if (!scenario) throw new Error('no such scenario');
      return scoreAnswerOutput(scoreScenario(answer, scenario));
    }),
  };
}

describe('the verdict model', () => {
  it('reads the block: healthy flag, each cause in the taxonomy’s words (an unknown one flagged), the fix', () => {
    const v = verdictView(block('{"healthy": false, "causes": [{"category": "OOMKilled", "objects": "pod/shop/a"}, {"category": "gremlins", "objects": []}], "fix": " more memory "}'));
    expect(v).toEqual({
      state: 'read',
      healthy: false,
      causes: [
        { category: 'oom-killed', words: 'out of memory (OOMKilled)', objects: ['pod/shop/a'] },
        { category: 'gremlins', words: null, objects: [] },
      ],
      fix: 'more memory',
    });
  });

  it('says when the block is missing, and when it is there but does not read', () => {
    expect(verdictView('The pod is OOMKilled.')).toMatchObject({ state: 'missing', reason: expect.stringContaining('does not end with a verdict block') });
    expect(verdictView(block('{"healthy": "perhaps", "causes": []}'))).toMatchObject({ state: 'malformed', reason: expect.stringContaining('healthy') });
    expect(verdictView(block('{"healthy": false, "causes": [}'))).toMatchObject({ state: 'malformed', reason: expect.stringContaining('is not JSON') });
  });

  it('finds the scenario by snapshot and question (spaces aside), none on another snapshot or a live cluster', () => {
    expect(findScenario([suite], 'snap-oom', `${QUESTION}  `)?.scenario.scenario_id).toBe('oom');
    expect(findScenario([suite], 'snap-other', QUESTION)).toBeNull();
    expect(findScenario([suite], null, QUESTION)).toBeNull();
    expect(groundTruthWords(suite.scenarios[0]?.verdict)).toBe('out of memory (OOMKilled) on deployment/shop/orders-api');
    expect(groundTruthWords({ healthy: true, causes: [] })).toBe('healthy: nothing is wrong');
  });
});

describe('the answer’s verdict on the job page', () => {
  it('shows the verdict, then scores it against the scenario’s ground truth, and says no judge graded it', async () => {
    const api = suitesApi();
    view = mount(api, <AnswerVerdict job={askedJob(RIGHT, 'snap-oom')} />);
    expect(byTestId(view.container, 'verdict-healthy').textContent).toBe('not healthy');
    const causes = byTestId(view.container, 'verdict-causes').textContent ?? '';
    expect(causes).toContain('out of memory (OOMKilled)');
    expect(causes).toContain('pod/shop/orders-api-7d9f-abc');
    expect(byTestId(view.container, 'verdict-fix').textContent).toBe('Raise the memory limit to 512Mi.');
    await until(() => view?.container.querySelector('[data-testid="try-score"]') !== null, 'the score');
    const score = byTestId(view.container, 'verdict-score').textContent ?? '';
    expect(score).toContain('Scored against scenario “orders-api runs out of memory” of suite My suite');
    expect(score).toContain('ground truth: out of memory (OOMKilled) on deployment/shop/orders-api');
    expect(byTestId(view.container, 'try-passed').textContent).toBe('pass');
    expect(byTestId(view.container, 'try-verdict').textContent).toMatch(/Structured verdict: right/);
    expect(byTestId(view.container, 'verdict-judge').textContent).toContain('No judge graded this answer');
    expect(view.container.querySelector('[data-testid="verdict-disagreement"]')).toBeNull();
    expect(api.scoreAnswer).toHaveBeenCalledWith({ suite_id: 'mine', scenario_id: 'oom', answer: RIGHT });
  });

  it('says plainly when the block is malformed, and the rules still score the prose', async () => {
    const answer = 'The container is OOMKilled.\n\n```json\n{"healthy": false, "causes": [\n```';
    view = mount(suitesApi(), <AnswerVerdict job={askedJob(answer, 'snap-oom')} />);
    const notice = byTestId(view.container, 'verdict-missing').textContent ?? '';
    expect(notice).toContain('The verdict block is malformed.');
    expect(notice).toContain('The rules still read the prose');
    await until(() => view?.container.querySelector('[data-testid="try-passed"]') !== null, 'the score');
    // Without a block that reads, the statements decide: this one affirms the OOMKilled finding.
    expect(byTestId(view.container, 'try-passed').textContent).toBe('pass');
    expect(byTestId(view.container, 'try-verdict').textContent).toMatch(/Structured verdict: none/);
  });

  it('names where the prose and the verdict disagree', async () => {
    const wrong = block('{"healthy": false, "causes": [{"category": "dns", "objects": ["service/shop/db"]}], "fix": "x"}');
    view = mount(suitesApi(), <AnswerVerdict job={askedJob(wrong, 'snap-oom')} />);
    await until(() => view?.container.querySelector('[data-testid="verdict-disagreement"]') !== null, 'the disagreement');
    expect(byTestId(view.container, 'verdict-disagreement').textContent).toMatch(/statements find every expected finding, but the verdict block is wrong/);
  });

  it('on a live cluster: the verdict only, no suite read, and why it is not scored', () => {
    const api = suitesApi();
    view = mount(api, <AnswerVerdict job={askedJob('All pods are running. ```json\n{"healthy": true, "causes": []}\n```', null)} />);
    expect(byTestId(view.container, 'verdict-healthy').textContent).toBe('healthy');
    expect(byTestId(view.container, 'verdict-no-scenario').textContent).toContain('live cluster');
    expect(api.listSuites).not.toHaveBeenCalled();
  });

  it('shows nothing before there is an answer', () => {
    const job = askedJob(RIGHT, null);
    job.result = null;
    view = mount(suitesApi(), <AnswerVerdict job={job} />);
    expect(view.container.querySelector('[data-testid="answer-verdict"]')).toBeNull();
  });
});
