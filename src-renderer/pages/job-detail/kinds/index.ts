import type { JobKind } from '../../../../shared';
import { AgentView } from './AgentView';
import { BenchmarkView } from './BenchmarkView';
import { LlmInstanceView } from './LlmInstanceView';
import { SuiteView } from './SuiteView';
import { ServingView } from './ServingView';
import type { KindView } from './types';

export type { KindView, KindViewProps } from './types';

/**
 * Each job kind's section of the job page. A new kind adds its view here (the type makes it
 * required); the page around it (summary, job and machine time, the machine with Release, the
 * event log, raw JSON, re-run) is the same for every kind.
 */
export const KIND_VIEWS: { readonly [K in JobKind]: KindView<K> } = {
  'agentic-agent': AgentView,
  benchmark: BenchmarkView,
  'llm-instance': LlmInstanceView,
  suite: SuiteView,
  'serving-benchmark': ServingView,
};
