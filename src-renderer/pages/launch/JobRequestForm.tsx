import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { issueInWords, type CostEstimationResponse, type CreateJobInput, type JobKind, type OfferSummary } from '../../../shared';
import { toBenchdeskApiError, type BenchdeskApiError } from '../../../shared/client';
import { useApi } from '../../bridge';
import { Field } from '../../components/Field';
import { ModelField } from '../../components/ModelField';
import { Panel } from '../../components/Page';
import { ErrorState, Loading, Notice } from '../../components/States';
import { ToggleGroup } from '../../components/ToggleGroup';
import { formatDph, formatGb, formatGpus, formatMb, formatUsd } from '../../lib/format';
import { KIND_LABELS, kindInSentence } from '../../lib/job';
import { useCatalog } from '../../queries/catalog';
import { choiceKeys } from '../../queries/choices';
import { useCreateJob } from '../../queries/jobs';
import { settingsKeys, useSettings } from '../../queries/settings';
import { jobPath } from '../../router/routes';
import { useUiStore } from '../../state/ui-store';
import { AgentField } from './AgentField';
import { ClusterSource } from './ClusterSource';
import { KubeconfigField } from './KubeconfigField';
import { canRent, draftDefaults, estimateFor, fieldErrorsOf, fieldsOf, LAUNCH_WORDS, validateDraft, type DraftField, type LaunchDraft } from './launch-form';
import { ServingPreflight } from './ServingPreflight';
import { ServingWorkloadFields } from './ServingWorkloadFields';
import { BackendApiField } from '../../components/BackendApiField';
import { SpendConfirm } from './SpendConfirm';
import { ceilingFor, needsConfirmation, type Preflight } from './spend';
import { TemplateField } from '../../components/TemplateField';

type Pending = Preflight & { input: CreateJobInput; key: string };
/** The pre-flight found no offer under the ceiling: nothing is rented, and the nearest offer is offered instead. */
type Blocked = { maxDph: number; nearest: OfferSummary | null };

