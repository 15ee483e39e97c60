import { z } from 'zod';

export const HealthSchema = z.object({
  status: z.literal('ok'),
  version: z.string().optional(),
  auth: z.enum(['enabled', 'disabled', 'unconfigured']).optional(),
});
export type Health = z.infer<typeof HealthSchema>;
