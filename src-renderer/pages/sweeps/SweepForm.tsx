import { useMemo, useState } from 'react';
import { useLocation } from 'wouter';
import type { CatalogEntry } from '../../../shared';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Field } from '../../components/Field';
import { TemplateField } from '../../components/TemplateField';
import { formatUsd } from '../../lib/format';
import { useCatalog } from '../../queries/catalog';
import { useEstimate } from '../../queries/estimate';
import { useSettings } from '../../queries/settings';
import { useSuites } from '../../queries/suites';
import { useCreateSweep } from '../../queries/sweeps';
import { sweepPath } from '../../router/routes';
import { DEFAULT_TEMPLATE_HASH } from '../launch/launch-form';
import { GpuChoices, ModelChoices, WorkChoices } from './SweepChoices';
import { ConstraintChoices, JudgeChoice } from './SweepGoals';
import { gpuChoices, preflight, type Preflight } from './sweep-model';
import { checkSweepDraft, useSweepDraft, type SweepDraft } from './use-sweep-draft';
import { constraintWords } from './SweepFacts';

/** The pre-flight line under the form: machine-hours and dollars for what is chosen. */
function PreflightLine({ estimate, machines, models, limit }: { estimate: Preflight; machines: number; models: number; limit: number }) {
  return (
    <div className="sweep-preflight" data-testid="sweep-preflight" aria-live="polite">
      <strong>Pre-flight estimate:</strong>{' '}
      {machines === 0 || models === 0 ? (
        <span className="muted">choose models and GPUs to see the machine-hours and dollars</span>
      ) : (
        <>
          {estimate.machineHours.toFixed(2)} machine-hours ≈ {formatUsd(estimate.usd)} on {machines} machine{machines === 1 ? '' : 's'}
          {limit > 0 ? ` · stops at ${formatUsd(limit)}` : ''}
          {estimate.perGpu.some((g) => g.skipped > 0) ? (
            <span className="muted">
              {' '}
              · skipped (too large): {estimate.perGpu.filter((g) => g.skipped > 0).map((g) => `${g.skipped} on ${g.gpu}`).join(', ')}
            </span>
          ) : null}
        </>
      )}
    </div>
  );
}

/** The judge and the constraints in the confirmation, as they will be sent. */
function GoalsLine({ draft }: { draft: SweepDraft }) {
  const { request } = checkSweepDraft(draft);
  if (!request?.judge && !request?.constraints) return null;
  const constraints = constraintWords(request.constraints);
  return (
    <p data-testid="sweep-confirm-goals">
      {request.judge ? <>The judge {request.judge.model} decides each suite answer. </> : null}
      {constraints.length > 0 ? <>The headline names the cheapest cell with {constraints.join(', ')}.</> : null}
    </p>
  );
}

/** The live offers under the draft's ceiling (for its smallest model) as GPU choices, and the pre-flight. */
function useSweepPlan(draft: SweepDraft) {
  const catalog = useCatalog();
  const entries = useMemo(() => new Map((catalog.data?.models ?? []).map((m) => [m.name, m])), [catalog.data]);
  const chosen = draft.models.map((m) => entries.get(m)).filter((m): m is CatalogEntry => m !== undefined);
  // Live offers in the price range, for the smallest chosen model (or any 8 GB model): every GPU that can hold something.
  const smallest = chosen.reduce<CatalogEntry | undefined>((a, b) => (!a || b.vram_mb < a.vram_mb ? b : a), undefined);
  const dph = Number(draft.maxDph);
  const offers = useEstimate(Number.isFinite(dph) && dph > 0 ? { marketplace: true, min_dph: 0, max_dph: dph, reliability: 0.99, estimated_duration_seconds: 3600, model: smallest?.name ?? 'llama3.1:8b' } : null);
  const choices = useMemo(() => gpuChoices(offers.data?.offers?.items ?? []), [offers.data]);
  const picked = choices.filter((g) => draft.gpus.includes(g.gpu));
  const estimate = preflight(chosen, picked, Math.max(1, Number(draft.minutes) || 10));
  return { catalog, offers, choices, picked, chosen, estimate };
}

/**
 * A new sweep: models from the catalog, GPU names from the live offers (each with its cheapest
 * $/h now), a suite and/or a serving profile, the spend limit; the pre-flight estimate of
 * machine-hours and dollars, then a confirmation before anything is rented.
 */
export function SweepForm({ onDone }: { onDone?: () => void }) {
  const [, navigate] = useLocation();
  const suites = useSuites();
  const create = useCreateSweep();
  const settings = useSettings();
  const keyConfigured = settings.data?.environment.marketplace_key.configured ?? true;
  const { draft, set, errors, setErrors, check } = useSweepDraft();
  const plan = useSweepPlan(draft);
  const [confirming, setConfirming] = useState(false);
  const props = { draft, set, errors };

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
          <input value={draft.name} onChange={(e) => set({ name: e.target.value })} data-testid="sweep-name" />
        </Field>
        <Field label="Spend limit ($)" error={errors.max_total_cost_usd ?? null} hint="The sweep stops and releases every machine when it has spent this">
          <input inputMode="decimal" value={draft.limit} onChange={(e) => set({ limit: e.target.value })} data-testid="sweep-limit" />
        </Field>
      </div>
      <ModelChoices {...props} catalog={plan.catalog} />
      <GpuChoices {...props} offers={plan.offers} choices={plan.choices} />
      <WorkChoices {...props} suites={suites} />
      <JudgeChoice {...props} />
      <ConstraintChoices {...props} />
      <div className="form-grid">
        <TemplateField hash={draft.template} error={errors.template_hash ?? null} onChange={(template) => set({ template })} enabled={keyConfigured} testId="sweep-template" isDefault={draft.template === DEFAULT_TEMPLATE_HASH} />
        <Field label="Machines at once" error={errors.machines_at_once ?? null} hint="GPUs running in parallel">
          <input inputMode="numeric" value={draft.atOnce} onChange={(e) => set({ atOnce: e.target.value })} data-testid="sweep-at-once" />
        </Field>
        <Field label="Minutes per model (for the estimate)" hint="How long one model's runs take on a machine">
          <input inputMode="numeric" value={draft.minutes} onChange={(e) => set({ minutes: e.target.value })} data-testid="sweep-minutes" />
        </Field>
      </div>
      <PreflightLine estimate={plan.estimate} machines={plan.picked.length} models={plan.chosen.length} limit={Number(draft.limit)} />
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
      <ConfirmDialog open={confirming} title="Start this sweep?" confirmLabel="Rent and start" busy={create.isPending} onCancel={() => setConfirming(false)} onConfirm={submit} testId="sweep-confirm">
        <p>
          {draft.models.length} model{draft.models.length === 1 ? '' : 's'} × {draft.gpus.length} GPU{draft.gpus.length === 1 ? '' : 's'}: one machine is rented per GPU and released when its models are done.
        </p>
        <p>
          Estimate: <strong>{plan.estimate.machineHours.toFixed(2)} machine-hours, about {formatUsd(plan.estimate.usd)}</strong>. The sweep stops and releases everything at{' '}
          <strong>{formatUsd(Number(draft.limit))}</strong>.
        </p>
        <GoalsLine draft={draft} />
      </ConfirmDialog>
    </form>
  );
}
