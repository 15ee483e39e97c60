import type { JobKind } from '../../../shared';
import { Loading, Notice } from '../../components/States';
import { useSlow } from '../../components/useSlow';
import { formatUsd } from '../../lib/format';
import { KIND_LABELS, kindInSentence } from '../../lib/job';
import { useCatalog } from '../../queries/catalog';
import { BackendPanel } from './BackendPanel';
import { NoOfferProblem, SubmitProblem } from './LaunchProblems';
import { ServingPreflight } from './ServingPreflight';
import { SpendConfirm } from './SpendConfirm';
import { useLaunchDraft } from './use-launch-draft';
import { useLaunchSubmit } from './use-launch-submit';
import { WhatToRunPanel } from './WhatToRunPanel';

const MISSING_TEMPLATE = 'No template with this hash on the marketplace: choose one from the list. Nothing was rented.';

/** The submit button's words: what pressing it does now. */
function submitLabel(kind: JobKind, state: { preflight: boolean; creating: boolean; cannotRent: boolean; asksFirst: boolean }): string {
  if (state.preflight) return 'Checking the template and pricing…';
  if (state.creating) return 'Launching…';
  if (state.cannotRent) return 'Renting needs a marketplace key';
  if (state.asksFirst) return 'Review cost and launch';
  return `Launch ${kindInSentence(kind)}`;
}

/**
 * The form of the benchmark, agent, llm-instance and serving kinds: the draft (use-launch-draft:
 * saved defaults, hand-overs, checks as typed), its panels, and the launch with its pre-flight
 * for a rented machine (use-launch-submit).
 */
export function JobRequestForm({ kind }: { kind: JobKind }) {
  const catalog = useCatalog();
  // The draft hook reads the launch's errors, and the launch forgets its pre-flight when the draft changes.
  const launch = useLaunchSubmit(kind);
  const form = useLaunchDraft(kind, launch.create.error, launch.edited);
  const { binding, settings } = form;
  const { draft, fields } = binding;
  const saved = settings.data?.settings;
  const keyConfigured = settings.data?.environment.marketplace_key.configured ?? true;
  const threshold = saved?.spend_confirm_threshold_usd ?? 0;
  const marketplace = fields.has('target') && draft.target === 'marketplace';
  const cannotRent = marketplace && !keyConfigured;
  // The pre-flight asks the marketplace (the template, the offers): one that hangs is said to hang.
  const slowPreflight = useSlow(launch.preflight);

  const onLaunch = async () => {
    form.setSubmitted(true);
    if (!form.input) {
      const first = [...fields].find((f) => form.errors[f]);
      if (first) document.querySelector<HTMLElement>(`[name="${first}"]`)?.focus();
      return;
    }
    if (cannotRent) return;
    await launch.launch(form.input, draft, marketplace, () => {
      form.setTemplateError(MISSING_TEMPLATE);
      document.querySelector<HTMLElement>('[name="template_hash"]')?.focus();
    });
  };

  if (!form.settingsKnown) return <Loading label="Reading your saved defaults…" height={420} />;

  return (
    <>
      {form.carried ? (
        <Notice tone="info" testId="launch-carried">
          Filled in from {form.carried}. Check the fields, then launch.
        </Notice>
      ) : null}
      {settings.isError ? (
        <Notice tone="warn" testId="launch-no-defaults">
          Your saved defaults could not be read ({settings.error.message}); the form starts from benchdesk’s own.
        </Notice>
      ) : null}
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void onLaunch();
        }}
        aria-label={`${KIND_LABELS[kind]} form`}
        data-testid="launch-form"
      >
        <WhatToRunPanel form={binding} catalog={catalog.data?.models} marketplace={marketplace} savedKubeconfig={saved?.default_kubeconfig ?? null} />
        <BackendPanel form={binding} saved={saved} keyConfigured={keyConfigured} />
        {kind === 'serving-benchmark' ? <ServingPreflight draft={draft} marketplace={marketplace} /> : null}
        {launch.blocked ? <NoOfferProblem blocked={launch.blocked} model={draft.model} reliabilityPct={draft.reliability_pct} onRaise={(max_dph) => binding.set({ max_dph })} /> : null}
        {launch.create.isError && !launch.pending ? <SubmitProblem error={launch.create.error} shown={new Set(Object.keys(form.serverErrors))} /> : null}
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={launch.busy || cannotRent} data-testid="launch-submit">
            {submitLabel(kind, { preflight: launch.preflight, creating: launch.create.isPending, cannotRent, asksFirst: marketplace && threshold <= 0 })}
          </button>
          <button
            type="button"
            className="button"
            onClick={() => {
              form.reset();
              launch.clearBlocked();
            }}
            data-testid="launch-reset"
          >
            Reset to my defaults
          </button>
          {slowPreflight ? (
            <span className="field-error" role="status" data-testid="launch-preflight-slow">
              The marketplace has not answered for 5 s: it may be slow or down. Nothing is rented until it answers.
            </span>
          ) : form.submitted && !form.input ? (
            <span className="field-error" role="status">
              Fix the fields marked in red.
            </span>
          ) : marketplace && !cannotRent && threshold > 0 ? (
            <span className="muted note-small" data-testid="launch-threshold-note">
              Asks first when the expected cost reaches {formatUsd(threshold)} (Settings), and always for a machine kept after the job.
            </span>
          ) : null}
        </div>
      </form>

      {/* Without a key nothing can be rented: no "Rent and launch" anywhere on the page. */}
      {keyConfigured ? (
        <SpendConfirm
          preflight={launch.pending}
          kind={kind}
          threshold={threshold}
          busy={launch.create.isPending}
          error={launch.create.isError && launch.pending ? launch.create.error : null}
          onCancel={launch.cancelConfirm}
          onConfirm={launch.confirm}
        />
      ) : null}
    </>
  );
}
