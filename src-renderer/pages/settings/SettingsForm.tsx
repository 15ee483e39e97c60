import { useEffect, useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { issuesByField, SettingsUpdateSchema, zodIssuesToValidation, type AppSettingKey, type SettingsResponse } from '../../../shared';
import { useApi } from '../../bridge';
import { Field } from '../../components/Field';
import { Panel } from '../../components/Page';
import { ErrorState } from '../../components/States';
import { useUpdateSettings } from '../../queries/settings';
import { BackendUrlTest } from './BackendUrlTest';
import { DefaultAgentField } from './DefaultAgentField';
import { Effect } from './Effect';
import { draftOf, patchOf, SETTINGS_WORDS, type Draft } from './settings-draft';

/** The defaults for new jobs and the spend settings, saved together. */
export function SettingsForm({ data }: { data: SettingsResponse }) {
  const api = useApi();
  const update = useUpdateSettings();
  const [draft, setDraft] = useState<Draft>(() => draftOf(data.settings));
  const [savedKeys, setSavedKeys] = useState<string[] | null>(null);
  // A save (or another window) changed the settings: show the stored values.
  useEffect(() => setDraft(draftOf(data.settings)), [data.settings]);
  const patch = patchOf(draft, data.settings);
  // The server's rules (the shared schema), checked as each changed field is typed, said with this
  // form's labels (never its field names or zod's wording); the server's answer to a save too.
  const typed = useMemo(() => {
    const parsed = SettingsUpdateSchema.safeParse(patch);
    return parsed.success ? {} : issuesByField(zodIssuesToValidation(parsed.error.issues), SETTINGS_WORDS);
  }, [patch]);
  const errors = new Map<string, string>(Object.entries({ ...issuesByField(update.error?.problem.errors ?? [], SETTINGS_WORDS), ...typed }));
  const dirty = Object.keys(patch).length > 0;
  const set = (p: Partial<Draft>) => {
    setSavedKeys(null);
    setDraft((d) => ({ ...d, ...p }));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    // What is shown in red is not sent.
    if (Object.keys(typed).length > 0) return;
    update.mutate(patch, { onSuccess: (res) => setSavedKeys(res.changed) });
  };
  const row = (name: AppSettingKey, label: string, hint: ReactNode, control: Parameters<typeof Field>[0]['children']) => (
    <Field label={label} hint={<>{hint} <Effect data={data} name={name} /></>} error={errors.get(name) ?? null} testId={`field-${name}`}>
      {control}
    </Field>
  );
  return (
    <form onSubmit={submit} data-testid="settings-form" noValidate>
      <Panel title="Defaults for new jobs" testId="settings-defaults">
        <div className="form-grid">
          {row(
            'default_backend_url',
            'Backend URL',
            'The llmserver (Ollama) the Launch forms and the Models page start with.',
            <input type="url" value={draft.default_backend_url} onChange={(e) => set({ default_backend_url: e.target.value })} placeholder="http://127.0.0.1:11434" data-testid="set-backend-url" />,
          )}
          <BackendUrlTest url={draft.default_backend_url} disabled={errors.has('default_backend_url')} />
          <div className="kubeconfig-field">
            {row(
              'default_kubeconfig',
              'Kubeconfig',
              <>Empty: the server’s own (<code>{data.environment.kubeconfig_env}</code>).</>,
              <input type="text" value={draft.default_kubeconfig} onChange={(e) => set({ default_kubeconfig: e.target.value })} placeholder={data.environment.kubeconfig_env} data-testid="set-kubeconfig" />,
            )}
            {api.desktop ? (
              <button
                type="button"
                className="button button-small"
                onClick={() => void api.desktop?.pickKubeconfig({}).then((r) => (r.path ? set({ default_kubeconfig: r.path }) : undefined))}
              >
                Browse…
              </button>
            ) : null}
          </div>
          <DefaultAgentField
            value={draft.default_agent}
            error={errors.get('default_agent') ?? null}
            effect={<Effect data={data} name="default_agent" />}
            onChange={(v) => set({ default_agent: v })}
          />
          {row(
            'concurrency',
            'Jobs running at once',
            'The rest wait queued.',
            <input type="number" min={1} max={256} step={1} value={draft.concurrency} onChange={(e) => set({ concurrency: e.target.value })} data-testid="set-concurrency" />,
          )}
        </div>
      </Panel>
      <Panel title="Spend" testId="settings-spend">
        <div className="form-grid">
          {row(
            'spend_confirm_threshold_usd',
            'Ask before launching from ($)',
            'A marketplace launch whose expected cost reaches this asks for confirmation; 0 always asks.',
            <input type="number" min={0} step={0.5} value={draft.spend_confirm_threshold_usd} onChange={(e) => set({ spend_confirm_threshold_usd: e.target.value })} data-testid="set-threshold" />,
          )}
          {row(
            'default_max_cost_usd',
            'Per-job cost limit ($)',
            'A job that reaches it is stopped and its machine released. Empty: no limit.',
            <input type="number" min={0} step={0.5} value={draft.default_max_cost_usd} onChange={(e) => set({ default_max_cost_usd: e.target.value })} placeholder="no limit" data-testid="set-max-cost" />,
          )}
          <div className="field">
            <label className="check">
              <input
                type="checkbox"
                checked={draft.release_orphans_automatically}
                onChange={(e) => set({ release_orphans_automatically: e.target.checked })}
                data-testid="set-release-orphans"
              />
              Release orphaned machines automatically
            </label>
            <span className="field-hint">
              Machines whose job ended are destroyed by the sweep instead of only reported. <Effect data={data} name="release_orphans_automatically" />
            </span>
          </div>
        </div>
      </Panel>
      <div className="form-actions sticky-actions">
        <button type="submit" className="button button-primary" disabled={!dirty || update.isPending} data-testid="settings-save">
          {update.isPending ? 'Saving…' : 'Save settings'}
        </button>
        <button type="button" className="button" disabled={!dirty || update.isPending} onClick={() => set(draftOf(data.settings))}>
          Discard changes
        </button>
        <span aria-live="polite" className="muted" data-testid="settings-saved">
          {savedKeys ? (savedKeys.length > 0 ? `Saved: ${savedKeys.map((k) => SETTINGS_WORDS[k]?.name ?? k).join(', ')}.` : 'Nothing changed.') : dirty ? 'Unsaved changes.' : ''}
        </span>
      </div>
      {update.isError && !update.error.problem.errors ? <ErrorState error={update.error} /> : null}
    </form>
  );
}