/** A validation answer of the server in the form's words: the issues its fields do not show already. */
function SubmitProblem({ error, shown }: { error: BenchdeskApiError; shown: ReadonlySet<string> }) {
  const issues = error.problem.errors ?? [];
  if (error.code !== 'validation_failed' || issues.length === 0) return <ErrorState error={error} />;
  const rest = issues.filter((i) => !shown.has(i.path.split('.').filter((p) => p !== 'request')[0] ?? ''));
  return (
    <div className="problem" role="alert" data-testid="launch-refused">
      <p className="problem-title">The server refused the request</p>
      <p>{rest.length === 0 ? 'Fix the fields marked in red, then launch again.' : 'Fix these, then launch again:'}</p>
      {rest.length > 0 ? (
        <ul>
          {rest.map((i) => (
            <li key={`${i.path}:${i.message}`}>{issueInWords(i, LAUNCH_WORDS)}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/**
 * The form of the benchmark, agent and llm-instance kinds: it starts from the saved defaults
 * (Settings), takes what another page hands over (an estimate's offer, a job to re-run), checks
 * fields as they are typed with the API's own rules, and before renting prices the run, checks
 * the template exists and asks (unless the expected cost is under the "ask from" setting).
 */
export function JobRequestForm({ kind }: { kind: JobKind }) {
  const api = useApi();
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const settings = useSettings();
  const catalog = useCatalog();
  const stored = useUiStore((s) => s.launchDrafts[kind]);
  const prefill = useUiStore((s) => s.launchPrefill);
  const setDraftStore = useUiStore((s) => s.setLaunchDraft);
  const clearPrefill = useUiStore((s) => s.clearLaunchPrefill);
  const settingsKnown = settings.isSuccess || settings.isError;
  const defaults = useMemo(() => draftDefaults(settings.data?.settings ?? null), [settings.data]);
  const incoming = prefill && prefill.kind === kind && settingsKnown ? prefill : null;
  const draft: LaunchDraft = incoming ? { ...defaults, ...incoming.patch } : (stored ?? defaults);
  const [carried, setCarried] = useState<string | null>(null);
  const [touched, setTouched] = useState<ReadonlySet<DraftField>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const [pending, setPending] = useState<Pending | null>(null);
  const [blocked, setBlocked] = useState<Blocked | null>(null);
  const [templateError, setTemplateError] = useState<string | null>(null);
  const [preflight, setPreflight] = useState(false);
  const create = useCreateJob();
  // One key per submission attempt: a double click or a retry of the same attempt reuses it.
  const attemptKey = useRef<string | null>(null);

  // A hand-over becomes this kind's draft once (over the saved defaults), and says where it came from.
  useEffect(() => {
    if (!incoming) return;
    setDraftStore(kind, { ...defaults, ...incoming.patch });
    setCarried(incoming.from);
    setTouched(new Set(Object.keys(incoming.patch) as DraftField[]));
    setSubmitted(false);
    clearPrefill();
  }, [incoming, defaults, kind, setDraftStore, clearPrefill]);

  const fields = fieldsOf(kind, draft);
  const { input, errors } = useMemo(() => validateDraft(kind, draft), [kind, draft]);
  // A 422 from the server (a rule only it can check, e.g. the agent exists) lands on its field too.
  const serverErrors = useMemo(() => (create.error ? fieldErrorsOf(create.error.problem.errors ?? []) : {}), [create.error]);
  const errorOf = (f: DraftField) => {
    const own = submitted || touched.has(f) ? (errors[f] ?? serverErrors[f] ?? null) : null;
    return own ?? (f === 'template_hash' ? templateError : null);
  };
  const set = (patch: Partial<LaunchDraft>) => {
    attemptKey.current = null;
    setBlocked(null);
    if ('template_hash' in patch) setTemplateError(null);
    setDraftStore(kind, { ...draft, ...patch });
  };
  const touch = (f: DraftField) => setTouched((t) => (t.has(f) ? t : new Set(t).add(f)));
  const bind = (
    f: 'question' | 'backend_url' | 'backend_warmup_timeout' | 'min_dph' | 'max_dph' | 'reliability_pct' | 'hours' | 'max_cost_usd',
  ) => ({
    value: draft[f],
    onChange: (e: { target: { value: string } }) => set({ [f]: e.target.value }),
    onBlur: () => touch(f),
    name: f,
    'data-testid': `launch-${f}`,
  });

  const keyConfigured = settings.data?.environment.marketplace_key.configured ?? true;
  const threshold = settings.data?.settings.spend_confirm_threshold_usd ?? 0;
  const marketplace = fields.has('target') && draft.target === 'marketplace';
  const cannotRent = marketplace && !keyConfigured;

  // A second click lands before React re-renders the disabled button: drop it here. (Were it
  // sent, the shared idempotency key would still make the server answer with the same job.)
  const inFlight = useRef(false);
  const submit = async (job: CreateJobInput, key: string) => {
    if (inFlight.current) return;
    inFlight.current = true;
    try {
      const accepted = await create.mutateAsync({ ...job, idempotency_key: key });
      attemptKey.current = null;
      setPending(null);
      navigate(jobPath(accepted.job_id));
    } catch {
      // Shown below the form (and in the dialog); the same key is reused if the user retries.
    } finally {
      inFlight.current = false;
    }
  };

  /** Whether the template exists: false only when the marketplace says there is none with this hash. */
  const templateExists = async (hash: string): Promise<boolean> => {
    try {
      const found = await qc.fetchQuery({ queryKey: choiceKeys.templates(hash), queryFn: () => api.searchTemplates({ q: hash }), staleTime: 60_000 });
      return found.note !== null || found.templates.some((t) => t.hash_id === hash);
    } catch {
      // The check itself failed: the job checks again before it rents.
      return true;
    }
  };

  const onLaunch = async () => {
    setSubmitted(true);
    if (!input) {
      const first = [...fields].find((f) => errors[f]);
      if (first) document.querySelector<HTMLElement>(`[name="${first}"]`)?.focus();
      return;
    }
    if (create.isPending || preflight || cannotRent) return;
    attemptKey.current ??= crypto.randomUUID();
    const key = attemptKey.current;
    if (!marketplace) {
      await submit(input, key);
      return;
    }
    setPreflight(true);
    try {
      const hash = draft.template_hash.trim();
      if (!(await templateExists(hash))) {
        setTemplateError('No template with this hash on the marketplace: choose one from the list. Nothing was rented.');
        document.querySelector<HTMLElement>('[name="template_hash"]')?.focus();
        return;
      }
      const est = estimateFor(draft, kind);
      let estimate: CostEstimationResponse | null = null;
      let estimateError: BenchdeskApiError | null = null;
      try {
        estimate = await api.createEstimate(est);
      } catch (err) {
        estimateError = toBenchdeskApiError(err);
      }
      if (estimate?.basis === 'no_offers') {
        setBlocked({ maxDph: est.max_dph, nearest: estimate.nearest_offer ?? null });
        return;
      }
      const kept = kind === 'llm-instance' || !draft.stop_instance;
      const p: Preflight = { estimate, estimateError, hours: est.estimated_duration_seconds / 3600, maxDph: est.max_dph, maxCost: draft.max_cost_usd.trim() ? Number(draft.max_cost_usd) : null, kept };
      // The threshold as saved now (it may have changed in another window since this page read it).
      const current = await qc
        .fetchQuery({ queryKey: settingsKeys.settings, queryFn: () => api.getSettings({}), staleTime: 0 })
        .then((s) => s.settings.spend_confirm_threshold_usd)
        .catch(() => threshold);
      if (needsConfirmation(p, current)) setPending({ ...p, input, key });
      else await submit(input, key);
    } finally {
      setPreflight(false);
    }
  };

  if (!settingsKnown) return <Loading label="Reading your saved defaults…" height={420} />;

  const busy = create.isPending || preflight;
  const selectedModel = catalog.data?.models.find((m) => m.name === draft.model.trim());
  const saved = settings.data?.settings;

  return (
    <>
      {carried ? (
        <Notice tone="info" testId="launch-carried">
          Filled in from {carried}. Check the fields, then launch.
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
        <Panel title="What to run">
          <div className="form-grid">
            {fields.has('question') ? (
              <div className="wide">
                <Field label="Question" hint="What the agent is asked (e.g. about the cluster the kubeconfig points at)." error={errorOf('question')}>
                  <textarea rows={3} {...bind('question')} placeholder="Why is the checkout deployment not ready?" />
                </Field>
              </div>
            ) : null}
            <Field
              label="Model"
              hint={selectedModel ? `Catalog: needs ${formatMb(selectedModel.vram_mb)} VRAM, ${formatGb(selectedModel.required_disk_gb)} disk.` : marketplace ? 'From the marketplace catalog: it sizes the GPU.' : 'A model on the backend, e.g. qwen3:8b (Other to type one).'}
              error={errorOf('model')}
            >
              <ModelField value={draft.model} onChange={(v) => set({ model: v })} onBlur={() => touch('model')} catalog={catalog.data?.models} testId="launch-model" />
            </Field>
            {kind === 'serving-benchmark' ? <ServingWorkloadFields draft={draft} set={set} errorOf={errorOf} touch={touch} /> : null}
            {fields.has('agent') ? <AgentField value={draft.agent} error={errorOf('agent')} onChange={(v) => set({ agent: v })} onBlur={() => touch('agent')} /> : null}
            {fields.has('cluster') ? (
              <ClusterSource
                cluster={draft.cluster}
                snapshot={draft.snapshot}
                snapshotError={errorOf('snapshot')}
                onChange={(patch) => set(patch)}
                onBlur={() => touch('snapshot')}
                kubeconfigField={
                  <KubeconfigField value={draft.kubeconfig} error={errorOf('kubeconfig')} saved={saved?.default_kubeconfig ?? null} onChange={(v) => set({ kubeconfig: v })} onBlur={() => touch('kubeconfig')} />
                }
              />
            ) : null}
          </div>
        </Panel>

        <Panel title="Where the model runs">
          {canRent(kind) ? (
            <ToggleGroup
              label="Backend"
              size="large"
              className="launch-target"
              value={draft.target}
              onChange={(target) => set({ target })}
              options={[
                { value: 'existing', label: 'An llmserver I run', testId: 'target-existing' },
                {
                  value: 'marketplace',
                  label: 'Rent a GPU (marketplace)',
                  testId: 'target-marketplace',
                  disabled: !keyConfigured && draft.target !== 'marketplace',
                  ...(keyConfigured ? {} : { title: 'Needs a marketplace key' }),
                },
              ]}
            />
          ) : null}
          {canRent(kind) && !keyConfigured ? (
            <Notice tone={marketplace ? 'error' : 'info'} testId="launch-no-key">
              Renting a GPU needs a marketplace key: set <code>VAST_API_KEY</code> for the server and restart it, or add the key in Settings in the desktop app.
              {marketplace ? ' Until then, run on an llmserver you already have.' : ''}
            </Notice>
          ) : null}
          <div className="form-grid">
            {fields.has('backend_url') ? (
              <>
                <Field
                  label="Backend URL"
                  hint={saved?.default_backend_url && draft.backend_url === saved.default_backend_url ? 'Your default backend (Settings).' : 'Ollama (http://host:11434) or an OpenAI-compatible server (vLLM: http://host:8000).'}
                  error={errorOf('backend_url')}
                >
                  <input type="url" autoComplete="off" spellCheck={false} {...bind('backend_url')} />
                </Field>
                <BackendApiField api={draft.backend_api} apiKey={draft.backend_api_key} onApi={(backend_api) => set({ backend_api })} onKey={(backend_api_key) => set({ backend_api_key })} onBlur={() => touch('backend_api')} error={errorOf('backend_api')} keyError={errorOf('backend_api_key')} />
                <Field label="Warm-up timeout (s)" hint="How long loading the model may take." error={errorOf('backend_warmup_timeout')}>
                  <input type="number" min={1} max={3600} {...bind('backend_warmup_timeout')} />
                </Field>
                <div className="field">
                  <span className="field-hint">&nbsp;</span>
                  <label className="check">
                    <input type="checkbox" checked={draft.backend_warmup} onChange={(e) => set({ backend_warmup: e.target.checked })} /> Warm the model up first
                  </label>
                </div>
              </>
            ) : null}
            {fields.has('template_hash') ? (
              <>
                <TemplateField hash={draft.template_hash} error={errorOf('template_hash')} onChange={(h) => set({ template_hash: h })} enabled={keyConfigured} />
                <Field label="Min $/h" error={errorOf('min_dph')}>
                  <input type="number" min={0} step={0.05} {...bind('min_dph')} />
                </Field>
                <Field label="Max $/h" hint="The spend ceiling per hour: no offer above it is rented." error={errorOf('max_dph')}>
                  <input type="number" min={0} step={0.05} {...bind('max_dph')} />
                </Field>
                <Field label="Reliability (%)" error={errorOf('reliability_pct')}>
                  <input type="number" min={0} max={100} step={0.5} {...bind('reliability_pct')} />
                </Field>
                {fields.has('hours') ? (
                  <Field label="Expected duration (hours)" hint="Priced before launch; the spend limit’s check before renting uses it too." error={errorOf('hours')}>
                    <input type="number" min={0.1} step={0.25} {...bind('hours')} />
                  </Field>
                ) : null}
                <Field
                  label="Spend limit ($)"
                  hint={saved?.default_max_cost_usd != null && draft.max_cost_usd === String(saved.default_max_cost_usd) ? 'Your default limit (Settings). Empty: none.' : 'The job stops and its machine is released when its cost reaches this. Empty: none.'}
                  error={errorOf('max_cost_usd')}
                >
                  <input type="number" min={0} step={0.5} placeholder="no limit" {...bind('max_cost_usd')} />
                </Field>
                {fields.has('stop_instance') ? (
                  <div className="field">
                    <span className="field-hint">&nbsp;</span>
                    <label className="check">
                      <input type="checkbox" checked={draft.stop_instance} onChange={(e) => set({ stop_instance: e.target.checked })} data-testid="launch-stop_instance" /> Release the machine when done
                    </label>
                  </div>
                ) : null}
              </>
            ) : null}
          </div>
          {marketplace && kind === 'llm-instance' ? (
            <Notice tone="warn">The rented machine stays up after the job (that is what an LLM instance is for) and bills until you release it.</Notice>
          ) : null}
        </Panel>

        {kind === 'serving-benchmark' ? <ServingPreflight draft={draft} marketplace={marketplace} /> : null}

        {blocked ? (
          <div className="problem" role="alert" data-testid="launch-no-offer">
            <p className="problem-title">No offer fits now: nothing was rented</p>
            <p>
              No machine for {draft.model.trim() || 'this model'} is offered at {formatDph(blocked.maxDph)} or less with reliability {draft.reliability_pct} % or more.
              {blocked.nearest ? (
                <>
                  {' '}
                  The cheapest that fits everything else costs <strong>{formatDph(blocked.nearest.dph_total)}</strong> ({formatGpus(blocked.nearest.num_gpus, blocked.nearest.gpu_name)}).
                </>
              ) : (
                ' No offer fits this model at any price: pick a smaller model or lower the reliability.'
              )}
            </p>
            {blocked.nearest ? (
              <button type="button" className="button" onClick={() => set({ max_dph: String(ceilingFor(blocked.nearest?.dph_total ?? 0)) })} data-testid="launch-raise-ceiling">
                Raise Max $/h to {formatDph(ceilingFor(blocked.nearest.dph_total))}
              </button>
            ) : null}
          </div>
        ) : null}
        {create.isError && !pending ? <SubmitProblem error={create.error} shown={new Set(Object.keys(serverErrors))} /> : null}
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={busy || cannotRent} data-testid="launch-submit">
            {preflight
              ? 'Checking the template and pricing…'
              : create.isPending
                ? 'Launching…'
                : cannotRent
                  ? 'Renting needs a marketplace key'
                  : marketplace && threshold <= 0
                    ? 'Review cost and launch'
                    : `Launch ${kindInSentence(kind)}`}
          </button>
          <button
            type="button"
            className="button"
            onClick={() => {
              setDraftStore(kind, defaults);
              setTouched(new Set());
              setSubmitted(false);
              setCarried(null);
              setBlocked(null);
              setTemplateError(null);
            }}
            data-testid="launch-reset"
          >
            Reset to my defaults
          </button>
          {submitted && !input ? (
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
          preflight={pending}
          kind={kind}
          threshold={threshold}
          busy={create.isPending}
          error={create.isError && pending ? create.error : null}
          onCancel={() => {
            setPending(null);
            create.reset();
          }}
          onConfirm={() => {
            if (pending) void submit(pending.input, pending.key);
          }}
        />
      ) : null}
    </>
  );
}
