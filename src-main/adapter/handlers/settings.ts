import path from 'node:path';
import { ZodError } from 'zod';
import {
  APP_SETTING_KEYS,
  APP_TENANT_ID,
  SETTING_EFFECTS,
  type ApiTokenResponse,
  type AppSettingKey,
  type Health,
  type MarketplaceKeyStatusInfo,
  type MarketplaceKeyTestResponse,
  type SettingsResponse,
} from '../../../shared';
import type { Config } from '../../app/config';
import { ProblemError } from '../../app/problem-error';
import { API_TOKEN_FILE, sha256Hex, type SettingsStore } from '../../app/settings';
import { normaliseMarketplaceKey, type MarketplaceKeyHolder } from '../../app/marketplace-key';
import { MarketplaceAuthError, MarketplaceError } from '../../marketplace/errors';
import { VastClient } from '../../marketplace/vast-client';
import { isOutOfSpace } from '../../store/atomic-file';
import { InsufficientStorageError } from '../../store/types';
import { parseInput } from '../parse-input';
import type { OperationHandlers } from '../types';

/** What token rotation needs of the API's authenticator (api/auth.ts implements it). */
export type TokenAuthority = {
  readonly mode: NonNullable<Health['auth']>;
  replaceHashedToken(tenantId: string, previousSha256Hex: string | undefined, nextSha256Hex: string): void;
};

export type SettingsHandlerDeps = {
  settings: SettingsStore;
  auth: TokenAuthority;
  config: Config;
  env: NodeJS.ProcessEnv;
  /** Applies a new concurrency limit to the running engine. */
  setConcurrency(limit: number): void;
  /** The address the API listens on (known once it listens). */
  apiAddress(): { url: string; host: string; port: number };
  /** The key in use; in the desktop app it can also store one (encrypted with safeStorage). */
  marketplaceKey: Pick<MarketplaceKeyHolder, 'state' | 'client' | 'canStore' | 'store'>;
  /** Told the new plaintext token after a rotation (the desktop app keeps it for its window). */
  onTokenRotated?: (token: string) => void;
};

type SettingsOperation = 'getSettings' | 'updateSettings' | 'getApiToken' | 'rotateApiToken' | 'testMarketplaceKey' | 'setMarketplaceKey';

/** The app token's tenant: the desktop app and the CLI act as `default`. */
const APP_TENANT = APP_TENANT_ID;

