import type { AppSettingKey, FieldVocabulary, SettingsResponse, SettingsUpdate } from '../../../shared';

/** The Settings form as typed: strings for numbers, so half-typed input survives. */
export type Draft = {
  default_backend_url: string;
  default_kubeconfig: string;
  default_agent: string;
  concurrency: string;
  spend_confirm_threshold_usd: string;
  default_max_cost_usd: string;
  release_orphans_automatically: boolean;
};

export function draftOf(s: SettingsResponse['settings']): Draft {
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
