import Store from 'electron-store';
import { desktopSettingsChange, readDesktopSettings, type DesktopSettings } from '../desktop/desktop-settings';
import { desktopStoreOptions } from '../desktop/store-options';

/**
 * electron-store on the data dir's settings.json: the same file, in the same conf format, that the
 * headless server's SettingsStore reads (src-main/app/settings.ts). This side writes only its own
 * keys (window_state, the encrypted marketplace key); every other key belongs to SettingsStore.
 * Both live in the main process and conf rewrites synchronously, so their writes cannot interleave.
 *
 * Job records are not kept here: every set() rewrites and fsyncs the whole file, which is fine for
 * a few settings and far too slow for thousands of jobs (the job store shards them instead).
 */
export class DesktopStore {
  private readonly store: Store<Record<string, unknown>>;

  constructor(
    dataDir: string,
    private readonly log: (message: string) => void,
  ) {
    this.store = new Store<Record<string, unknown>>(desktopStoreOptions(dataDir));
  }

  get path(): string {
    return this.store.path;
  }

  read(): DesktopSettings {
    const { settings, issues } = readDesktopSettings(this.store.store);
    for (const issue of issues) this.log(`settings.json: ignoring an invalid desktop entry (${issue})`);
    return settings;
  }

  /** Sets the given desktop keys; undefined or null removes one. */
  update(patch: { [K in keyof DesktopSettings]?: DesktopSettings[K] | null }): void {
    const change = desktopSettingsChange(patch);
    if (Object.keys(change.set).length > 0) this.store.set(change.set);
    for (const key of change.remove) this.store.delete(key);
  }
}