export function settingsHandlers(deps: SettingsHandlerDeps): Pick<OperationHandlers, SettingsOperation> {
  const concurrencyFromEnv = Boolean(deps.env.BENCHDESK_CONCURRENCY?.trim());

  const keyStatus = (isApp: boolean): MarketplaceKeyStatusInfo => {
    const state = deps.marketplaceKey.state();
    // Even four characters of the key are the app's: other tenants learn only whether one is set.
    return { ...state, hint: isApp ? state.hint : null, api_url: deps.config.marketplaceApiUrl, can_store: isApp && deps.marketplaceKey.canStore };
  };

  /** The Settings page's view; `tenantId` decides what of the key it shows and whether it may change anything. */
  const describe = (tenantId: string = APP_TENANT): SettingsResponse => {
    const isApp = tenantId === APP_TENANT;
    const stored = new Set(deps.settings.storedAppKeys());
    const sources: Record<string, 'default' | 'settings' | 'env'> = {};
    for (const key of APP_SETTING_KEYS) sources[key] = stored.has(key) ? 'settings' : 'default';
    if (concurrencyFromEnv) sources.concurrency = 'env';
    const api = deps.apiAddress();
    return {
      settings: deps.settings.appSettings(),
      access: { tenant_id: tenantId, can_change: isApp },
      sources,
      effects: { ...SETTING_EFFECTS },
      // Every setting applies without a restart today (SETTING_EFFECTS has no 'restart' key).
      restart_required: [],
      environment: {
        data_dir: deps.config.dataDir,
        settings_file: deps.settings.filePath,
        api_url: api.url,
        api_host: api.host,
        api_port: api.port,
        auth: deps.auth.mode,
        marketplace_key: keyStatus(isApp),
        kubeconfig_env: deps.config.kubeconfig,
      },
    };
  };

  const tokenFile = path.join(deps.config.dataDir, API_TOKEN_FILE);
  const envTokens = Boolean(deps.config.apiTokens?.trim());

  return {
    async getSettings(ctx, input) {
      parseInput('getSettings', input);
      return describe(ctx.tenantId);
    },

    async updateSettings(_ctx, input) {
      const patch = parseInput('updateSettings', input);
      let changed: AppSettingKey[];
      try {
        changed = deps.settings.updateAppSettings(patch).changed;
      } catch (err) {
        if (err instanceof ZodError) throw ProblemError.validation(err.issues, 'settings');
        throw err;
      }
      // Applied at once: the engine's limit (unless the environment pins it).
      if (changed.includes('concurrency') && !concurrencyFromEnv) deps.setConcurrency(deps.settings.appSettings().concurrency);
      return { ...describe(), changed };
    },

    // The app-tenant operations below are refused for other tenants before they run (app-tenant.ts).
    async getApiToken(_ctx, input) {
      parseInput('getApiToken', input);
      return tokenAnswer(await deps.settings.readApiToken());
    },

    async rotateApiToken(_ctx, input) {
      parseInput('rotateApiToken', input);
      // The old hash is dropped before this answer leaves: the next request with it gets 401.
      // Inside the rotation's turn, so concurrent rotations swap hashes in the order they wrote files.
      const token = await deps.settings.rotateApiToken((previous, next) => deps.auth.replaceHashedToken(APP_TENANT, previous, sha256Hex(next)));
      deps.onTokenRotated?.(token);
      return tokenAnswer(token);
    },

    async testMarketplaceKey(ctx, input) {
      const { key } = parseInput('testMarketplaceKey', input) ?? {};
      const state = deps.marketplaceKey.state();
      let client: VastClient | null;
      if (key !== undefined) {
        // A candidate key, checked before it is saved; it is not kept.
        client = new VastClient({ baseUrl: deps.config.marketplaceApiUrl, apiKey: normaliseMarketplaceKey(key) });
      } else {
        client = deps.marketplaceKey.client();
      }
      if (!client) {
        return {
          ok: false,
          source: null,
          account: null,
          message: deps.marketplaceKey.canStore
            ? 'No marketplace key is set. Paste your Vast.ai API key (console.vast.ai → Account → API keys), test it and save it.'
            : 'No marketplace key: set VAST_API_KEY in the environment of the benchdesk server and restart it.',
        } satisfies MarketplaceKeyTestResponse;
      }
      const source = key === undefined ? state.source : null;
      try {
        const user = await client.currentUser(ctx.signal ? { signal: ctx.signal } : {});
        return {
          ok: true,
          source,
          account: { id: user.id, username: user.username ?? null, email: user.email ?? null, credit: user.credit ?? null, balance: user.balance ?? null },
          message: `The marketplace accepted the key${user.username ? ` (account ${user.username})` : ''}.`,
        } satisfies MarketplaceKeyTestResponse;
      } catch (err) {
        if (err instanceof MarketplaceAuthError) return { ok: false, source, account: null, message: `The marketplace rejected the key: ${err.message}` };
        if (err instanceof MarketplaceError) return { ok: false, source, account: null, message: `Could not check the key: ${err.message}` };
        throw err;
      }
    },

    async setMarketplaceKey(_ctx, input) {
      const { key } = parseInput('setMarketplaceKey', input);
      // 409 headless (the key comes from VAST_API_KEY); in the app the new key is used at once:
      // the next estimate or job takes it, running jobs keep theirs.
      try {
        await deps.marketplaceKey.store(key && key.length > 0 ? key : null);
      } catch (err) {
        // The desktop app keeps the key in its data dir too: a full disk is a 507, not an internal error.
        if (isOutOfSpace(err)) throw new InsufficientStorageError(deps.config.dataDir, err);
        throw err;
      }
      return describe();
    },
  };

  function tokenAnswer(token: string | undefined): ApiTokenResponse {
    return {
      token: token ?? null,
      tenant_id: APP_TENANT,
      file: tokenFile,
      env_tokens: envTokens,
      rotated_at: deps.settings.read().api_token_rotated_at ?? null,
    };
  }
}
