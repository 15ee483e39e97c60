import { z } from 'zod';
import type { TagAccuracy } from '../../shared/sweeps';

/**
 * What a sweep reads of its jobs' results: narrow schemas of only the fields it needs, so the
 * sweep does not depend on the rest of the `suite` and `serving-benchmark` result records. The
 * money figures are the sweep's own: the jobs ran on the sweep's machine as an existing backend,
 * so they cost nothing themselves; the cell's cost is the machine's $/h × the time it held it.
 */

const SuiteFiguresSchema = z.object({
  summary: z.object({
    accuracy: z.number().min(0).max(1),
    passed: z.number().int().nonnegative(),
    total: z.number().int().nonnegative(),
  }),
  scenarios: z
    .array(
      z.object({
        scenario_id: z.string(),
        passed: z.boolean(),
        tags: z.array(z.string()).optional(),
      }),
    )
    .optional(),
});

const LevelSchema = z.object({
  concurrency: z.number(),
  output_tokens_per_s: z.number().nonnegative(),
  ttft_ms: z.object({ p50: z.number().nonnegative() }).nullable().optional(),
  failed: z.number().optional(),
});
const ServingFiguresSchema = z.object({ levels: z.array(LevelSchema).min(1) });

export type SuiteFigures = { accuracy: number; passed: number; total: number; tags?: Record<string, TagAccuracy> };
export type ServingFigures = { output_tokens_per_s: number; ttft_p50_ms?: number; concurrency: number };

export class ResultShapeError extends Error {
  constructor(kind: string, issues: string) {
    super(`the ${kind} job's result does not have the figures a sweep reads (${issues})`);
    this.name = 'ResultShapeError';
  }
}

function issuesOf(err: z.ZodError): string {
  return err.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(result)'}: ${i.message}`)
    .join('; ');
}

/**
 * Accuracy, correct answers and, where the scenarios carry tags (their own, or the suite's through
 * `tagsOf`), accuracy per tag.
 */
export function readSuiteResult(result: unknown, tagsOf?: (scenarioId: string) => readonly string[] | undefined): SuiteFigures {
  const parsed = SuiteFiguresSchema.safeParse(result);
  if (!parsed.success) throw new ResultShapeError('suite', issuesOf(parsed.error));
  const { summary, scenarios } = parsed.data;
  const figures: SuiteFigures = { accuracy: summary.accuracy, passed: summary.passed, total: summary.total };
  const byTag = new Map<string, { passed: number; total: number }>();
  for (const s of scenarios ?? []) {
    for (const tag of s.tags ?? tagsOf?.(s.scenario_id) ?? []) {
      const t = byTag.get(tag) ?? { passed: 0, total: 0 };
      t.total++;
      if (s.passed) t.passed++;
      byTag.set(tag, t);
    }
  }
  if (byTag.size > 0) {
    figures.tags = Object.fromEntries([...byTag.entries()].map(([tag, t]) => [tag, { ...t, accuracy: t.total > 0 ? t.passed / t.total : 0 }]));
  }
  return figures;
}

/** The best level: the highest output tokens/s (its TTFT beside it). */
export function readServingResult(result: unknown): ServingFigures {
  const parsed = ServingFiguresSchema.safeParse(result);
  if (!parsed.success) throw new ResultShapeError('serving-benchmark', issuesOf(parsed.error));
  const best = parsed.data.levels.reduce((a, b) => (b.output_tokens_per_s > a.output_tokens_per_s ? b : a));
  return {
    output_tokens_per_s: best.output_tokens_per_s,
    concurrency: best.concurrency,
    ...(best.ttft_ms ? { ttft_p50_ms: best.ttft_ms.p50 } : {}),
  };
}

const round6 = (x: number): number => Math.round(x * 1_000_000) / 1_000_000;

/** $ per million output tokens on a machine at `dph` $/h: $/h ÷ (tokens/s × 3600) × 10⁶; undefined without throughput. */
export function usdPerMillionTokens(dph: number, outputTokensPerSecond: number): number | undefined {
  if (!(outputTokensPerSecond > 0)) return undefined;
  return round6((dph / (outputTokensPerSecond * 3600)) * 1_000_000);
}

/** The cell's cost over its correct answers; undefined with none correct. */
export function costPerCorrect(costUsd: number, passed: number): number | undefined {
  return passed > 0 ? round6(costUsd / passed) : undefined;
}
