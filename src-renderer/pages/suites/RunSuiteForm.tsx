import { useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import { zodIssuesToValidation, SuiteRequestSchema, type BackendApi, type Suite, type SuiteRequestInput } from '../../../shared';
import { BackendApiField } from '../../components/BackendApiField';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Field } from '../../components/Field';
import { ModelField } from '../../components/ModelField';
import { Panel } from '../../components/Page';
import { ErrorState, Notice } from '../../components/States';
import { TemplateField } from '../../components/TemplateField';
import { ToggleGroup } from '../../components/ToggleGroup';
import { formatDph, formatUsd } from '../../lib/format';
import { useCatalog } from '../../queries/catalog';
import { useCreateJob } from '../../queries/jobs';
import { useSettings } from '../../queries/settings';
import { jobPath } from '../../router/routes';
import { AgentField } from '../launch/AgentField';
import { DEFAULT_TEMPLATE_HASH } from '../launch/launch-form';

type Target = 'backend' | 'marketplace';

/** "Run this suite": which scenarios, model, agent, an existing backend or one rented machine, an optional judge. */
export function RunSuiteForm({ suite }: { suite: Suite }) {
  const catalog = useCatalog();
  const create = useCreateJob();
  const [, navigate] = useLocation();
  const [model, setModel] = useState('llama3.1:8b');
  const [target, setTarget] = useState<Target>('backend');
  const [template, setTemplate] = useState(DEFAULT_TEMPLATE_HASH);
  const settings = useSettings();
  // The saved defaults (Settings) until the user types: null means "not edited here".
  const saved = settings.data?.settings;
  const [agentEdit, setAgent] = useState<string | null>(null);
  const [backendUrlEdit, setBackendUrl] = useState<string | null>(null);
  const [backendApi, setBackendApi] = useState<BackendApi>('auto');
  const [backendApiKey, setBackendApiKey] = useState('');
  const [maxCostEdit, setMaxCost] = useState<string | null>(null);
  const agent = agentEdit ?? saved?.default_agent ?? 'builtin';
  const backendUrl = backendUrlEdit ?? saved?.default_backend_url ?? 'http://127.0.0.1:11434';
  const maxCost = maxCostEdit ?? (saved?.default_max_cost_usd != null ? String(saved.default_max_cost_usd) : '');
  const keyConfigured = settings.data?.environment.marketplace_key.configured ?? true;
  // Every scenario by default; a subset is sent as scenario_ids.
  const [chosen, setChosen] = useState<ReadonlySet<string>>(() => new Set(suite.scenarios.map((s) => s.scenario_id)));
  const allChosen = chosen.size === suite.scenarios.length;
  const choose = (next: ReadonlySet<string>) => {
    setChosen(next);
    // A choice made answers the "choose at least one" message.
    setErrors(({ scenario_ids: _answered, ...rest }) => rest);
  };
  const toggleScenario = (id: string) => {
    const next = new Set(chosen);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    choose(next);
  };
  const [maxDph, setMaxDph] = useState('0.5');
  const [repeat, setRepeat] = useState('1');
  const [judgeModel, setJudgeModel] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [confirming, setConfirming] = useState<SuiteRequestInput | null>(null);

  const build = (): SuiteRequestInput => ({
    suite_id: suite.suite_id,
    model: model.trim(),
    agent,
    repeat: Number(repeat),
    // In the suite's order, whatever order they were ticked in.
    ...(allChosen ? {} : { scenario_ids: suite.scenarios.map((s) => s.scenario_id).filter((id) => chosen.has(id)) }),
    ...(judgeModel.trim() ? { judge: { model: judgeModel.trim() } } : {}),
    ...(target === 'backend'
      ? { backend_url: backendUrl.trim(), backend_api: backendApi, ...(backendApi !== 'ollama' && backendApiKey.trim() ? { backend_api_key: backendApiKey.trim() } : {}) }
      : { marketplace: true, template_hash: template.trim(), max_dph: Number(maxDph), ...(maxCost.trim() ? { max_cost_usd: Number(maxCost) } : {}) }),
  });
  const launch = (request: SuiteRequestInput) => {
    create.mutate({ kind: 'suite', request }, { onSuccess: (accepted) => navigate(jobPath(accepted.job_id)) });
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (chosen.size === 0) {
      setErrors({ scenario_ids: 'Choose at least one scenario to run' });
      return;
    }
    const request = build();
    const parsed = SuiteRequestSchema.safeParse(request);
    if (!parsed.success) {
      setErrors(Object.fromEntries(zodIssuesToValidation(parsed.error.issues).map((i) => [i.path.split('.')[0] ?? '', i.message])));
      return;
    }
    setErrors({});
    if (target === 'marketplace') setConfirming(request);
    else launch(request);
  };
  const serverErrors = Object.fromEntries((create.error?.problem.errors ?? []).map((i) => [i.path.split('.')[0] ?? '', i.message]));
  const errorOf = (key: string) => errors[key] ?? serverErrors[key] ?? null;
  const runs = chosen.size * (Number(repeat) || 1);

  return (
    <Panel title="Run this suite" testId="run-suite">
      <form id="run-suite-form" className="run-suite-form" onSubmit={submit} noValidate>
        <fieldset className="run-suite-scenarios" data-testid="run-scenarios">
          <legend>
            Scenarios <span className="muted">({chosen.size} of {suite.scenarios.length})</span>
          </legend>
          <div className="run-suite-scenario-actions">
            <button type="button" className="button button-small" onClick={() => choose(new Set(suite.scenarios.map((s) => s.scenario_id)))} disabled={allChosen} data-testid="run-scenarios-all">
              All
            </button>
            <button type="button" className="button button-small" onClick={() => choose(new Set())} disabled={chosen.size === 0} data-testid="run-scenarios-none">
              None
            </button>
          </div>
          <div className="run-suite-scenario-list">
            {suite.scenarios.map((s) => (
              <label key={s.scenario_id} className="run-suite-choice">
                <input type="checkbox" checked={chosen.has(s.scenario_id)} onChange={() => toggleScenario(s.scenario_id)} data-testid={`run-scenario-${s.scenario_id}`} />
                <span>
                  {s.title} <span className="muted">· {s.difficulty}</span>
                </span>
              </label>
            ))}
          </div>
          <span className="field-error" role={errorOf('scenario_ids') ? 'alert' : undefined}>
            {errorOf('scenario_ids') ?? ''}
          </span>
        </fieldset>
        <Field label="Model" error={errorOf('model')}>
          <ModelField value={model} onChange={setModel} catalog={catalog.data?.models} testId="run-model" />
        </Field>
        <AgentField value={agent} error={errorOf('agent')} onChange={setAgent} onBlur={() => undefined} />
        <div className="run-suite-target">
          <span className="snapshot-control-label" aria-hidden="true">
            Where the model runs
          </span>
          <ToggleGroup<Target>
            label="Where the model runs"
            value={target}
            onChange={setTarget}
            testId="run-target"
            options={[
              { value: 'backend', label: 'An existing llmserver', testId: 'run-target-backend' },
              { value: 'marketplace', label: 'Rent one GPU machine', testId: 'run-target-marketplace' },
            ]}
          />
        </div>
        {target === 'backend' ? (
          <>
            <Field label="llmserver URL" hint={saved?.default_backend_url && backendUrl === saved.default_backend_url ? 'Your default backend (Settings).' : 'Ollama or an OpenAI-compatible server (vLLM, SGLang…).'} error={errorOf('backend_url')}>
              <input value={backendUrl} onChange={(e) => setBackendUrl(e.target.value)} data-testid="run-backend-url" />
            </Field>
            <BackendApiField api={backendApi} apiKey={backendApiKey} onApi={setBackendApi} onKey={setBackendApiKey} error={errorOf('backend_api')} keyError={errorOf('backend_api_key')} testIdPrefix="run" />
          </>
        ) : (
          <>
            <TemplateField hash={template} error={errorOf('template_hash')} onChange={setTemplate} enabled={keyConfigured} testId="run-template" />
            <Field label="Highest price ($/h)" error={errorOf('max_dph')}>
              <input inputMode="decimal" value={maxDph} onChange={(e) => setMaxDph(e.target.value)} data-testid="run-max-dph" />
            </Field>
            <Field label="Spend limit ($, optional)" hint={saved?.default_max_cost_usd != null && maxCost === String(saved.default_max_cost_usd) ? 'Your default limit (Settings): the run stops and the machine is released when it reaches this.' : 'The run stops and the machine is released when it reaches this.'} error={errorOf('max_cost_usd')}>
              <input inputMode="decimal" value={maxCost} onChange={(e) => setMaxCost(e.target.value)} data-testid="run-max-cost" />
            </Field>
          </>
        )}
        <Field label="Runs of each scenario" hint={`${runs} answer${runs === 1 ? '' : 's'} in all`} error={errorOf('repeat')}>
          <input inputMode="numeric" value={repeat} onChange={(e) => setRepeat(e.target.value)} data-testid="run-repeat" />
        </Field>
        <Field label="Judge model (optional)" hint="A second model grades each answer under a fixed rubric, reported apart from the score." error={errorOf('judge')}>
          <input value={judgeModel} onChange={(e) => setJudgeModel(e.target.value)} placeholder="none" data-testid="run-judge" />
        </Field>
        <div className="record-actions">
          <button type="submit" className="button button-primary" disabled={create.isPending} data-testid="run-submit">
            {create.isPending ? 'Starting…' : `Run ${allChosen ? 'all ' : ''}${chosen.size} scenario${chosen.size === 1 ? '' : 's'}`}
          </button>
        </div>
      </form>
      {create.isError && Object.keys(serverErrors).length === 0 ? <ErrorState error={create.error} testId="run-error" /> : null}
      {Object.keys(serverErrors).length > 0 ? <Notice tone="error">The server refused the run: {Object.entries(serverErrors).map(([k, v]) => `${k}: ${v}`).join('; ')}</Notice> : null}
      <ConfirmDialog
        open={confirming !== null}
        title="Rent a machine for this suite?"
        confirmLabel="Rent and run"
        busy={create.isPending}
        onCancel={() => setConfirming(null)}
        onConfirm={() => {
          if (confirming) launch(confirming);
          setConfirming(null);
        }}
        testId="run-confirm"
      >
        <p>
          One machine at up to {formatDph(Number(maxDph))} is rented for the whole suite ({runs} answers), and released when it ends, fails or is cancelled.
          {maxCost.trim() ? ` The run stops at ${formatUsd(Number(maxCost))}.` : saved?.default_max_cost_usd != null ? ` The default spend limit in Settings applies (${formatUsd(saved.default_max_cost_usd)}).` : ' No spend limit is set.'}
        </p>
      </ConfirmDialog>
    </Panel>
  );
}
