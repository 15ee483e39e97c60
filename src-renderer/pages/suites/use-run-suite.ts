import { useState } from 'react';
import { sameModel, zodIssuesToValidation, SuiteRequestSchema, BackendApiSchema, type BackendApi, type Suite, type SuiteRequestInput } from '../../../shared';
import { useSettings } from '../../queries/settings';
import { DEFAULT_TEMPLATE_HASH } from '../launch/launch-form';

export type Target = 'backend' | 'marketplace';

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): string | null => (typeof v === 'number' && Number.isFinite(v) ? String(v) : null);

/**
 * The Run form's state: it starts from the saved defaults (Settings) or, for "Edit and re-run",
 * from a run's request — and then only from what that request said: a run without a spend limit
 * gets none, whatever today's default is.
 */
export function useRunSuiteDraft(suite: Suite, initial: Readonly<Record<string, unknown>> | null) {
  const settings = useSettings();
  const saved = settings.data?.settings;
  const judge = initial && typeof initial.judge === 'object' && initial.judge !== null ? text((initial.judge as Record<string, unknown>).model) : null;
  const ids = initial && Array.isArray(initial.scenario_ids) ? initial.scenario_ids.filter((x): x is string => typeof x === 'string') : null;
  const [model, setModel] = useState(text(initial?.model) ?? 'llama3.1:8b');
  const [target, setTarget] = useState<Target>(initial?.marketplace === true ? 'marketplace' : 'backend');
  const [template, setTemplate] = useState(text(initial?.template_hash) ?? DEFAULT_TEMPLATE_HASH);
  // The saved defaults until the user types: null means "not edited here".
  const [agentEdit, setAgent] = useState<string | null>(text(initial?.agent));
  const [backendUrlEdit, setBackendUrl] = useState<string | null>(text(initial?.backend_url));
  const [backendApi, setBackendApi] = useState<BackendApi>(BackendApiSchema.safeParse(initial?.backend_api).data ?? 'auto');
  // A key is never carried over from a stored request (it is redacted there): typed again.
  const [backendApiKey, setBackendApiKey] = useState('');
  const [maxCostEdit, setMaxCost] = useState<string | null>(initial ? (num(initial.max_cost_usd) ?? '') : null);
  const [maxDph, setMaxDph] = useState(num(initial?.max_dph) ?? '0.5');
  const [repeat, setRepeat] = useState(num(initial?.repeat) ?? '1');
  const [judgeModel, setJudgeModel] = useState(judge ?? '');
  const [selfJudge, setSelfJudge] = useState(initial !== null && typeof initial.judge === 'object' && initial.judge !== null && (initial.judge as Record<string, unknown>).allow_self_judge === true);
  const [temperature, setTemperature] = useState(num(initial?.temperature) ?? '0');
  const [seed, setSeed] = useState(num(initial?.seed) ?? '');
  const [errors, setErrors] = useState<Record<string, string>>({});
  // Every scenario by default; a subset is sent as scenario_ids.
  const [chosen, setChosen] = useState<ReadonlySet<string>>(() => new Set(ids ?? suite.scenarios.map((s) => s.scenario_id)));
  const agent = agentEdit ?? saved?.default_agent ?? 'builtin';
  const backendUrl = backendUrlEdit ?? saved?.default_backend_url ?? 'http://127.0.0.1:11434';
  const maxCost = maxCostEdit ?? (saved?.default_max_cost_usd != null ? String(saved.default_max_cost_usd) : '');
  const allChosen = chosen.size === suite.scenarios.length;
  const judgeIsModel = judgeModel.trim() !== '' && sameModel(judgeModel, model);
  const choose = (next: ReadonlySet<string>) => {
    setChosen(next);
    // A choice made answers the "choose at least one" message.
    setErrors(({ scenario_ids: _answered, ...rest }) => rest);
  };
  const build = (): SuiteRequestInput => ({
    suite_id: suite.suite_id,
    model: model.trim(),
    agent,
    repeat: Number(repeat),
    // In the suite's order, whatever order they were ticked in.
    ...(allChosen ? {} : { scenario_ids: suite.scenarios.map((s) => s.scenario_id).filter((id) => chosen.has(id)) }),
    ...(judgeModel.trim() ? { judge: { model: judgeModel.trim(), ...(judgeIsModel && selfJudge ? { allow_self_judge: true } : {}) } } : {}),
    temperature: Number(temperature),
    ...(seed.trim() ? { seed: Number(seed) } : {}),
    ...(target === 'backend'
      ? { backend_url: backendUrl.trim(), backend_api: backendApi, ...(backendApi !== 'ollama' && backendApiKey.trim() ? { backend_api_key: backendApiKey.trim() } : {}) }
      : { marketplace: true, template_hash: template.trim(), max_dph: Number(maxDph), ...(maxCost.trim() ? { max_cost_usd: Number(maxCost) } : {}) }),
  });
  /** The request when it is valid, else null with the errors set on their fields. */
  const check = (): SuiteRequestInput | null => {
    if (chosen.size === 0) {
      setErrors({ scenario_ids: 'Choose at least one scenario to run' });
      return null;
    }
    const request = build();
    const parsed = SuiteRequestSchema.safeParse(request);
    if (!parsed.success) {
      setErrors(Object.fromEntries(zodIssuesToValidation(parsed.error.issues).map((i) => [i.path.split('.')[0] ?? '', i.message])));
      return null;
    }
    setErrors({});
    return request;
  };
  return {
    settings,
    saved,
    keyConfigured: settings.data?.environment.marketplace_key.configured ?? true,
    values: { model, target, template, agent, backendUrl, backendApi, backendApiKey, maxCost, maxDph, repeat, judgeModel, selfJudge, judgeIsModel, temperature, seed },
    setters: { setModel, setTarget, setTemplate, setAgent, setBackendUrl, setBackendApi, setBackendApiKey, setMaxCost, setMaxDph, setRepeat, setJudgeModel, setSelfJudge, setTemperature, setSeed },
    chosen,
    allChosen,
    choose,
    errors,
    check,
  };
}
