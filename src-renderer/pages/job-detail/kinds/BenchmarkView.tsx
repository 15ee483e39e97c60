import { useMemo } from 'react';
import { useNow } from '../../../components/useNow';
import { Panel } from '../../../components/Page';
import { phaseBars, toolCalls } from '../phases';
import { AnswerVerdict } from '../AnswerVerdict';
import { AskedPanel } from '../AskedPanel';
import { AgentMetrics, AnswerPanel, Timeline, ToolCallsPanel } from '../parts';
import type { KindViewProps } from './types';

/** benchmark: what was asked and who answered, the phases (provision → warmup → analysis → teardown), then the answer. */
export function BenchmarkView({ job, events, terminal }: KindViewProps<'benchmark'>) {
  const now = useNow();
  const resultPhases = job.result?.phases ?? null;
  // Ticks only matter while a phase is open; after the job the bars are fixed.
  const bars = useMemo(() => phaseBars(events, resultPhases, terminal ? 0 : now), [events, resultPhases, terminal, now]);
  const calls = useMemo(() => toolCalls(events), [events]);
  const phases = <Panel title="Phases">{bars.length > 0 ? <Timeline bars={bars} /> : <p className="muted">{terminal ? 'No phase ran.' : 'No phase has started yet.'}</p>}</Panel>;
  // Ended before the agent answered anything: the phases and why, no empty token tiles.
  if (terminal && !job.result && calls.length === 0) {
    return (
      <>
        <AskedPanel job={job} />
        <div className="grid-2 job-kind-grid">
          {phases}
          <AnswerPanel answer={null} terminal succeeded={false} />
        </div>
      </>
    );
  }
  return (
    <>
      <div className="grid-2 job-kind-grid">
        <AskedPanel job={job} />
        {phases}
      </div>
      <Panel title="Tokens and speed">
        <AgentMetrics metadata={job.result?.metadata ?? null} />
      </Panel>
      <div className="grid-2 job-kind-grid">
        <AnswerPanel answer={job.result?.answer ?? null} terminal={terminal} succeeded={job.status === 'succeeded'}>
          <AnswerVerdict job={job} />
        </AnswerPanel>
        <ToolCallsPanel calls={calls} terminal={terminal} />
      </div>
    </>
  );
}
