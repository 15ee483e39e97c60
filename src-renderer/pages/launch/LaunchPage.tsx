import { useMemo, useRef, useState, type ReactNode } from 'react';
import { useLocation } from 'wouter';
import type { CostEstimationResponse, CreateJobInput, JobKind } from '../../../shared';
import { toBenchdeskApiError, type BenchdeskApiError } from '../../../shared/client';
import { useApi } from '../../bridge';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Field } from '../../components/Field';
import { Page, Panel } from '../../components/Page';
import { ErrorState, Notice } from '../../components/States';
import { ToggleGroup } from '../../components/ToggleGroup';
import { formatDph, formatGb, formatGpus, formatHours, formatMb, formatUsd } from '../../lib/format';
import { KIND_LABELS } from '../../lib/job';
import { useCatalog } from '../../queries/catalog';
import { useCreateJob } from '../../queries/jobs';
import { jobPath } from '../../router/routes';
import { useUiStore } from '../../state/ui-store';
import { DEFAULT_DRAFT, estimateFor, fieldErrorsOf, fieldsOf, validateDraft, type DraftField, type LaunchDraft } from './launch-form';

const KINDS: { kind: JobKind; label: string; what: string }[] = [
  { kind: 'benchmark', label: 'Benchmark', what: 'Provision (or use) an LLM backend, warm it up, ask an agent, tear down; every phase timed and costed.' },
  { kind: 'agentic-agent', label: 'Agent', what: 'Ask an agent a question against an LLM backend you already run.' },
  { kind: 'llm-instance', label: 'LLM instance', what: 'Check an existing llmserver, or rent a GPU machine running one and keep it up.' },
];

type Pending = { input: CreateJobInput; key: string; estimate: CostEstimationResponse | null; estimateError: BenchdeskApiError | null; hours: number; maxDph: number };

