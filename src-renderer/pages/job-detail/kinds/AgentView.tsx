import { useMemo } from 'react';
import { Panel } from '../../../components/Page';
import { toolCalls } from '../phases';
import { AgentMetrics, AnswerPanel, ToolCallsPanel } from '../parts';
import type { KindViewProps } from './types';

/** agentic-agent: the answer, the tool calls the agent made, and its tokens. */
export function AgentView({ job, events, terminal }: KindViewProps<'agentic-agent'>) {
  const calls = useMemo(() => toolCalls(events), [events]);
  return (
    <>
      <Panel title="Tokens and speed">
        <AgentMetrics metadata={job.result?.metadata ?? null} />
      </Panel>
      <div className="grid-2 job-kind-grid">
        <AnswerPanel answer={job.result?.answer ?? null} terminal={terminal} succeeded={job.status === 'succeeded'} />
        <ToolCallsPanel calls={calls} terminal={terminal} />
      </div>
    </>
  );
}
