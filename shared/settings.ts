import { z } from 'zod';

/**
 * The user-editable settings (Settings page, `POST /v1/settings`). They live in the data dir's
 * `settings.json` (conf / electron-store format) next to the keys the server manages itself (the
 * API token's hash, extra catalog models, drivers), so the desktop app, the headless server and the
 * CLI read one file.
 */

const AgentNameSchema = z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'lowercase letters, digits, - and _').max(64);
const HttpUrlSchema = z
  .string()
  .trim()
  .max(2048)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'an http(s) URL, e.g. http://127.0.0.1:11434');
const DollarsSchema = z.number().finite().nonnegative().max(1_000_000);

export const AppSettingsSchema = z.object({
  /** The llmserver backend the Models page lists and the Launch forms pre-fill. */
  default_backend_url: HttpUrlSchema.nullable(),
  /** Kubeconfig path the Launch forms pre-fill (the server's own default is KUBECONFIG). */
  default_kubeconfig: z.string().trim().min(1).max(4096).nullable(),
  /** Agent the Launch forms pre-select. */
  default_agent: AgentNameSchema.nullable(),
  /** Jobs running at once; the rest wait `queued`. */
  concurrency: z.number().int().min(1).max(256),
  /** Launches whose expected cost reaches this (USD) ask for confirmation; 0 = always ask. */
  spend_confirm_threshold_usd: DollarsSchema,
  /** Per-job cost limit (USD) used when a request has no `max_cost_usd`; null = no limit. */
  default_max_cost_usd: DollarsSchema.positive().nullable(),
  /** Release orphaned marketplace machines without asking. */
  release_orphans_automatically: z.boolean(),
});
export type AppSettings = z.infer<typeof AppSettingsSchema>;
export type AppSettingKey = keyof AppSettings;
export const APP_SETTING_KEYS = Object.keys(AppSettingsSchema.shape) as AppSettingKey[];

export const APP_SETTINGS_DEFAULTS: AppSettings = {
  default_backend_url: null,
  default_kubeconfig: null,
  default_agent: null,
  concurrency: 4,
  spend_confirm_threshold_usd: 0,
  default_max_cost_usd: null,
  release_orphans_automatically: false,
};

/**
 * When a change takes effect: `now` = the server applies it at once; `clients` = read by the app's
 * forms when they next need it (the server keeps no state for it); `restart` = read at start-up only.
 */
export const SettingEffectSchema = z.enum(['now', 'clients', 'restart']);
export type SettingEffect = z.infer<typeof SettingEffectSchema>;

export const SETTING_EFFECTS: Readonly<Record<AppSettingKey, SettingEffect>> = {
  default_backend_url: 'clients',
  default_kubeconfig: 'clients',
  default_agent: 'clients',
  concurrency: 'now',
  spend_confirm_threshold_usd: 'clients',
  default_max_cost_usd: 'now',
  release_orphans_automatically: 'now',
};

/** A partial update: only the named fields change; null clears an optional one. Unknown keys → 422. */
export const SettingsUpdateSchema = AppSettingsSchema.partial().strict();
export type SettingsUpdate = z.input<typeof SettingsUpdateSchema>;

export const SettingSourceSchema = z.enum(['default', 'settings', 'env']);

export const MarketplaceKeySourceSchema = z.enum(['env', 'app']);
export const MarketplaceKeyStatusSchema = z.object({
  configured: z.boolean(),
  /** `env` = VAST_API_KEY of the server; `app` = stored encrypted by the desktop app. */
  source: MarketplaceKeySourceSchema.nullable(),
  /** The last four characters of the key in use (never more; null for tenants other than the app's). */
  hint: z.string().nullable(),
  /** VAST_API_KEY is set (it takes over when the app's key is cleared). */
  environment_key: z.boolean(),
  api_url: z.string(),
  /** Whether this process can store a key (the desktop app, with safeStorage). */
  can_store: z.boolean(),
});
export type MarketplaceKeyStatusInfo = z.infer<typeof MarketplaceKeyStatusSchema>;

