import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { issuesByField, type ApiTokenResponse, type AppSettingKey, type FieldVocabulary, type SettingsResponse, type SettingsUpdate } from '../../../shared';
import type { BenchdeskApiError } from '../../../shared/client';
import { useSession } from '../../bridge/session';
import { useApi } from '../../bridge';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CopyButton } from '../../components/CopyButton';
import { Field } from '../../components/Field';
import { RelativeTime } from '../../components/Format';
import { Page, Panel } from '../../components/Page';
import { ErrorState, Loading, Notice } from '../../components/States';
import { formatUsd } from '../../lib/format';
import { useHealth } from '../../queries/health';
import { settingsKeys, useApiToken, useSettings, useTestMarketplaceKey, useUpdateSettings } from '../../queries/settings';
import { ThemeToggle } from '../../components/ThemeToggle';
import '../overview/common.css';
import { DefaultAgentField } from './DefaultAgentField';
import './settings.css';

const EFFECT_TEXT = {
  now: 'applies at once',
  clients: 'used by the app’s forms',
  restart: 'needs a restart',
} as const;

function Effect({ data, name }: { data: SettingsResponse; name: AppSettingKey }) {
  const source = data.sources[name];
  return (
    <span className="effect" data-testid={`effect-${name}`}>
      {source === 'env' ? 'set by the environment, which wins' : EFFECT_TEXT[data.effects[name] ?? 'now']}
    </span>
  );
}

// ---------------------------------------------------------------------------------------------

function ApiTokenPanel() {
  const api = useApi();
  const qc = useQueryClient();
  const [shown, setShown] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const [rotatedNote, setRotatedNote] = useState<string | null>(null);
  const token = useApiToken(shown);
  const rotate = useMutation<ApiTokenResponse, BenchdeskApiError>({
    mutationFn: () => api.rotateApiToken({}),
    onSuccess: (res) => {
      setConfirm(false);
      qc.setQueryData(['api-token'], res);
      setShown(true);
      if (api.transport === 'http' && res.token) {
        // This tab signed in with the token that just stopped working: it goes on with the new one.
        useSession.getState().setToken(res.token);
        setRotatedNote('Rotated: the old token stopped working, and this tab now uses the new one.');
      } else {
        setRotatedNote('Rotated: the old token stopped working, and the api-token file holds the new one.');
      }
    },
  });
  const value = token.data?.token ?? null;
  return (
    <Panel title="API token" testId="settings-token">
      <p className="muted note-small">
        Scripts and the CLI send it as <code>Authorization: Bearer …</code>. The CLI reads it from the <code>api-token</code> file in the data directory.
      </p>
      <div className="token-row">
        <code className="token-value" data-testid="token-value" aria-live="polite">
          {shown && value ? value : '•'.repeat(24)}
        </code>
        <button type="button" className="button" onClick={() => setShown((s) => !s)} aria-pressed={shown} data-testid="token-show">
          {shown ? 'Hide' : 'Show'}
        </button>
        {shown && value ? <CopyButton text={value} testId="token-copy" /> : null}
        <button type="button" className="button button-danger" onClick={() => setConfirm(true)} data-testid="token-rotate">
          Rotate…
        </button>
      </div>
      {token.isError ? <ErrorState error={token.error} /> : null}
      {shown && token.data && !token.data.token ? (
        <Notice tone="info">This server has no app token: its tokens come from SERVICE_API_TOKENS in its environment. Rotating creates one.</Notice>
      ) : null}
      {token.data ? (
        <dl className="kv note-small">
          <dt>File</dt>
          <dd>
            <code>{token.data.file}</code> (owner-only, 0600)
          </dd>
          <dt>Last rotated</dt>
          <dd>{token.data.rotated_at ? <RelativeTime iso={token.data.rotated_at} /> : 'never'}</dd>
          {token.data.env_tokens ? (
            <>
              <dt>Environment</dt>
              <dd>Tokens from SERVICE_API_TOKENS keep working; rotation replaces only this one.</dd>
            </>
          ) : null}
        </dl>
      ) : null}
      {rotatedNote ? (
        <Notice tone="ok" testId="token-rotated">
          {rotatedNote}
        </Notice>
      ) : null}
      {rotate.isError ? <ErrorState error={rotate.error} /> : null}
      <ConfirmDialog
        open={confirm}
        title="Rotate the API token?"
        confirmLabel="Rotate now"
        tone="danger"
        busy={rotate.isPending}
        onConfirm={() => rotate.mutate()}
        onCancel={() => setConfirm(false)}
        testId="token-rotate-dialog"
      >
        <p>A new token replaces this one at once. Scripts, browser tabs and a CLI still using the old token get 401 until they use the new one.</p>
        <p>The api-token file is rewritten with the new token (readable by you only).</p>
      </ConfirmDialog>
    </Panel>
  );
}

