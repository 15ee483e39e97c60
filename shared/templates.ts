import { z } from 'zod';

/**
 * Marketplace templates (GET /v1/marketplace/templates): what a rented machine runs. A job names
 * one by its content hash (`template_hash`); people know them by name, so the Launch form picks
 * by name and shows the hash small.
 */

/** A template's content hash as the marketplace writes it (the same rule as a request's template_hash). */
export const TEMPLATE_HASH_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

export const TemplateSearchQuerySchema = z
  .object({
    /** A name (case-insensitive: exact or part of it) or a content hash; absent: the recommended templates. */
    q: z.string().trim().max(200).optional().describe('a template name (or part of it) or a hash; absent: the recommended templates'),
  })
  .strict();
export type TemplateSearchQuery = z.infer<typeof TemplateSearchQuerySchema>;

export const MarketplaceTemplateEntrySchema = z.object({
  hash_id: z.string(),
  name: z.string().nullable(),
  image: z.string().nullable(),
  tag: z.string().nullable(),
  /** On the marketplace's recommended list. */
  recommended: z.boolean(),
  /** Instances created from it (its popularity), when the marketplace says. */
  count_created: z.number().nullable(),
  recommended_disk_space: z.number().nullable().describe('GB'),
});
export type MarketplaceTemplateEntry = z.infer<typeof MarketplaceTemplateEntrySchema>;

export const MarketplaceTemplateListSchema = z.object({
  /** Exact hash matches first, then by name, most used first. */
  templates: z.array(MarketplaceTemplateEntrySchema),
  /** Why the list is empty when it cannot be read (no marketplace key); null otherwise. */
  note: z.string().nullable(),
});
export type MarketplaceTemplateList = z.infer<typeof MarketplaceTemplateListSchema>;
