import { Page } from '../../components/Page';
import { ErrorState, Loading } from '../../components/States';
import { useSettings } from '../../queries/settings';
import '../overview/common.css';
import { ApiTokenPanel } from './ApiTokenPanel';
import { MarketplaceKeyPanel } from './MarketplaceKeyPanel';
import { PlacesPanel, ThemePanel } from './PlacesPanel';
import { SettingsForm } from './SettingsForm';
import './settings.css';

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
