import { AgenticAgentResultSchema, BenchmarkResultSchema, LlmInstanceResultSchema, SuiteResultSchema, type AgenticAgentResult, type BenchmarkResult, type LlmInstanceResult, type SuiteResult } from './results';
import { ServingBenchmarkResultSchema, type ServingBenchmarkResult } from './serving-results';

/** The `result` schema of each job kind (design §4, §12, §13). */
export const JOB_RESULT_SCHEMAS = {
  'agentic-agent': AgenticAgentResultSchema,
  benchmark: BenchmarkResultSchema,
  'llm-instance': LlmInstanceResultSchema,
  suite: SuiteResultSchema,
  'serving-benchmark': ServingBenchmarkResultSchema,
} as const;

export type JobResultByKind = {
  'agentic-agent': AgenticAgentResult;
  benchmark: BenchmarkResult;
  'llm-instance': LlmInstanceResult;
  suite: SuiteResult;
  'serving-benchmark': ServingBenchmarkResult;
};
