import { useMemo, useState } from 'react';
import { useLocation } from 'wouter';
import type { CatalogEntry, SweepRequestInput } from '../../../shared';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Field } from '../../components/Field';
import { ErrorState, Loading } from '../../components/States';
import { TemplateField } from '../../components/TemplateField';
import { formatDph, formatGb, formatUsd } from '../../lib/format';
import { useCatalog } from '../../queries/catalog';
import { useEstimate } from '../../queries/estimate';
import { useSettings } from '../../queries/settings';
import { useSuites } from '../../queries/suites';
import { useCreateSweep } from '../../queries/sweeps';
import { sweepPath } from '../../router/routes';
import { DEFAULT_TEMPLATE_HASH } from '../launch/launch-form';
import { gpuChoices, preflight } from './sweep-model';

function toggle(list: readonly string[], value: string): string[] {
  return list.includes(value) ? list.filter((v) => v !== value) : [...list, value];
}

function parseLevels(text: string): number[] | null {
  const levels = text.split(',').map((s) => Number(s.trim()));
  return levels.length > 0 && levels.every((n) => Number.isInteger(n) && n >= 1) ? levels : null;
}

/**
 * A new sweep: models from the catalog, GPU names from the live offers (each with its cheapest
 * $/h now), a suite and/or a serving profile, the spend limit; the pre-flight estimate of
 * machine-hours and dollars, then a confirmation before anything is rented.
 */
