import type { JobRecordOf } from '../../../shared';

/**
 * The place for the answer's structured verdict (design §12b: healthy or not, the causes with
 * their objects, the fix), shown under the answer of agent and benchmark jobs. The scores
 * engineer's parser (shared/scoring.ts) reads it from the answer; until it lands this shows
 * nothing, and the answer above stands alone.
 */
export function AnswerVerdict(_props: { job: JobRecordOf<'agentic-agent'> | JobRecordOf<'benchmark'> }) {
  return null;
}
