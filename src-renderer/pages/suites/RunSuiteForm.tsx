import { useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import type { Suite, SuiteRequestInput } from '../../../shared';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { BackendApiField } from '../../components/BackendApiField';
import { Field } from '../../components/Field';
import { ModelField } from '../../components/ModelField';
import { Panel } from '../../components/Page';
import { ErrorState, Notice } from '../../components/States';
import { TemplateField } from '../../components/TemplateField';
import { ToggleGroup } from '../../components/ToggleGroup';
import { formatDph, formatUsd } from '../../lib/format';
import { useCatalog } from '../../queries/catalog';
import { useCreateJob } from '../../queries/jobs';
import { jobPath } from '../../router/routes';
import { AgentField } from '../launch/AgentField';
import { DEFAULT_TEMPLATE_HASH } from '../launch/launch-form';
import { useRunSuiteDraft, type Target } from './use-run-suite';

type Draft = ReturnType<typeof useRunSuiteDraft>;

/** Which scenarios run: all by default, All/None, one checkbox each. */
function ScenarioChoices({ suite, draft, errorOf }: { suite: Suite; draft: Draft; errorOf: (k: string) => string | null }) {
  const { chosen, allChosen, choose } = draft;
  const toggle = (id: string) => {
    const next = new Set(chosen);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    choose(next);
  };
  return (
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
            <input type="checkbox" checked={chosen.has(s.scenario_id)} onChange={() => toggle(s.scenario_id)} data-testid={`run-scenario-${s.scenario_id}`} />
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
  );
}

/** An existing llmserver, or one rented machine (template, ceiling, spend limit). */
function TargetFields({ draft, errorOf }: { draft: Draft; errorOf: (k: string) => string | null }) {
  const { values: v, setters: s, saved } = draft;
  if (v.target === 'backend') {
    return (
      <>
        <Field label="llmserver URL" hint={saved?.default_backend_url && v.backendUrl === saved.default_backend_url ? 'Your default backend (Settings).' : 'Ollama or an OpenAI-compatible server (vLLM, SGLang, llama.cpp…).'} error={errorOf('backend_url')}>
          <input value={v.backendUrl} onChange={(e) => s.setBackendUrl(e.target.value)} data-testid="run-backend-url" />
        </Field>
        <BackendApiField api={v.backendApi} apiKey={v.backendApiKey} onApi={s.setBackendApi} onKey={s.setBackendApiKey} error={errorOf('backend_api')} keyError={errorOf('backend_api_key')} testIdPrefix="run" />
      </>
    );
  }
  return (
    <>
      <TemplateField hash={v.template} error={errorOf('template_hash')} onChange={s.setTemplate} enabled={draft.keyConfigured} testId="run-template" isDefault={v.template === DEFAULT_TEMPLATE_HASH} />
      <Field label="Highest price ($/h)" error={errorOf('max_dph')}>
        <input inputMode="decimal" value={v.maxDph} onChange={(e) => s.setMaxDph(e.target.value)} data-testid="run-max-dph" />
      </Field>
      <Field
        label="Spend limit ($, optional)"
        hint={saved?.default_max_cost_usd != null && v.maxCost === String(saved.default_max_cost_usd) ? 'Your default limit (Settings): the run stops and the machine is released when it reaches this.' : 'The run stops and the machine is released when it reaches this. Empty: the default in Settings, if any.'}
        error={errorOf('max_cost_usd')}
      >
        <input inputMode="decimal" value={v.maxCost} onChange={(e) => s.setMaxCost(e.target.value)} placeholder="no limit" data-testid="run-max-cost" />
      </Field>
    </>
  );
}

/** "Run this suite": which scenarios, model, agent, an existing backend or one rented machine, an optional judge. */
export function RunSuiteForm({ suite, initial = null }: { suite: Suite; initial?: Readonly<Record<string, unknown>> | null }) {
  const catalog = useCatalog();
  const create = useCreateJob();
  const [, navigate] = useLocation();
  const draft = useRunSuiteDraft(suite, initial);
  const { values: v, setters: s, chosen, allChosen } = draft;
  const [confirming, setConfirming] = useState<SuiteRequestInput | null>(null);
  const launch = (request: SuiteRequestInput) => {
    create.mutate({ kind: 'suite', request }, { onSuccess: (accepted) => navigate(jobPath(accepted.job_id)) });
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const request = draft.check();
    if (!request) return;
    if (v.target === 'marketplace') setConfirming(request);
    else launch(request);
  };
  const serverErrors = Object.fromEntries((create.error?.problem.errors ?? []).map((i) => [i.path.split('.')[0] ?? '', i.message]));
  const errorOf = (key: string) => draft.errors[key] ?? serverErrors[key] ?? null;
  const runs = chosen.size * (Number(v.repeat) || 1);

  return (
    <Panel title="Run this suite" testId="run-suite">
      <form id="run-suite-form" className="run-suite-form" onSubmit={submit} noValidate>
        <ScenarioChoices suite={suite} draft={draft} errorOf={errorOf} />
        <Field label="Model" error={errorOf('model')}>
          <ModelField value={v.model} onChange={s.setModel} catalog={catalog.data?.models} testId="run-model" />
        </Field>
        <AgentField value={v.agent} error={errorOf('agent')} onChange={s.setAgent} onBlur={() => undefined} />
        <div className="run-suite-target">
          <span className="snapshot-control-label" aria-hidden="true">
            Where the model runs
          </span>
          <ToggleGroup<Target>
            label="Where the model runs"
            value={v.target}
            onChange={s.setTarget}
            testId="run-target"
            options={[
              { value: 'backend', label: 'An existing llmserver', testId: 'run-target-backend' },
              { value: 'marketplace', label: 'Rent one GPU machine', testId: 'run-target-marketplace' },
            ]}
          />
        </div>
        <TargetFields draft={draft} errorOf={errorOf} />
        <Field label="Runs of each scenario" hint={`${runs} answer${runs === 1 ? '' : 's'} in all`} error={errorOf('repeat')}>
          <input inputMode="numeric" value={v.repeat} onChange={(e) => s.setRepeat(e.target.value)} data-testid="run-repeat" />
        </Field>
        <Field label="Temperature" hint={Number(v.temperature) > 0 ? 'Each run of a scenario gets its own seed.' : '0: the same answer every run (greedy).'} error={errorOf('temperature')}>
          <input inputMode="decimal" value={v.temperature} onChange={(e) => s.setTemperature(e.target.value)} data-testid="run-temperature" />
        </Field>
        <Field label="Seed (optional)" hint="Sent with every request and kept in the result’s manifest." error={errorOf('seed')}>
          <input inputMode="numeric" value={v.seed} onChange={(e) => s.setSeed(e.target.value)} placeholder="none" data-testid="run-seed" />
        </Field>
        <Field
          label="Judge model (optional)"
          hint="Decides pass or fail, seeing the ground truth and the wrong claims; the rules are shown beside it."
          error={errorOf('judge') ?? (v.judgeIsModel && !v.selfJudge ? 'This is the model under test: it would grade its own answers. Choose another judge, or allow it below.' : null)}
        >
          <input value={v.judgeModel} onChange={(e) => s.setJudgeModel(e.target.value)} placeholder="none" data-testid="run-judge" />
        </Field>
        {v.judgeIsModel ? (
          <label className="run-suite-choice">
            <input type="checkbox" checked={v.selfJudge} onChange={(e) => s.setSelfJudge(e.target.checked)} data-testid="run-self-judge" />
            <span>Let the model judge its own answers</span>
          </label>
        ) : null}
        <div className="record-actions">
          <button type="submit" className="button button-primary" disabled={create.isPending} data-testid="run-submit">
            {create.isPending ? 'Starting…' : `Run ${allChosen ? 'all ' : ''}${chosen.size} scenario${chosen.size === 1 ? '' : 's'}`}
          </button>
        </div>
      </form>
      {create.isError && Object.keys(serverErrors).length === 0 ? <ErrorState error={create.error} testId="run-error" /> : null}
      {Object.keys(serverErrors).length > 0 ? <Notice tone="error">The server refused the run: {Object.entries(serverErrors).map(([k, m]) => `${k}: ${m}`).join('; ')}</Notice> : null}
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
          One machine at up to {formatDph(Number(v.maxDph))} is rented for the whole suite ({runs} answers), and released when it ends, fails or is cancelled.
          {v.maxCost.trim()
            ? ` The run stops at ${formatUsd(Number(v.maxCost))}.`
            : draft.saved?.default_max_cost_usd != null
              ? ` The default spend limit in Settings applies (${formatUsd(draft.saved.default_max_cost_usd)}).`
              : ' No spend limit is set.'}
        </p>
      </ConfirmDialog>
    </Panel>
  );
}