export function SweepForm({ onDone }: { onDone?: () => void }) {
  const [, navigate] = useLocation();
  const catalog = useCatalog();
  const suites = useSuites();
  const create = useCreateSweep();
  const [name, setName] = useState('');
  const [models, setModels] = useState<string[]>([]);
  const [gpus, setGpus] = useState<string[]>([]);
  const [maxDph, setMaxDph] = useState('1');
  const [runSuite, setRunSuite] = useState(true);
  const [suiteId, setSuiteId] = useState('starter');
  const [runServing, setRunServing] = useState(false);
  const [levels, setLevels] = useState('1,2,4,8');
  const [template, setTemplate] = useState(DEFAULT_TEMPLATE_HASH);
  const settings = useSettings();
  const keyConfigured = settings.data?.environment.marketplace_key.configured ?? true;
  const [limit, setLimit] = useState('5');
  const [atOnce, setAtOnce] = useState('1');
  const [minutes, setMinutes] = useState('10');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [confirming, setConfirming] = useState(false);

  const entries = useMemo(() => new Map((catalog.data?.models ?? []).map((m) => [m.name, m])), [catalog.data]);
  const chosen = models.map((m) => entries.get(m)).filter((m): m is CatalogEntry => m !== undefined);
  // Live offers in the price range, for the smallest chosen model (or any 8 GB model): every GPU that can hold something.
  const smallest = chosen.reduce<CatalogEntry | undefined>((a, b) => (!a || b.vram_mb < a.vram_mb ? b : a), undefined);
  const dph = Number(maxDph);
  const offers = useEstimate(Number.isFinite(dph) && dph > 0 ? { marketplace: true, min_dph: 0, max_dph: dph, reliability: 0.99, estimated_duration_seconds: 3600, model: smallest?.name ?? 'llama3.1:8b' } : null);
  const choices = useMemo(() => gpuChoices(offers.data?.offers?.items ?? []), [offers.data]);
  const picked = choices.filter((g) => gpus.includes(g.gpu));
  const estimate = preflight(chosen, picked, Math.max(1, Number(minutes) || 10));

  const check = (): SweepRequestInput | null => {
    const next: Record<string, string> = {};
    if (!name.trim()) next.name = 'Name the sweep (what it is for)';
    if (models.length === 0) next.models = 'Choose at least one model';
    if (gpus.length === 0) next.gpus = 'Choose at least one GPU';
    if (!runSuite && !runServing) next.kind = 'Run a suite, the serving benchmark, or both';
    if (runSuite && !suiteId.trim()) next.suite_id = 'Give the suite to run';
    const lv = parseLevels(levels);
    if (runServing && !lv) next.serving = 'Concurrency levels are whole numbers ≥ 1, separated by commas';
    if (!template.trim()) next.template_hash = 'Choose the template the machines run';
    const cap = Number(limit);
    if (!(cap > 0)) next.max_total_cost_usd = 'The spend limit is required: an amount in $ above 0';
    const n = Number(atOnce);
    if (!Number.isInteger(n) || n < 1 || n > 8) next.machines_at_once = 'From 1 to 8';
    setErrors(next);
    if (Object.keys(next).length > 0) return null;
    return {
      name: name.trim(),
      models,
      gpus,
      ...(runSuite ? { suite_id: suiteId.trim() } : {}),
      ...(runServing && lv ? { serving: { concurrency: lv } } : {}),
      template_hash: template.trim(),
      max_dph: dph,
      max_total_cost_usd: cap,
      machines_at_once: n,
    };
  };

  const submit = () => {
    const request = check();
    if (!request) return;
    create.mutate(request, {
      onSuccess: ({ sweep_id }) => {
        setConfirming(false);
        onDone?.();
        navigate(sweepPath(sweep_id));
      },
      onError: (e) => {
        setConfirming(false);
        // The server's 422 names each field: show it on that field.
        const byField: Record<string, string> = {};
        for (const issue of e.problem.errors ?? []) byField[issue.path.split('.')[0] || 'form'] = issue.message;
        setErrors({ form: e.problem.detail, ...byField });
      },
    });
  };

  return (
    <form
      className="sweep-form"
      data-testid="sweep-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (check()) setConfirming(true);
      }}
      noValidate
    >
      <div className="form-grid">
        <Field label="Name" error={errors.name ?? null} hint="What the sweep answers, e.g. “which 8B model for incident triage”">
          <input value={name} onChange={(e) => setName(e.target.value)} data-testid="sweep-name" />
        </Field>
        <Field label="Spend limit ($)" error={errors.max_total_cost_usd ?? null} hint="The sweep stops and releases every machine when it has spent this">
          <input inputMode="decimal" value={limit} onChange={(e) => setLimit(e.target.value)} data-testid="sweep-limit" />
        </Field>
      </div>

      <fieldset className="sweep-choices" aria-describedby="sweep-models-error">
        <legend>Models</legend>
        {catalog.isError ? <ErrorState error={catalog.error} onRetry={() => void catalog.refetch()} /> : null}
        {catalog.isPending ? <Loading height={120} label="Reading the catalog…" /> : null}
        <div className="choice-grid" data-testid="sweep-models">
          {(catalog.data?.models ?? []).map((m) => (
            <label key={m.name} className="choice">
              <input type="checkbox" checked={models.includes(m.name)} onChange={() => setModels((l) => toggle(l, m.name))} data-testid={`sweep-model-${m.name}`} />
              <span>{m.name}</span>
              <span className="muted">{formatGb(m.vram_mb / 1024)}</span>
            </label>
          ))}
        </div>
        <span id="sweep-models-error" className="field-error" role={errors.models ? 'alert' : undefined}>
          {errors.models ?? ''}
        </span>
      </fieldset>

      <fieldset className="sweep-choices" aria-describedby="sweep-gpus-error">
        <legend>GPUs (one machine each, the cheapest offer that fits)</legend>
        <div className="form-grid narrow">
          <Field label="Highest price per machine ($/h)" hint="Offers above it are not considered">
            <input inputMode="decimal" value={maxDph} onChange={(e) => setMaxDph(e.target.value)} data-testid="sweep-max-dph" />
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
              <input type="checkbox" checked={gpus.includes(g.gpu)} onChange={() => setGpus((l) => toggle(l, g.gpu))} data-testid={`sweep-gpu-${g.gpu}`} />
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

      <fieldset className="sweep-choices">
        <legend>What each model runs</legend>
        <div className="form-grid">
          <div className="check-field">
            <label className="choice">
              <input type="checkbox" checked={runSuite} onChange={(e) => setRunSuite(e.target.checked)} data-testid="sweep-run-suite" />
              <span>A suite (accuracy, $ per correct answer)</span>
            </label>
            <Field label="Suite" error={errors.suite_id ?? (suites.isError ? `The suites could not be read: ${suites.error.message}` : null)}>
              <select value={suiteId} disabled={!runSuite} onChange={(e) => setSuiteId(e.target.value)} data-testid="sweep-suite">
                {(suites.data?.suites ?? [{ suite_id: suiteId, name: suiteId, scenario_count: 0 }]).map((s) => (
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
              <input type="checkbox" checked={runServing} onChange={(e) => setRunServing(e.target.checked)} data-testid="sweep-run-serving" />
              <span>The serving benchmark ($ per million output tokens)</span>
            </label>
            <Field label="Concurrency levels" error={errors.serving ?? null}>
              <input value={levels} disabled={!runServing} onChange={(e) => setLevels(e.target.value)} data-testid="sweep-levels" />
            </Field>
          </div>
        </div>
        <span className="field-error" role={errors.kind ? 'alert' : undefined}>
          {errors.kind ?? ''}
        </span>
      </fieldset>

      <div className="form-grid">
        <TemplateField hash={template} error={errors.template_hash ?? null} onChange={setTemplate} enabled={keyConfigured} testId="sweep-template" />
        <Field label="Machines at once" error={errors.machines_at_once ?? null} hint="GPUs running in parallel">
          <input inputMode="numeric" value={atOnce} onChange={(e) => setAtOnce(e.target.value)} data-testid="sweep-at-once" />
        </Field>
        <Field label="Minutes per model (for the estimate)" hint="How long one model's runs take on a machine">
          <input inputMode="numeric" value={minutes} onChange={(e) => setMinutes(e.target.value)} data-testid="sweep-minutes" />
        </Field>
      </div>

      <div className="sweep-preflight" data-testid="sweep-preflight" aria-live="polite">
        <strong>Pre-flight estimate:</strong>{' '}
        {picked.length === 0 || chosen.length === 0 ? (
          <span className="muted">choose models and GPUs to see the machine-hours and dollars</span>
        ) : (
          <>
            {estimate.machineHours.toFixed(2)} machine-hours ≈ {formatUsd(estimate.usd)} on {picked.length} machine{picked.length === 1 ? '' : 's'}
            {Number(limit) > 0 ? ` · stops at ${formatUsd(Number(limit))}` : ''}
            {estimate.perGpu.some((g) => g.skipped > 0) ? (
              <span className="muted">
                {' '}
                · skipped (too large): {estimate.perGpu.filter((g) => g.skipped > 0).map((g) => `${g.skipped} on ${g.gpu}`).join(', ')}
              </span>
            ) : null}
          </>
        )}
      </div>
      {errors.form ? (
        <p className="field-error" role="alert" data-testid="sweep-form-error">
          {errors.form}
        </p>
      ) : null}
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={create.isPending} data-testid="sweep-submit">
          Review and start…
        </button>
      </div>

      <ConfirmDialog
        open={confirming}
        title="Start this sweep?"
        confirmLabel="Rent and start"
        busy={create.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={submit}
        testId="sweep-confirm"
      >
        <p>
          {models.length} model{models.length === 1 ? '' : 's'} × {gpus.length} GPU{gpus.length === 1 ? '' : 's'}: one machine is rented per GPU and released when its models are done.
        </p>
        <p>
          Estimate: <strong>{estimate.machineHours.toFixed(2)} machine-hours, about {formatUsd(estimate.usd)}</strong>. The sweep stops and releases everything at{' '}
          <strong>{formatUsd(Number(limit))}</strong>.
        </p>
      </ConfirmDialog>
    </form>
  );
}
