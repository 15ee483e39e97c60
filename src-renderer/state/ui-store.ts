import { create } from 'zustand';
import { createJSONStorage, persist } from 'zustand/middleware';
import type { JobKind } from '../../shared';
import type { LaunchDraft } from '../pages/launch/launch-form';
import type { OptionalColumn } from '../pages/jobs/job-columns';

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
  /** The kind the Launch page shows. */
  launchKind: JobKind;
  setLaunchKind(kind: JobKind): void;
  /**
   * Fields another page hands to Launch ("Launch on this" on an estimate, "Edit and re-run" on a
   * job): applied over the saved defaults when the Launch page next opens, then cleared.
   */
  launchPrefill: { kind: JobKind; patch: Partial<LaunchDraft>; from: string; merge?: boolean } | null;
  /** `merge`: over the kind's own draft (a kind switch), else over the saved defaults. */
  prefillLaunch(kind: JobKind, patch: Partial<LaunchDraft>, from: string, merge?: boolean): void;
  clearLaunchPrefill(): void;
  /** The suite Launch's Suite kind opens with (a snapshot's page or a suite run hands it over). */
  /** The Jobs list's optional columns the user chose; null = by window width. */
  jobColumns: OptionalColumn[] | null;
  setJobColumns(columns: OptionalColumn[] | null): void;
  launchSuite: { suiteId: string; request: Record<string, unknown> | null; from: string } | null;
  /** Opens Launch on the Suite kind with this suite (and, for "Edit and re-run", the run's request). */
  prefillSuiteLaunch(suiteId: string, request: Record<string, unknown> | null, from: string): void;
  clearSuiteLaunch(): void;
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
      launchKind: 'benchmark',
      setLaunchKind: (launchKind) => set({ launchKind }),
      launchPrefill: null,
      prefillLaunch: (kind, patch, from, merge = false) => set({ launchPrefill: { kind, patch, from, merge }, launchKind: kind }),
      clearLaunchPrefill: () => set({ launchPrefill: null }),
      jobColumns: null,
      setJobColumns: (jobColumns) => set({ jobColumns }),
      launchSuite: null,
      prefillSuiteLaunch: (suiteId, request, from) => set({ launchSuite: { suiteId, request, from }, launchKind: 'suite' }),
      clearSuiteLaunch: () => set({ launchSuite: null }),
    }),
    {
      name: THEME_STORAGE_KEY,
      storage: createJSONStorage(() => localStorage),
      // The theme and the chosen columns outlive the session; form drafts are per run of the app.
      partialize: (s) => ({ theme: s.theme, jobColumns: s.jobColumns }),
    },
  ),
);