// ---------------------------------------------------------------------------------------------

function MarketplaceKeyPanel({ data }: { data: SettingsResponse }) {
  const api = useApi();
  const qc = useQueryClient();
  const key = data.environment.marketplace_key;
  const test = useTestMarketplaceKey();
  const [draft, setDraft] = useState('');
  const save = useMutation<SettingsResponse, BenchdeskApiError, string | null>({
    mutationFn: (k) => api.setMarketplaceKey({ key: k }),
    onSuccess: (res) => {
      qc.setQueryData(settingsKeys.settings, res);
      setDraft('');
      test.reset();
    },
  });
  const sourceText = key.source === 'env' ? 'from VAST_API_KEY in the server’s environment' : key.source === 'app' ? 'stored encrypted by the desktop app' : '';
  return (
    <Panel title="Marketplace key (Vast.ai)" testId="settings-marketplace">
      <p data-testid="marketplace-status">
        {key.configured ? (
          <>
            <span className="badge badge-ok">configured</span> {sourceText}
            {key.hint ? (
              <>
                , ending in <code>…{key.hint}</code>
              </>
            ) : null}
            .
          </>
        ) : (
          <>
            <span className="badge badge-warn">not set</span> Estimates use the price range only, and marketplace runs cannot rent a GPU.
          </>
        )}
      </p>
      {key.can_store ? (
        <form
          className="toolbar"
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            if (draft.trim()) save.mutate(draft.trim());
          }}
        >
          <Field label="New key" hint="Stored encrypted with the system keychain (safeStorage); never shown back.">
            <input type="password" autoComplete="off" value={draft} onChange={(e) => setDraft(e.target.value)} className="input-key" data-testid="marketplace-key-input" />
          </Field>
          <button type="button" className="button" disabled={!draft.trim() || test.isPending} onClick={() => test.mutate(draft.trim())}>
            Test this key
          </button>
          <button type="submit" className="button button-primary" disabled={!draft.trim() || save.isPending}>
            Save
          </button>
          {key.source === 'app' ? (
            <button type="button" className="button" onClick={() => save.mutate(null)} disabled={save.isPending}>
              Remove the app’s key
            </button>
          ) : null}
        </form>
      ) : (
        <Notice tone="info" testId="marketplace-env-note">
          In browser and headless mode the key comes from the environment: set <code>VAST_API_KEY</code> for <code>benchdesk serve</code> and restart it.
          The desktop app can store a key itself, encrypted.
        </Notice>
      )}
      <div className="form-actions">
        <button type="button" className="button" onClick={() => test.mutate(undefined)} disabled={test.isPending || !key.configured} data-testid="marketplace-test">
          {test.isPending ? 'Asking the marketplace…' : 'Test key'}
        </button>
        <span className="muted note-small">
          Asks <code>{key.api_url}</code> who the key belongs to.
        </span>
      </div>
      {test.data ? (
        <Notice tone={test.data.ok ? 'ok' : 'error'} testId="marketplace-test-result">
          {test.data.message}
          {test.data.account?.credit !== null && test.data.account?.credit !== undefined ? ` Credit: ${formatUsd(test.data.account.credit)}.` : ''}
        </Notice>
      ) : null}
      {test.isError ? <ErrorState error={test.error} /> : null}
      {save.isError ? <ErrorState error={save.error} /> : null}
    </Panel>
  );
}

// ---------------------------------------------------------------------------------------------

type Draft = {
  default_backend_url: string;
  default_kubeconfig: string;
  default_agent: string;
  concurrency: string;
  spend_confirm_threshold_usd: string;
  default_max_cost_usd: string;
  release_orphans_automatically: boolean;
};

function draftOf(s: SettingsResponse['settings']): Draft {
  return {
    default_backend_url: s.default_backend_url ?? '',
    default_kubeconfig: s.default_kubeconfig ?? '',
    default_agent: s.default_agent ?? '',
    concurrency: String(s.concurrency),
    spend_confirm_threshold_usd: String(s.spend_confirm_threshold_usd),
    default_max_cost_usd: s.default_max_cost_usd === null ? '' : String(s.default_max_cost_usd),
    release_orphans_automatically: s.release_orphans_automatically,
  };
}

/** The typed form as an update: empty optional fields reset (null), numbers parsed; only changed keys. */
export function patchOf(draft: Draft, current: SettingsResponse['settings']): SettingsUpdate {
  const text = (v: string) => (v.trim() === '' ? null : v.trim());
  const num = (v: string) => (v.trim() === '' ? Number.NaN : Number(v));
  const next: SettingsUpdate = {
    default_backend_url: text(draft.default_backend_url),
    default_kubeconfig: text(draft.default_kubeconfig),
    default_agent: text(draft.default_agent),
    concurrency: num(draft.concurrency),
    spend_confirm_threshold_usd: draft.spend_confirm_threshold_usd.trim() === '' ? 0 : num(draft.spend_confirm_threshold_usd),
    default_max_cost_usd: draft.default_max_cost_usd.trim() === '' ? null : num(draft.default_max_cost_usd),
    release_orphans_automatically: draft.release_orphans_automatically,
  };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(next)) if (!Object.is(current[k as AppSettingKey], v)) out[k] = v;
  return out as SettingsUpdate;
}