export function LaunchPage() {
  const api = useApi();
  const [, navigate] = useLocation();
  const [kind, setKind] = useState<JobKind>('benchmark');
  const stored = useUiStore((s) => s.launchDrafts[kind]);
  const setDraftStore = useUiStore((s) => s.setLaunchDraft);
  const draft: LaunchDraft = stored ?? DEFAULT_DRAFT;
  const [touched, setTouched] = useState<ReadonlySet<DraftField>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const [pending, setPending] = useState<Pending | null>(null);
  const [preflight, setPreflight] = useState(false);
  const create = useCreateJob();
  const catalog = useCatalog();
  // One key per submission attempt: a double click or a retry of the same attempt reuses it.
  const attemptKey = useRef<string | null>(null);

  const fields = fieldsOf(kind, draft);
  const { input, errors } = useMemo(() => validateDraft(kind, draft), [kind, draft]);
  // A 422 from the server (a rule only it can check, e.g. the agent exists) lands on its field too.
  const serverErrors = useMemo(() => (create.error ? fieldErrorsOf(create.error.problem.errors ?? []) : {}), [create.error]);
  const errorOf = (f: DraftField) => (submitted || touched.has(f) ? (errors[f] ?? serverErrors[f] ?? null) : null);
  const set = (patch: Partial<LaunchDraft>) => {
    attemptKey.current = null;
    setDraftStore(kind, { ...draft, ...patch });
  };
  const touch = (f: DraftField) => setTouched((t) => (t.has(f) ? t : new Set(t).add(f)));
  const bind = (f: Exclude<DraftField, 'backend_warmup' | 'stop_instance' | 'target'>) => ({
    value: draft[f],
    onChange: (e: { target: { value: string } }) => set({ [f]: e.target.value }),
    onBlur: () => touch(f),
    name: f,
    'data-testid': `launch-${f}`,
  });
  const marketplace = fields.has('target') && draft.target === 'marketplace';

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

  const onLaunch = async () => {
    setSubmitted(true);
    if (!input) {
      const first = [...fields].find((f) => errors[f]);
      if (first) document.querySelector<HTMLElement>(`[name="${first}"]`)?.focus();
      return;
    }
    if (create.isPending || preflight) return;
    attemptKey.current ??= crypto.randomUUID();
    const key = attemptKey.current;
    if (!marketplace) {
      await submit(input, key);
      return;
    }
    // Marketplace: price it first, then ask before renting.
    setPreflight(true);
    const est = estimateFor(draft);
    let estimate: CostEstimationResponse | null = null;
    let estimateError: BenchdeskApiError | null = null;
    try {
      estimate = await api.createEstimate(est);
    } catch (err) {
      estimateError = toBenchdeskApiError(err);
    }
    setPreflight(false);
    setPending({ input, key, estimate, estimateError, hours: est.estimated_duration_seconds / 3600, maxDph: est.max_dph });
  };

  const busy = create.isPending || preflight;
  const kindInfo = KINDS.find((k) => k.kind === kind);
  const selectedModel = catalog.data?.models.find((m) => m.name === draft.model.trim());

  return (
    <Page title="Launch" subtitle="Start a benchmark, an agent run or an LLM instance. Fields are checked as you type, with the same rules the API applies." testId="page-launch">
      <ToggleGroup
        label="Job kind"
        size="large"
        className="launch-kinds"
        value={kind}
        options={KINDS.map((k) => ({ value: k.kind, label: k.label, testId: `launch-kind-${k.kind}` }))}
        onChange={(next) => {
          setKind(next);
          setSubmitted(false);
          setTouched(new Set());
          attemptKey.current = null;
          create.reset();
        }}
      />

      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void onLaunch();
        }}
        aria-label={`${KIND_LABELS[kind]} form`}
      >
        <Panel title={kindInfo?.label}>
          <p className="muted" style={{ marginTop: 0 }}>
            {kindInfo?.what}
          </p>
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
              hint={selectedModel ? `Catalog: ${formatMb(selectedModel.vram_mb)} VRAM, ${formatGb(selectedModel.required_disk_gb)} disk.` : marketplace ? 'From the marketplace catalog: it sizes the GPU.' : 'The model name on the backend, e.g. qwen3:8b.'}
              error={errorOf('model')}
            >
              <input list="catalog-models" autoComplete="off" spellCheck={false} placeholder={marketplace ? 'qwen2.5:32b' : 'llama3.1:8b'} {...bind('model')} />
            </Field>
            <datalist id="catalog-models">
              {catalog.data?.models.map((m) => (
                <option key={m.name} value={m.name}>
                  {formatMb(m.vram_mb)} VRAM
                </option>
              ))}
            </datalist>
            {fields.has('agent') ? (
              <Field label="Agent" hint="builtin, holmes or k8sgpt." error={errorOf('agent')}>
                <input autoComplete="off" spellCheck={false} {...bind('agent')} />
              </Field>
            ) : null}
            {fields.has('kubeconfig') ? <KubeconfigField value={draft.kubeconfig} error={errorOf('kubeconfig')} onChange={(v) => set({ kubeconfig: v })} onBlur={() => touch('kubeconfig')} /> : null}
          </div>
        </Panel>

        <Panel title="Where the model runs">
          {fields.has('target') ? (
            <ToggleGroup
              label="Backend"
              size="large"
              className="launch-target"
              value={draft.target}
              onChange={(target) => set({ target })}
              options={[
                { value: 'existing', label: 'An llmserver I run', testId: 'target-existing' },
                { value: 'marketplace', label: 'Rent a GPU (marketplace)', testId: 'target-marketplace' },
              ]}
            />
          ) : null}
          <div className="form-grid">
            {fields.has('backend_url') ? (
              <>
                <Field label="Backend URL" hint="An Ollama-compatible llmserver." error={errorOf('backend_url')}>
                  <input type="url" autoComplete="off" spellCheck={false} {...bind('backend_url')} />
                </Field>
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
                <Field label="Template" hint="The Vast.ai template hash that runs Ollama." error={errorOf('template_hash')}>
                  <input autoComplete="off" spellCheck={false} {...bind('template_hash')} />
                </Field>
                <Field label="Min $/h" error={errorOf('min_dph')}>
                  <input type="number" min={0} step={0.05} {...bind('min_dph')} />
                </Field>
                <Field label="Max $/h" hint="The spend ceiling per hour: no offer above it is rented." error={errorOf('max_dph')}>
                  <input type="number" min={0} step={0.05} {...bind('max_dph')} />
                </Field>
                <Field label="Reliability (%)" error={errorOf('reliability_pct')}>
                  <input type="number" min={0} max={100} step={0.5} {...bind('reliability_pct')} />
                </Field>
                <Field label="Expected duration (hours)" hint="Only for the cost shown before launch." error={errorOf('hours')}>
                  <input type="number" min={0.1} step={0.25} {...bind('hours')} />
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

        {create.isError && !pending ? <ErrorState error={create.error} /> : null}
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={busy} data-testid="launch-submit">
            {preflight ? 'Pricing…' : create.isPending ? 'Launching…' : marketplace ? 'Review cost and launch' : `Launch ${KIND_LABELS[kind].toLowerCase()}`}
          </button>
          <button
            type="button"
            className="button"
            onClick={() => {
              setDraftStore(kind, DEFAULT_DRAFT);
              setTouched(new Set());
              setSubmitted(false);
            }}
          >
            Reset form
          </button>
          {submitted && !input ? (
            <span className="field-error" role="status">
              Fix the fields marked in red.
            </span>
          ) : null}
        </div>
      </form>

      <ConfirmDialog
        open={pending !== null}
        title="Rent a GPU for this job?"
        confirmLabel="Rent and launch"
        busy={create.isPending}
        onCancel={() => {
          setPending(null);
          create.reset();
        }}
        onConfirm={() => {
          if (pending) void submit(pending.input, pending.key);
        }}
        testId="spend-confirm"
      >
        {pending ? <SpendSummary pending={pending} kind={kind} releaseAfter={draft.stop_instance} /> : null}
        {create.isError && pending ? <ErrorState error={create.error} /> : null}
      </ConfirmDialog>
    </Page>
  );
}

