import { z } from 'zod';
import { MarketplaceHealthSchema } from './instances';

export const HealthSchema = z.object({
  /** 'degraded': the API answers, but something needs attention (e.g. the data dir is full); see `reason`. */
  status: z.enum(['ok', 'degraded']),
  reason: z.string().optional(),
  version: z.string().optional(),
  auth: z.enum(['enabled', 'disabled', 'unconfigured']).optional(),
  /** Rented machines nobody is tracking, as the last orphan sweep found them (absent before the first sweep). */
  marketplace: MarketplaceHealthSchema.optional(),
});
export type Health = z.infer<typeof HealthSchema>;
