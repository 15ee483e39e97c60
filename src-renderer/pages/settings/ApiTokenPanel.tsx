import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ApiTokenResponse } from '../../../shared';
import type { BenchdeskApiError } from '../../../shared/client';
import { useApi } from '../../bridge';
import { useSession } from '../../bridge/session';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CopyButton } from '../../components/CopyButton';
import { RelativeTime } from '../../components/Format';
import { Panel } from '../../components/Page';
import { ErrorState, Notice } from '../../components/States';
import { useApiToken } from '../../queries/settings';

/** The API token: masked until shown, copy, rotate (this tab goes on with the new one). */
export function ApiTokenPanel() {
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
