// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import type { SweepCell, SweepMachine, SweepOutcome, SweepRecord } from '../../../shared';
import { byTestId, mount, type Mounted } from '../../test-mount';
import { constraintWords, SweepAsked, SweepOutcomeNotice } from './SweepFacts';
import { outcomeProblems, outcomeSummary } from './sweep-outcome';

let view: Mounted | null = null;
afterEach(() => {
  view?.unmount();
  view = null;
});

const cell = (over: Partial<SweepCell>): SweepCell => ({ model: 'llama3.1:8b', gpu: 'RTX 3090', status: 'succeeded', job_ids: [], cost_usd: 0.01, ...over });
const machine = (over: Partial<SweepMachine>): SweepMachine => ({ gpu: 'RTX 3090', status: 'released', machine_id: 'm-1', instance_id: 4242, dph_total: 0.3, released: true, cost_usd: 0.02, ...over });
const clean: SweepOutcome = { cells_succeeded: 1, cells_failed: 0, cells_unrented: 0, cells_skipped: 0, cells_not_run: 0, machines_unreleased: 0, clean: true, problems: [] };

function sweep(over: Partial<SweepRecord>): SweepRecord {
  const at = '2026-11-27T10:00:00.000Z';
  const request = { name: 's', models: ['llama3.1:8b'], gpus: ['RTX 3090'], agent: 'builtin', suite_id: 'starter', repeat: 1, min_dph: 0, reliability: 0.99, max_total_cost_usd: 5, machines_at_once: 1 } as SweepRecord['request'];
  return { sweep_id: 'sw-1', tenant_id: 'default', name: 'sweep', status: 'succeeded', message: '', created_at: at, started_at: at, finished_at: at, updated_at: at, request, spend_usd: 0.02, max_total_cost_usd: 5, cells: [cell({})], machines: [machine({})], earlier_machines: [], ranking: [0], error: null, error_code: null, outcome: clean, ...over };
}

describe('a sweep that was not clean', () => {
  const unclean = sweep({
    cells: [cell({}), cell({ model: 'qwen2.5:7b', status: 'failed', reason: 'the agent timed out' }), cell({ gpu: 'RTX 4090', status: 'failed', unrented: true, reason: 'no offer under $1/h' })],
    machines: [machine({}), machine({ gpu: 'A100 SXM4', machine_id: 'm-2', instance_id: 777, status: 'failed', released: false, release_error: 'the marketplace refused the key', dph_total: 1.2 })],
    outcome: { ...clean, cells_failed: 2, cells_unrented: 1, machines_unreleased: 1, clean: false, problems: ['1 cell failed', '1 cell could not run', '1 machine not confirmed released yet'] },
  });

  it('names each problem in words with what to do next', () => {
    const problems = outcomeProblems(unclean);
    expect(problems.map((p) => p.id)).toEqual(['failed', 'unrented', 'machine-m-2']);
    expect(problems[0]?.text).toBe('1 cell failed: qwen2.5:7b on RTX 3090 (the agent timed out).');
    expect(problems[1]?.text).toMatch(/No machine could be rented for RTX 4090, so 1 cell did not run \(no offer under \$1\/h\)/);
    expect(problems[2]?.text).toMatch(/The A100 SXM4 machine \(instance #777\) is not confirmed released: the marketplace refused the key\. It may still bill at \$1\.20\/h/);
    expect(problems[2]?.next).toMatch(/release it from the Overview’s Machines panel/);
    expect(outcomeSummary(unclean)).toContain('1 machine not confirmed released yet');
  });

  it('shows them on the sweep, with a way to the Overview; nothing for a clean sweep or one from before outcomes', () => {
    view = mount({}, <SweepOutcomeNotice sweep={unclean} />);
    const notice = byTestId(view.container, 'sweep-outcome');
    expect(notice.textContent).toMatch(/^Succeeded, but not cleanly\. 3 problems to look at:/);
    expect(byTestId(view.container, 'sweep-problem-unrented').textContent).toMatch(/Next: Raise the highest price per machine/);
    expect(byTestId(view.container, 'sweep-outcome-overview').getAttribute('href')).toBe('#/');
    view.unmount();
    view = mount({}, <div data-testid="host"><SweepOutcomeNotice sweep={sweep({})} /><SweepOutcomeNotice sweep={sweep({ outcome: undefined })} /></div>);
    expect(byTestId(view.container, 'host').textContent).toBe('');
    expect(outcomeSummary(sweep({}))).toBeNull();
  });

  it('falls back on the server’s own words when the records do not explain a problem', () => {
    expect(outcomeProblems(sweep({ outcome: { ...clean, clean: false, problems: ['2 cells not run'] } }))).toEqual([{ id: 'server-0', text: '2 cells not run.', next: expect.any(String) }]);
  });
});

describe('what the sweep was asked', () => {
  it('shows the judge and the constraints with their units; says none when there are none', () => {
    const asked = sweep({});
    asked.request = { ...asked.request, judge: { model: 'qwen2.5:14b', allow_self_judge: false }, constraints: { min_accuracy: 0.8, max_usd_per_correct: 0.05 } };
    view = mount({}, <SweepAsked sweep={asked} />);
    expect(byTestId(view.container, 'sweep-asked-judge').textContent).toMatch(/^qwen2\.5:14b decides each answer/);
    expect(byTestId(view.container, 'sweep-asked-constraints').textContent).toBe('accuracy ≥ 80 % · ≤ $0.05 per correct answer');
    view.unmount();
    view = mount({}, <SweepAsked sweep={sweep({})} />);
    expect(byTestId(view.container, 'sweep-asked-judge').textContent).toContain('none: the rules decide');
    expect(byTestId(view.container, 'sweep-asked-constraints').textContent).toContain('none');
    expect(constraintWords({ max_ttft_p99_ms: 900, max_usd_per_million_output_tokens: 2.5 })).toEqual(['TTFT p99 ≤ 900 ms', '≤ $2.50 per 1M output tokens']);
  });
});