export const SettingsResponseSchema = z.object({
  settings: AppSettingsSchema,
  /**
   * Who is asking and whether they may change anything: only the app's own tenant (`default`) may
   * change settings, set or test the marketplace key and see or rotate the app token. Other tenants
   * read the settings without the key's hint.
   */
  access: z.object({ tenant_id: z.string(), can_change: z.boolean() }),
  /** Where each value comes from; `env` means an environment variable overrides the file. */
  sources: z.record(z.string(), SettingSourceSchema),
  effects: z.record(z.string(), SettingEffectSchema),
  /** Keys whose saved value the running server does not use yet (restart to apply). */
  restart_required: z.array(z.string()),
  environment: z.object({
    data_dir: z.string(),
    settings_file: z.string(),
    api_url: z.string(),
    api_host: z.string(),
    api_port: z.number().int(),
    auth: z.enum(['enabled', 'disabled', 'unconfigured']),
    marketplace_key: MarketplaceKeyStatusSchema,
    kubeconfig_env: z.string(),
  }),
});
export type SettingsResponse = z.infer<typeof SettingsResponseSchema>;

export const UpdateSettingsResponseSchema = SettingsResponseSchema.extend({
  /** The keys whose value changed with this update. */
  changed: z.array(z.string()),
});
export type UpdateSettingsResponse = z.infer<typeof UpdateSettingsResponseSchema>;

export const ApiTokenResponseSchema = z.object({
  /** The app token in plaintext; null when there is none (tokens then come from SERVICE_API_TOKENS). */
  token: z.string().nullable(),
  tenant_id: z.string(),
  /** The 0600 file the CLI reads. */
  file: z.string(),
  /** Tokens configured in the environment (SERVICE_API_TOKENS) keep working across a rotation. */
  env_tokens: z.boolean(),
  rotated_at: z.string().nullable(),
});
export type ApiTokenResponse = z.infer<typeof ApiTokenResponseSchema>;

export const MarketplaceKeyTestInputSchema = z
  .object({ /** A candidate key to check before saving it; absent = the key in use. */ key: z.string().max(512).optional() })
  .strict();
export const MarketplaceKeyTestResponseSchema = z.object({
  ok: z.boolean(),
  /** Where the tested key comes from; null for a candidate key or when there is none. */
  source: MarketplaceKeySourceSchema.nullable(),
  /** The account the key belongs to, when the marketplace answered. */
  account: z
    .object({ id: z.number().nullable(), username: z.string().nullable(), email: z.string().nullable(), credit: z.number().nullable(), balance: z.number().nullable() })
    .nullable(),
  message: z.string(),
});
export type MarketplaceKeyTestResponse = z.infer<typeof MarketplaceKeyTestResponseSchema>;

export const SetMarketplaceKeyInputSchema = z.object({ key: z.string().trim().max(512).nullable() }).strict();

export const SpendBucketSchema = z.object({
  cost_usd: z.number().nonnegative(),
  /** Rented machines (a job's, a kept llm-instance's, a sweep's) that contributed a cost; the name is older than the ledger. */
  jobs: z.number().int().nonnegative().describe("rented machines (a job's, a kept machine's, a sweep's) that contributed a cost"),
});
export const SpendSummarySchema = z.object({
  tenant_id: z.string(),
  /** Local-day and local-month boundaries are the server's time zone, as RFC 3339. */
  today: SpendBucketSchema.extend({ since: z.string() }),
  this_month: SpendBucketSchema.extend({ since: z.string() }),
  /** By the kind of job that rented the machine (`benchmark`, `llm-instance`, `suite`…) or `sweep`. */
  by_kind: z.record(z.string(), SpendBucketSchema).describe('by the kind of job that rented the machine, or `sweep`'),
  /** Rented machines still billing for this tenant (kept ones and those whose release is not confirmed yet included), cost so far included above. */
  running: SpendBucketSchema.extend({ dph_total: z.number().nonnegative() }),
  computed_at: z.string(),
});
export type SpendSummary = z.infer<typeof SpendSummarySchema>;