/** The form's labels for the settings, for validation messages and "Saved: …". */
export const SETTINGS_WORDS: FieldVocabulary = {
  default_backend_url: { name: 'Backend URL' },
  default_kubeconfig: { name: 'Kubeconfig' },
  default_agent: { name: 'Agent' },
  concurrency: { name: 'Jobs running at once' },
  spend_confirm_threshold_usd: { name: 'Ask before launching from ($)' },
  default_max_cost_usd: { name: 'Per-job cost limit ($)' },
  release_orphans_automatically: { name: 'Release orphaned machines automatically' },
};

function SettingsForm({ data }: { data: SettingsResponse }) {
  const api = useApi();
  const update = useUpdateSettings();
  const [draft, setDraft] = useState<Draft>(() => draftOf(data.settings));
  const [savedKeys, setSavedKeys] = useState<string[] | null>(null);
  // A save (or another window) changed the settings: show the stored values.
  useEffect(() => setDraft(draftOf(data.settings)), [data.settings]);
  // The server's rules, said with this form's labels (never its field names or zod's wording).
  const errors = new Map<string, string>(Object.entries(issuesByField(update.error?.problem.errors ?? [], SETTINGS_WORDS)));
  const patch = patchOf(draft, data.settings);
  const dirty = Object.keys(patch).length > 0;
  const set = (p: Partial<Draft>) => {
    setSavedKeys(null);
    setDraft((d) => ({ ...d, ...p }));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
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

// ---------------------------------------------------------------------------------------------

function PlacesPanel({ data }: { data: SettingsResponse }) {
  const api = useApi();
  const health = useHealth();
  const [opened, setOpened] = useState<string | null>(null);
  const state = health.isError ? 'error' : health.isPending ? 'checking' : health.data.status === 'ok' ? 'ok' : 'warn';
  const address = api.transport === 'http' ? window.location.origin : data.environment.api_url;
  return (
    <Panel title="Data and API" testId="settings-places">
      <dl className="kv">
        <dt>Data directory</dt>
        <dd>
          <code data-testid="settings-data-dir">{data.environment.data_dir}</code>{' '}
          {api.desktop ? (
            <button
              type="button"
              className="button button-small"
              onClick={() => void api.desktop?.openDataDir({}).then((r) => setOpened(r.opened ? `Opened ${r.path}` : `Could not open ${r.path}`))}
            >
              Open folder
            </button>
          ) : null}
          <div className="field-hint">Jobs, settings, logs and the api-token file. Set BENCHDESK_DATA_DIR to move it (restart).</div>
          {opened ? <div className="field-hint">{opened}</div> : null}
        </dd>
        <dt>Settings file</dt>
        <dd>
          <code>{data.environment.settings_file}</code>
        </dd>
        <dt>API address</dt>
        <dd>
          <code data-testid="settings-api-url">{address}</code>{' '}
          <span className={`badge badge-${state}`} data-testid="settings-api-health" data-state={state}>
            {health.isError ? 'unreachable' : health.isPending ? 'checking' : health.data.status}
          </span>
          <div className="field-hint">BENCHDESK_HOST and BENCHDESK_PORT choose it (restart). Authentication: {data.environment.auth}.</div>
        </dd>
      </dl>
    </Panel>
  );
}

function ThemePanel() {
  return (
    <Panel title="Appearance">
      <ThemeToggle testIdPrefix="settings-theme" />
      <p className="muted note-small">System follows the operating system’s light or dark mode as it changes. Remembered on this computer.</p>
    </Panel>
  );
}

/** API token, marketplace key, defaults, spend limits, where things live, and the theme. */
export function SettingsPage() {
  const settings = useSettings();
  return (
    <Page title="Settings" subtitle="Saved in the data directory’s settings.json, shared by the app, the server and the CLI." testId="page-settings">
      {settings.isError ? (
        <ErrorState error={settings.error} onRetry={() => void settings.refetch()} />
      ) : settings.isPending ? (
        <Loading height={300} />
      ) : (
        <div className="settings-grid">
          <div className="stack">
            <ApiTokenPanel />
            <MarketplaceKeyPanel data={settings.data} />
            <PlacesPanel data={settings.data} />
            <ThemePanel />
          </div>
          <SettingsForm data={settings.data} />
        </div>
      )}
    </Page>
  );
}