function SpendSummary({ pending, kind, releaseAfter }: { pending: Pending; kind: JobKind; releaseAfter: boolean }) {
  const e = pending.estimate;
  const expectedDph = e?.offers ? e.offers.min_dph : e && e.hours > 0 ? e.cost_range_usd.expected / e.hours : null;
  let machine: ReactNode;
  if (kind === 'llm-instance') machine = <strong>kept running after the job: it bills until you release it.</strong>;
  else if (releaseAfter) machine = 'released when the benchmark ends, also if it fails or is cancelled.';
  else machine = <strong>kept running after the benchmark: it bills until you release it.</strong>;
  return (
    <div data-testid="spend-summary">
      <dl className="kv">
        <dt>Expected rate</dt>
        <dd className="num" data-testid="spend-expected-dph">
          {formatDph(expectedDph)}
          {e?.offers ? <span className="muted"> (cheapest fitting offer: {formatGpus(e.offers.cheapest.num_gpus, e.offers.cheapest.gpu_name)})</span> : null}
        </dd>
        <dt>Maximum rate</dt>
        <dd className="num" data-testid="spend-max-dph">
          {formatDph(pending.maxDph)} <span className="muted">(no offer above it is rented)</span>
        </dd>
        <dt>Assumed duration</dt>
        <dd>{formatHours(pending.hours)}</dd>
        <dt>Expected cost</dt>
        <dd className="num">
          {e ? (
            <>
              {formatUsd(e.cost_range_usd.expected)} <span className="muted">(up to {formatUsd(pending.maxDph * pending.hours)} at the maximum rate)</span>
            </>
          ) : (
            `up to ${formatUsd(pending.maxDph * pending.hours)} at the maximum rate`
          )}
        </dd>
        <dt>The machine is</dt>
        <dd data-testid="spend-release">{machine}</dd>
      </dl>
      {e?.basis === 'price_range' ? <p className="muted">No live offers were checked ({e.warning}); the rate above is the middle of your range.</p> : null}
      {pending.estimateError ? <p className="muted">The pre-flight estimate failed ({pending.estimateError.message}); only the maximum rate is known.</p> : null}
    </div>
  );
}

function KubeconfigField({ value, error, onChange, onBlur }: { value: string; error: string | null; onChange: (v: string) => void; onBlur: () => void }) {
  const api = useApi();
  const desktop = api.desktop;
  const [pickError, setPickError] = useState<string | null>(null);
  return (
    <div className="field">
      <Field
        label="Kubeconfig"
        hint={desktop ? 'The cluster the agent inspects; leave empty for the default.' : 'A path on the machine running the benchdesk server; empty uses its default.'}
        error={error ?? pickError}
      >
        <input value={value} onChange={(e) => onChange(e.target.value)} onBlur={onBlur} name="kubeconfig" spellCheck={false} placeholder="~/.kube/config" data-testid="launch-kubeconfig" />
      </Field>
      {desktop ? (
        <button
          type="button"
          className="button button-small"
          onClick={() => {
            setPickError(null);
            desktop.pickKubeconfig({}).then(
              (r) => {
                if (r.path) onChange(r.path);
              },
              (err: unknown) => setPickError(toBenchdeskApiError(err).message),
            );
          }}
        >
          Choose file…
        </button>
      ) : null}
    </div>
  );
}
