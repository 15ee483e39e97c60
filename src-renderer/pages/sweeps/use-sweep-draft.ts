import { useState } from 'react';
import { sameModel, type SweepConstraints, type SweepRequestInput } from '../../../shared';
import { DEFAULT_TEMPLATE_HASH } from '../launch/launch-form';

/** The sweep form as typed: strings for numbers, so half-typed input survives. */
export type SweepDraft = {
  name: string;
  models: string[];
  gpus: string[];
  maxDph: string;
  runSuite: boolean;
  suiteId: string;
  runServing: boolean;
  levels: string;
  template: string;
  limit: string;
  atOnce: string;
  minutes: string;
  /** Judge and constraints (design §12b): empty = none. */
  judgeModel: string;
  selfJudge: boolean;
  minAccuracyPct: string;
  maxUsdPerCorrect: string;
  maxTtftP99Ms: string;
  maxUsdPerMillion: string;
};

export const DEFAULT_SWEEP_DRAFT: SweepDraft = {
  name: '',
  models: [],
  gpus: [],
  maxDph: '1',
  runSuite: true,
  suiteId: 'starter',
  runServing: false,
  levels: '1,2,4,8',
  template: DEFAULT_TEMPLATE_HASH,
  limit: '5',
  atOnce: '1',
  minutes: '10',
  judgeModel: '',
  selfJudge: false,
  minAccuracyPct: '',
  maxUsdPerCorrect: '',
  maxTtftP99Ms: '',
  maxUsdPerMillion: '',
};

export type SweepErrors = Record<string, string>;

export function toggle(list: readonly string[], value: string): string[] {
  return list.includes(value) ? list.filter((v) => v !== value) : [...list, value];
}

function parseLevels(text: string): number[] | null {
  const levels = text.split(',').map((s) => Number(s.trim()));
  return levels.length > 0 && levels.every((n) => Number.isInteger(n) && n >= 1) ? levels : null;
}

const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/-]*$/;

/** The judge: a model name, only with a suite, not one of the models under test unless allowed. */
function checkJudge(d: SweepDraft, errors: SweepErrors): SweepRequestInput['judge'] {
  const model = d.judgeModel.trim();
  if (!model) return undefined;
  if (!MODEL_NAME.test(model)) errors.judge = 'A model name uses letters, digits and . _ : / -';
  else if (!d.runSuite) errors.judge = 'A judge grades suite answers: run a suite too, or clear the judge';
  else if (!d.selfJudge && d.models.some((m) => sameModel(m, model))) errors.judge = 'This is one of the models under test: it would grade its own answers. Choose another judge, or allow it below.';
  const self = d.selfJudge && d.models.some((m) => sameModel(m, model));
  return { model, ...(self ? { allow_self_judge: true } : {}) };
}

/** An optional number typed in the form: undefined when empty, NaN when not a number. */
function optionalNumber(text: string): number | undefined {
  return text.trim() === '' ? undefined : Number(text.trim());
}

/** The constraints: each optional, each with its unit, each only where the sweep measures it. */
function checkConstraints(d: SweepDraft, errors: SweepErrors): SweepConstraints | undefined {
  const c: SweepConstraints = {};
  const pct = optionalNumber(d.minAccuracyPct);
  if (pct !== undefined) {
    if (!(pct >= 0 && pct <= 100)) errors.min_accuracy = 'A percentage from 0 to 100';
    else if (!d.runSuite) errors.min_accuracy = 'Accuracy comes from a suite: run one, or clear this';
    else c.min_accuracy = pct / 100;
  }
  const perCorrect = optionalNumber(d.maxUsdPerCorrect);
  if (perCorrect !== undefined) {
    if (!(perCorrect >= 0)) errors.max_usd_per_correct = 'An amount in $ of 0 or more';
    else if (!d.runSuite) errors.max_usd_per_correct = '$ per correct answer comes from a suite: run one, or clear this';
    else c.max_usd_per_correct = perCorrect;
  }
  const ttft = optionalNumber(d.maxTtftP99Ms);
  if (ttft !== undefined) {
    if (!(ttft > 0)) errors.max_ttft_p99_ms = 'A time in ms above 0';
    else if (!d.runServing) errors.max_ttft_p99_ms = 'TTFT comes from the serving benchmark: run it, or clear this';
    else c.max_ttft_p99_ms = ttft;
  }
  const perMillion = optionalNumber(d.maxUsdPerMillion);
  if (perMillion !== undefined) {
    if (!(perMillion >= 0)) errors.max_usd_per_million_output_tokens = 'An amount in $ of 0 or more';
    else if (!d.runServing) errors.max_usd_per_million_output_tokens = '$ per million tokens comes from the serving benchmark: run it, or clear this';
    else c.max_usd_per_million_output_tokens = perMillion;
  }
  return Object.keys(c).length > 0 ? c : undefined;
}

/** The draft checked field by field, in the form's words; the request when nothing is wrong. */
export function checkSweepDraft(d: SweepDraft): { request: SweepRequestInput | null; errors: SweepErrors } {
  const errors: SweepErrors = {};
  if (!d.name.trim()) errors.name = 'Name the sweep (what it is for)';
  if (d.models.length === 0) errors.models = 'Choose at least one model';
  if (d.gpus.length === 0) errors.gpus = 'Choose at least one GPU';
  if (!d.runSuite && !d.runServing) errors.kind = 'Run a suite, the serving benchmark, or both';
  if (d.runSuite && !d.suiteId.trim()) errors.suite_id = 'Give the suite to run';
  const lv = parseLevels(d.levels);
  if (d.runServing && !lv) errors.serving = 'Concurrency levels are whole numbers ≥ 1, separated by commas';
  if (!d.template.trim()) errors.template_hash = 'Choose the template the machines run';
  const cap = Number(d.limit);
  if (!(cap > 0)) errors.max_total_cost_usd = 'The spend limit is required: an amount in $ above 0';
  const n = Number(d.atOnce);
  if (!Number.isInteger(n) || n < 1 || n > 8) errors.machines_at_once = 'From 1 to 8';
  const judge = checkJudge(d, errors);
  const constraints = checkConstraints(d, errors);
  if (Object.keys(errors).length > 0) return { request: null, errors };
  return {
    errors,
    request: {
      name: d.name.trim(),
      models: d.models,
      gpus: d.gpus,
      ...(d.runSuite ? { suite_id: d.suiteId.trim() } : {}),
      ...(d.runServing && lv ? { serving: { concurrency: lv } } : {}),
      template_hash: d.template.trim(),
      max_dph: Number(d.maxDph),
      max_total_cost_usd: cap,
      machines_at_once: n,
      ...(judge ? { judge } : {}),
      ...(constraints ? { constraints } : {}),
    },
  };
}

/** The sweep form's state: the draft, its errors (shown after a submit), and a setter per field. */
export function useSweepDraft() {
  const [draft, setDraft] = useState<SweepDraft>(DEFAULT_SWEEP_DRAFT);
  const [errors, setErrors] = useState<SweepErrors>({});
  const set = (patch: Partial<SweepDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const check = (): SweepRequestInput | null => {
    const { request, errors: next } = checkSweepDraft(draft);
    setErrors(next);
    return request;
  };
  return { draft, set, errors, setErrors, check };
}
