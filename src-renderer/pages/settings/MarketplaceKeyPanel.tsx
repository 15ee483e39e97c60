import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { SettingsResponse } from '../../../shared';
import type { BenchdeskApiError } from '../../../shared/client';
import { useApi } from '../../bridge';
import { Field } from '../../components/Field';
import { Panel } from '../../components/Page';
import { ErrorState, Notice } from '../../components/States';
import { formatUsd } from '../../lib/format';
import { settingsKeys, useTestMarketplaceKey } from '../../queries/settings';

/** The marketplace key: configured or not, where from, Test; in the app a field to store or remove one. */
export function MarketplaceKeyPanel({ data }: { data: SettingsResponse }) {
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
