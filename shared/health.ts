import { z } from 'zod';
import { MarketplaceHealthSchema } from './instances';

export const HealthSchema = z.object({
  /** 'degraded': the API answers, but something needs attention (e.g. the data dir is full); see `reason`. */
  status: z.enum(['ok', 'degraded']),
  reason: z.string().optional(),
  version: z.string().optional(),
  auth: z.enum(['enabled', 'disabled', 'unconfigured']).optional(),
  /**
   * While auth is enabled, where the accepted tokens come from, so a sign-in screen can say where
   * to find one: `app_token` (the app's own token, its plaintext in the data dir's `api-token`
   * file) and/or `environment` (SERVICE_API_TOKENS). Never a token, a hash or a path.
   */
  token_sources: z.array(z.enum(['app_token', 'environment'])).optional(),
  /** Rented machines nobody is tracking, as the last orphan sweep found them (absent before the first sweep). */
  marketplace: MarketplaceHealthSchema.optional(),
});
export type Health = z.infer<typeof HealthSchema>;
