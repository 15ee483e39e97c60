import { useMemo } from 'react';
import { Panel } from '../../../components/Page';
import { toolCalls } from '../phases';
import { AnswerVerdict } from '../AnswerVerdict';
import { AskedPanel } from '../AskedPanel';
import { AgentMetrics, AnswerPanel, ToolCallsPanel } from '../parts';
import type { KindViewProps } from './types';

/** agentic-agent: what was asked and who answered, the answer, the tool calls the agent made, and its tokens. */
export function AgentView({ job, events, terminal }: KindViewProps<'agentic-agent'>) {
  const calls = useMemo(() => toolCalls(events), [events]);
  return (
    <>
      <div className="grid-2 job-kind-grid">
        <AskedPanel job={job} />
        <Panel title="Tokens and speed">
          <AgentMetrics metadata={job.result?.metadata ?? null} />
        </Panel>
      </div>
      <div className="grid-2 job-kind-grid">
        <AnswerPanel answer={job.result?.answer ?? null} terminal={terminal} succeeded={job.status === 'succeeded'}>
          <AnswerVerdict job={job} />
        </AnswerPanel>
        <ToolCallsPanel calls={calls} terminal={terminal} />
      </div>
    </>
  );
}
