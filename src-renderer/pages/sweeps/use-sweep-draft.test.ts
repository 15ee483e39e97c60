import { describe, expect, it } from 'vitest';
import { SweepRequestSchema } from '../../../shared';
import { checkSweepDraft, DEFAULT_SWEEP_DRAFT, type SweepDraft } from './use-sweep-draft';

const ready: SweepDraft = { ...DEFAULT_SWEEP_DRAFT, name: 'triage', models: ['llama3.1:8b', 'qwen2.5:7b'], gpus: ['RTX 3090'], template: 'abc123' };

describe('the sweep form’s judge and constraints', () => {
  it('sends none when left empty', () => {
    const { request } = checkSweepDraft(ready);
    expect(request).not.toBeNull();
    expect(request).not.toHaveProperty('judge');
    expect(request).not.toHaveProperty('constraints');
  });

  it('sends the judge and each constraint with its unit (accuracy typed in %, sent as 0–1); the server accepts it', () => {
    const { request, errors } = checkSweepDraft({ ...ready, runServing: true, judgeModel: ' qwen2.5:14b ', minAccuracyPct: '80', maxUsdPerCorrect: '0.05', maxTtftP99Ms: '900', maxUsdPerMillion: '2.5' });
    expect(errors).toEqual({});
    expect(request?.judge).toEqual({ model: 'qwen2.5:14b' });
    expect(request?.constraints).toEqual({ min_accuracy: 0.8, max_usd_per_correct: 0.05, max_ttft_p99_ms: 900, max_usd_per_million_output_tokens: 2.5 });
    expect(SweepRequestSchema.safeParse(request).success).toBe(true);
  });

  it('refuses a judge that is a model under test unless allowed, and a judge without a suite', () => {
    expect(checkSweepDraft({ ...ready, judgeModel: 'Qwen2.5:7B' }).errors.judge).toMatch(/one of the models under test: it would grade its own answers/);
    const allowed = checkSweepDraft({ ...ready, judgeModel: 'qwen2.5:7b', selfJudge: true });
    expect(allowed.request?.judge).toEqual({ model: 'qwen2.5:7b', allow_self_judge: true });
    expect(SweepRequestSchema.safeParse(allowed.request).success).toBe(true);
    expect(checkSweepDraft({ ...ready, runSuite: false, runServing: true, judgeModel: 'qwen2.5:14b' }).errors.judge).toMatch(/A judge grades suite answers/);
    expect(checkSweepDraft({ ...ready, judgeModel: 'bad model!' }).errors.judge).toMatch(/letters, digits/);
  });

  it('words each bad constraint in the form’s terms, and one the sweep cannot measure', () => {
    const { request, errors } = checkSweepDraft({ ...ready, minAccuracyPct: '150', maxUsdPerCorrect: '-1', maxTtftP99Ms: '0', maxUsdPerMillion: 'cheap' });
    expect(request).toBeNull();
    expect(errors).toMatchObject({
      min_accuracy: 'A percentage from 0 to 100',
      max_usd_per_correct: 'An amount in $ of 0 or more',
      max_ttft_p99_ms: 'A time in ms above 0',
      max_usd_per_million_output_tokens: 'An amount in $ of 0 or more',
    });
    expect(checkSweepDraft({ ...ready, maxTtftP99Ms: '500' }).errors.max_ttft_p99_ms).toMatch(/from the serving benchmark: run it/);
    expect(checkSweepDraft({ ...ready, runSuite: false, runServing: true, minAccuracyPct: '50' }).errors.min_accuracy).toMatch(/from a suite: run one/);
  });
});
