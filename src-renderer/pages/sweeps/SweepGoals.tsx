import { sameModel } from '../../../shared';
import { Field } from '../../components/Field';
import type { SweepDraft, SweepErrors } from './use-sweep-draft';

type Props = { draft: SweepDraft; set: (patch: Partial<SweepDraft>) => void; errors: SweepErrors };

/** The judge (design §12b): a model that decides each suite answer, seeing the ground truth and the wrong claims. */
export function JudgeChoice({ draft, set, errors }: Props) {
  const judge = draft.judgeModel.trim();
  const isTested = judge !== '' && draft.models.some((m) => sameModel(m, judge));
  return (
    <fieldset className="sweep-choices" data-testid="sweep-judge-set">
      <legend>Judge (optional)</legend>
      <div className="form-grid">
        <Field
          label="Judge model"
          hint={draft.runSuite ? 'Decides pass or fail for each suite answer, seeing the ground truth and the wrong claims; the rules are reported beside it. Empty: the rules decide.' : 'A judge grades suite answers: choose a suite above to use one.'}
          error={errors.judge ?? null}
        >
          <input value={draft.judgeModel} onChange={(e) => set({ judgeModel: e.target.value })} placeholder="none" disabled={!draft.runSuite && judge === ''} data-testid="sweep-judge" />
        </Field>
        {isTested ? (
          <label className="choice sweep-self-judge">
            <input type="checkbox" checked={draft.selfJudge} onChange={(e) => set({ selfJudge: e.target.checked })} data-testid="sweep-self-judge" />
            <span>Let this model judge its own answers</span>
          </label>
        ) : null}
      </div>
    </fieldset>
  );
}

/** What a cell must reach (design §12b): the report's headline names the cheapest cell that meets them all. */
export function ConstraintChoices({ draft, set, errors }: Props) {
  return (
    <fieldset className="sweep-choices" data-testid="sweep-constraints">
      <legend>Constraints (optional)</legend>
      <p className="muted note-small sweep-constraints-hint">The report’s headline answers with the cheapest cell that meets every constraint given, or says which one no cell met.</p>
      <div className="form-grid">
        <Field label="Lowest accuracy (%)" hint={draft.runSuite ? 'From the suite; e.g. 80' : 'Needs a suite: choose one above'} error={errors.min_accuracy ?? null}>
          <input inputMode="decimal" value={draft.minAccuracyPct} onChange={(e) => set({ minAccuracyPct: e.target.value })} placeholder="any" disabled={!draft.runSuite && draft.minAccuracyPct === ''} data-testid="sweep-min-accuracy" />
        </Field>
        <Field label="Highest $ per correct answer ($)" hint={draft.runSuite ? 'The suite’s machine time and download only' : 'Needs a suite: choose one above'} error={errors.max_usd_per_correct ?? null}>
          <input inputMode="decimal" value={draft.maxUsdPerCorrect} onChange={(e) => set({ maxUsdPerCorrect: e.target.value })} placeholder="any" disabled={!draft.runSuite && draft.maxUsdPerCorrect === ''} data-testid="sweep-max-per-correct" />
        </Field>
        <Field label="Highest TTFT p99 (ms)" hint={draft.runServing ? 'The serving benchmark’s best level' : 'Needs the serving benchmark: choose it above'} error={errors.max_ttft_p99_ms ?? null}>
          <input inputMode="numeric" value={draft.maxTtftP99Ms} onChange={(e) => set({ maxTtftP99Ms: e.target.value })} placeholder="any" disabled={!draft.runServing && draft.maxTtftP99Ms === ''} data-testid="sweep-max-ttft" />
        </Field>
        <Field label="Highest $ per 1M tokens ($)" hint={draft.runServing ? 'Output tokens, from the serving benchmark' : 'Needs the serving benchmark: choose it above'} error={errors.max_usd_per_million_output_tokens ?? null}>
          <input inputMode="decimal" value={draft.maxUsdPerMillion} onChange={(e) => set({ maxUsdPerMillion: e.target.value })} placeholder="any" disabled={!draft.runServing && draft.maxUsdPerMillion === ''} data-testid="sweep-max-per-million" />
        </Field>
      </div>
      <span className="field-error" role={errors.constraints ? 'alert' : undefined} data-testid="sweep-constraints-error">
        {errors.constraints ?? ''}
      </span>
    </fieldset>
  );
}
