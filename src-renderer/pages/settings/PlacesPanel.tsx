import { useState } from 'react';
import type { SettingsResponse } from '../../../shared';
import { useApi } from '../../bridge';
import { Panel } from '../../components/Page';
import { ThemeToggle } from '../../components/ThemeToggle';
import { useHealth } from '../../queries/health';

/** Where things live: the data directory, the settings file, the API address with its health. */
export function PlacesPanel({ data }: { data: SettingsResponse }) {
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

/** System, light or dark. */
export function ThemePanel() {
  return (
    <Panel title="Appearance">
      <ThemeToggle testIdPrefix="settings-theme" />
      <p className="muted note-small">System follows the operating system’s light or dark mode as it changes. Remembered on this computer.</p>
    </Panel>
  );
}
