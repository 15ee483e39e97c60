import { z } from 'zod';
import { ManifestSchema, type Manifest } from '../../shared/manifest';
import { wilsonInterval } from '../../shared/stats';
import type { SweepCell, TagAccuracy } from '../../shared/sweeps';
import { machineUsd } from '../lease/cost';
import type { SweepJobEnd, SweepJobKind } from './ports';

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
    errors: z.number().int().nonnegative().optional(),
    accuracy_ci95: z.array(z.number().min(0).max(1)).length(2).optional(),
  }),
  /** The suite job's phases: their durations are the suite's own time on the machine. */
  phases: z.array(z.object({ duration_ms: z.number().nonnegative() })).optional(),
  manifest: z.unknown().optional(),
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
  ttft_ms: z.object({ p50: z.number().nonnegative(), p99: z.number().nonnegative().optional() }).nullable().optional(),
  failed: z.number().optional(),
});
const ServingFiguresSchema = z.object({ levels: z.array(LevelSchema).min(1) });

export type SuiteFigures = {
  accuracy: number;
  accuracy_ci95: [number, number];
  passed: number;
  total: number;
  errors: number;
  /** The suite job's own time (the sum of its phases), seconds. */
  suite_seconds: number;
  tags?: Record<string, TagAccuracy>;
  manifest?: Manifest;
};
export type ServingFigures = { output_tokens_per_s: number; ttft_p50_ms?: number; ttft_p99_ms?: number; concurrency: number };

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
  const { summary, scenarios, phases } = parsed.data;
  const errors = summary.errors ?? 0;
  const ci = summary.accuracy_ci95 ?? wilsonInterval(summary.passed, summary.total - errors);
  const manifest = ManifestSchema.safeParse(parsed.data.manifest);
  const figures: SuiteFigures = {
    accuracy: summary.accuracy,
    accuracy_ci95: [ci[0] ?? 0, ci[1] ?? 1],
    passed: summary.passed,
    total: summary.total,
    errors,
    suite_seconds: (phases ?? []).reduce((sum, p) => sum + p.duration_ms, 0) / 1000,
    ...(manifest.success ? { manifest: manifest.data } : {}),
  };
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
    ...(best.ttft_ms?.p99 !== undefined ? { ttft_p99_ms: best.ttft_ms.p99 } : {}),
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

export type JobEndOf = { kind: SweepJobKind; end: SweepJobEnd };

function endFailure(kind: SweepJobKind, end: SweepJobEnd): string {
  return `the ${kind} job ${end.status}${end.error ? `: ${end.error}` : ''}`;
}

/**
 * A cell's figures from its jobs' ends (design §12b): the suite's accuracy with its interval, its
 * errors, and $ per correct answer from the suite's own time on the machine (the serving
 * benchmark's time is reported apart); the serving figures. A serving job that fails after the
 * suite succeeded leaves the suite figures standing, with `serving_error`; a failed suite (or a
 * failed serving job in a serving-only sweep) fails the cell.
 */
/**
 * A cell's figures from its jobs' ends. $ per correct answer divides the suite's own cost: the
 * machine's $/h × the suite job's time (the serving benchmark's time is reported apart), plus the
 * model's download, which the cell paid for whatever it ran (design §12b and §15).
 */
export function cellOutcome(ends: readonly JobEndOf[], opts: { dph: number; downloadUsd?: number; tagsOf?: ((scenarioId: string) => readonly string[] | undefined) | undefined }): { figures: Partial<SweepCell>; failure: string | null } {
  const figures: Partial<SweepCell> = opts.downloadUsd ? { download_usd: round6(opts.downloadUsd) } : {};
  const suite = ends.find((e) => e.kind === 'suite');
  if (suite) {
    if (suite.end.status !== 'succeeded') return { figures, failure: endFailure('suite', suite.end) };
    let s: SuiteFigures;
    try {
      s = readSuiteResult(suite.end.result, opts.tagsOf);
    } catch (err) {
      return { figures, failure: err instanceof Error ? err.message : String(err) };
    }
    const suiteCost = round6(machineUsd(opts.dph, 0, s.suite_seconds * 1000) + (opts.downloadUsd ?? 0));
    const perCorrect = costPerCorrect(suiteCost, s.passed);
    Object.assign(figures, {
      accuracy: s.accuracy,
      accuracy_ci95: s.accuracy_ci95,
      passed: s.passed,
      total: s.total,
      errors: s.errors,
      suite_cost_usd: suiteCost,
      ...(perCorrect !== undefined ? { cost_per_correct_usd: perCorrect } : {}),
      ...(s.tags ? { tags: s.tags } : {}),
      ...(s.manifest ? { manifest: s.manifest } : {}),
    });
  }
  const serving = ends.find((e) => e.kind === 'serving-benchmark');
  if (serving) {
    let problem: string | null = serving.end.status === 'succeeded' ? null : endFailure('serving-benchmark', serving.end);
    if (problem === null) {
      try {
        const v = readServingResult(serving.end.result);
        const perMillion = usdPerMillionTokens(opts.dph, v.output_tokens_per_s);
        Object.assign(figures, {
          output_tokens_per_s: v.output_tokens_per_s,
          ...(v.ttft_p50_ms !== undefined ? { ttft_p50_ms: v.ttft_p50_ms } : {}),
          ...(v.ttft_p99_ms !== undefined ? { ttft_p99_ms: v.ttft_p99_ms } : {}),
          ...(perMillion !== undefined ? { usd_per_million_output_tokens: perMillion } : {}),
        });
      } catch (err) {
        problem = err instanceof Error ? err.message : String(err);
      }
    }
    if (problem !== null) {
      if (!suite) return { figures, failure: problem };
      figures.serving_error = problem;
    }
  }
  return { figures, failure: null };
}
