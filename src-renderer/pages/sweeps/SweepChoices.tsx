import type { CatalogEntry } from '../../../shared';
import { Field } from '../../components/Field';
import { ErrorState, Loading } from '../../components/States';
import { formatDph, formatGb } from '../../lib/format';
import type { useCatalog } from '../../queries/catalog';
import type { useEstimate } from '../../queries/estimate';
import type { useSuites } from '../../queries/suites';
import type { GpuChoice } from './sweep-model';
import { toggle, type SweepDraft, type SweepErrors } from './use-sweep-draft';

type Props = { draft: SweepDraft; set: (patch: Partial<SweepDraft>) => void; errors: SweepErrors };

/** The models to sweep, from the catalog with the memory each needs. */
export function ModelChoices({ draft, set, errors, catalog }: Props & { catalog: ReturnType<typeof useCatalog> }) {
  const models: readonly CatalogEntry[] = catalog.data?.models ?? [];
  return (
    <fieldset className="sweep-choices" aria-describedby="sweep-models-error">
      <legend>Models</legend>
      {catalog.isError ? <ErrorState error={catalog.error} onRetry={() => void catalog.refetch()} /> : null}
      {catalog.isPending ? <Loading height={120} label="Reading the catalog…" /> : null}
      <div className="choice-grid" data-testid="sweep-models">
        {models.map((m) => (
          <label key={m.name} className="choice">
            <input type="checkbox" checked={draft.models.includes(m.name)} onChange={() => set({ models: toggle(draft.models, m.name) })} data-testid={`sweep-model-${m.name}`} />
            <span>{m.name}</span>
            <span className="muted">{formatGb(m.vram_mb / 1024)}</span>
          </label>
        ))}
      </div>
      <span id="sweep-models-error" className="field-error" role={errors.models ? 'alert' : undefined}>
        {errors.models ?? ''}
      </span>
    </fieldset>
  );
}

/** The GPUs to sweep: one machine each, from the live offers under the price ceiling. */
export function GpuChoices({ draft, set, errors, offers, choices }: Props & { offers: ReturnType<typeof useEstimate>; choices: readonly GpuChoice[] }) {
  return (
    <fieldset className="sweep-choices" aria-describedby="sweep-gpus-error">
      <legend>GPUs (one machine each, the cheapest offer that fits)</legend>
      <div className="form-grid narrow">
        <Field label="Highest price per machine ($/h)" hint="Offers above it are not considered">
          <input inputMode="decimal" value={draft.maxDph} onChange={(e) => set({ maxDph: e.target.value })} data-testid="sweep-max-dph" />
        </Field>
      </div>
      {offers.isError ? <ErrorState error={offers.error} onRetry={() => void offers.refetch()} /> : null}
      {offers.isPending && !offers.data ? <Loading height={80} label="Reading the live offers…" /> : null}
      {offers.data && choices.length === 0 ? (
        <p className="muted" data-testid="sweep-no-gpus">
          {offers.data.warning ?? 'No live offer fits this price. Raise the highest price, or set a marketplace key in Settings to see offers.'}
        </p>
      ) : null}
      <div className="choice-grid gpu-grid" data-testid="sweep-gpus">
        {choices.map((g) => (
          <label key={g.gpu} className="choice">
            <input type="checkbox" checked={draft.gpus.includes(g.gpu)} onChange={() => set({ gpus: toggle(draft.gpus, g.gpu) })} data-testid={`sweep-gpu-${g.gpu}`} />
            <span>{g.gpu}</span>
            <span className="muted">
              from {formatDph(g.dph)} · {formatGb(g.ramMb / 1024)}
            </span>
          </label>
        ))}
      </div>
      <span id="sweep-gpus-error" className="field-error" role={errors.gpus ? 'alert' : undefined}>
        {errors.gpus ?? ''}
      </span>
    </fieldset>
  );
}

/** What each model runs: a suite, the serving benchmark, or both. */
export function WorkChoices({ draft, set, errors, suites }: Props & { suites: ReturnType<typeof useSuites> }) {
  return (
    <fieldset className="sweep-choices">
      <legend>What each model runs</legend>
      <div className="form-grid">
        <div className="check-field">
          <label className="choice">
            <input type="checkbox" checked={draft.runSuite} onChange={(e) => set({ runSuite: e.target.checked })} data-testid="sweep-run-suite" />
            <span>A suite (accuracy, $ per correct answer)</span>
          </label>
          <Field label="Suite" error={errors.suite_id ?? (suites.isError ? `The suites could not be read: ${suites.error.message}` : null)}>
            <select value={draft.suiteId} disabled={!draft.runSuite} onChange={(e) => set({ suiteId: e.target.value })} data-testid="sweep-suite">
              {(suites.data?.suites ?? [{ suite_id: draft.suiteId, name: draft.suiteId, scenario_count: 0 }]).map((s) => (
                <option key={s.suite_id} value={s.suite_id}>
                  {s.name}
                  {s.scenario_count > 0 ? ` (${s.scenario_count} scenario${s.scenario_count === 1 ? '' : 's'})` : ''}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <div className="check-field">
          <label className="choice">
            <input type="checkbox" checked={draft.runServing} onChange={(e) => set({ runServing: e.target.checked })} data-testid="sweep-run-serving" />
            <span>The serving benchmark ($ per million output tokens)</span>
          </label>
          <Field label="Concurrency levels" error={errors.serving ?? null}>
            <input value={draft.levels} disabled={!draft.runServing} onChange={(e) => set({ levels: e.target.value })} data-testid="sweep-levels" />
          </Field>
        </div>
      </div>
      <span className="field-error" role={errors.kind ? 'alert' : undefined}>
        {errors.kind ?? ''}
      </span>
    </fieldset>
  );
}
