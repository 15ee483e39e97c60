import { z } from 'zod';

/**
 * The cause taxonomy and a scenario's ground truth (design §12b), in a leaf module of their own:
 * the scoring worker reads them without the rest of the suite records. shared/suites.ts
 * re-exports them.
 */

/**
 * The taxonomy of causes (design §12b): one list for the ground truth of every scenario, the
 * built-in agent's structured verdict and the judge's. `none` is the healthy cluster's only cause.
 */
export const CAUSE_CATEGORIES = [
  'crash-loop',
  'bad-config',
  'image-pull',
  'oom-killed',
  'unschedulable-resources',
  'unschedulable-volume',
  'probe-failure',
  'service-no-endpoints',
  'network-policy',
  'dns',
  'node-pressure',
  'job-failure',
  'quota',
  'rbac',
  'none',
] as const;
export const CauseCategorySchema = z.enum(CAUSE_CATEGORIES);
export type CauseCategory = z.infer<typeof CauseCategorySchema>;

/** An object a cause names, as `kind/namespace/name` (`kind/name` for cluster-scoped ones, e.g. `node/ip-10-0-1-21`). */
export const ObjectRefSchema = z
  .string()
  .trim()
  .min(3)
  .max(400)
  .regex(/^[a-z][a-z0-9]*\/[^/\s]+(\/[^/\s]+)?$/, 'an object is written kind/namespace/name, or kind/name for a cluster-scoped one');

export const VerdictCauseSchema = z.object({ category: CauseCategorySchema, objects: z.array(ObjectRefSchema).max(20) }).strict();
export type VerdictCause = z.infer<typeof VerdictCauseSchema>;

/** A scenario's ground truth: healthy, or the causes a correct diagnosis names (all of them: two-cause scenarios need both). */
export const GroundTruthVerdictSchema = z
  .object({ healthy: z.boolean(), causes: z.array(VerdictCauseSchema).max(10) })
  .strict()
  .superRefine((v, ctx) => {
    if (v.healthy && v.causes.some((c) => c.category !== 'none')) ctx.addIssue({ code: 'custom', path: ['causes'], message: 'a healthy verdict names no cause (or only "none")' });
    if (!v.healthy && v.causes.length === 0) ctx.addIssue({ code: 'custom', path: ['causes'], message: 'an unhealthy verdict names at least one cause' });
  });
export type GroundTruthVerdict = z.infer<typeof GroundTruthVerdictSchema>;
