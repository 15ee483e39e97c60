import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import type { JobKind } from '../../shared';
import type { LaunchDraft } from '../pages/launch/launch-form';

/** UI-only state. Server data lives in react-query, never here. */

export type ThemePreference = 'system' | 'light' | 'dark';

/** The Estimate form as typed (strings, so a half-typed number survives a page change). */
export type EstimateForm = {
  model: string;
  min_dph: string;
  max_dph: string;
  /** A percentage 0–100, as the CLI takes it; sent as a fraction. */
  reliability_pct: string;
  hours: string;
};

export const DEFAULT_ESTIMATE_FORM: EstimateForm = { model: '', min_dph: '0', max_dph: '2', reliability_pct: '99', hours: '1' };

interface UiState {
  theme: ThemePreference;
  setTheme(theme: ThemePreference): void;
  estimate: EstimateForm;
  setEstimate(patch: Partial<EstimateForm>): void;
  /** Launch form drafts by kind, kept while moving between pages. */
  launchDrafts: Partial<Record<JobKind, LaunchDraft>>;
  setLaunchDraft(kind: JobKind, draft: LaunchDraft): void;
}

export const THEME_STORAGE_KEY = 'benchdesk.ui';

export const useUiStore = create<UiState>()(
  persist(
    (set) => ({
      theme: 'system',
      setTheme: (theme) => set({ theme }),
      estimate: DEFAULT_ESTIMATE_FORM,
      setEstimate: (patch) => set((s) => ({ estimate: { ...s.estimate, ...patch } })),
      launchDrafts: {},
      setLaunchDraft: (kind, draft) => set((s) => ({ launchDrafts: { ...s.launchDrafts, [kind]: draft } })),
    }),
    {
      name: THEME_STORAGE_KEY,
      storage: createJSONStorage(() => localStorage),
      // Only the theme outlives the session; form drafts are per run of the app.
      partialize: (s) => ({ theme: s.theme }),
    },
  ),
);
