import { useState } from 'react';
import type { SweepRequestInput } from '../../../shared';
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
};

export type SweepErrors = Record<string, string>;

export function toggle(list: readonly string[], value: string): string[] {
  return list.includes(value) ? list.filter((v) => v !== value) : [...list, value];
}

function parseLevels(text: string): number[] | null {
  const levels = text.split(',').map((s) => Number(s.trim()));
  return levels.length > 0 && levels.every((n) => Number.isInteger(n) && n >= 1) ? levels : null;
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
