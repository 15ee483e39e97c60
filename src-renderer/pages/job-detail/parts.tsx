import type { ReactNode } from 'react';
import Markdown from 'react-markdown';
import rehypeSanitize from 'rehype-sanitize';
import type { AgentMetadata } from '../../../shared';
import { Duration } from '../../components/Format';
import { Panel, Stat } from '../../components/Page';
import { formatCount, formatDuration, formatRate } from '../../lib/format';
import type { PhaseBar, ToolCall } from './phases';

export function Timeline({ bars }: { bars: PhaseBar[] }) {
  const total = Math.max(1, ...bars.map((b) => b.offsetMs + b.durationMs));
  return (
    <div className="timeline" data-testid="phase-timeline">
      {bars.map((b) => (
        <div className="tl-row" key={b.name} data-phase={b.name} data-status={b.status}>
          <span>{b.name}</span>
          <div className="tl-track" aria-hidden="true">
            <div className={`tl-bar ${b.status}`} style={{ left: `${(b.offsetMs / total) * 100}%`, width: `${(b.durationMs / total) * 100}%` }} />
          </div>
          <span className="num right">
            {b.status === 'skipped' ? <span className="muted">skipped</span> : formatDuration(b.durationMs)}
            {b.status === 'running' ? <span className="spinner" aria-label="running" style={{ marginLeft: 6 }} /> : null}
            {b.status === 'error' ? <span className="badge badge-error" style={{ marginLeft: 6 }}>error</span> : null}
          </span>
        </div>
      ))}
    </div>
  );
}

export function ToolCalls({ calls, terminal }: { calls: readonly ToolCall[]; terminal: boolean }) {
  if (calls.length === 0) return <p className="muted">{terminal ? 'The agent called no tool.' : 'No tool calls yet.'}</p>;
  return (
    <div data-testid="tool-calls">
      {calls.map((c) => (
        <details key={c.seq} className="tool-call">
          <summary>
            <span className={`badge ${c.ok ? 'badge-ok' : 'badge-error'}`}>{c.ok ? 'ok' : 'error'}</span>
            <code>{c.tool}</code>
            {c.step !== null ? <span className="muted">step {c.step}</span> : null}
            <span className="muted num" style={{ marginLeft: 'auto' }}>
              {formatDuration(c.durationMs)}
              {c.resultChars !== null ? ` · ${formatCount(c.resultChars, 'character')}` : ''}
            </span>
          </summary>
          <pre>{c.args ? `arguments: ${c.args}` : 'no arguments'}</pre>
          {c.error ? <pre className="field-error">{c.error}</pre> : null}
        </details>
      ))}
    </div>
  );
}

export function ToolCallsPanel({ calls, terminal }: { calls: readonly ToolCall[]; terminal: boolean }) {
  return (
    <Panel title={formatCount(calls.length, 'tool call')} testId="tool-calls-panel">
      <div className="tool-calls-scroll">
        <ToolCalls calls={calls} terminal={terminal} />
      </div>
    </Panel>
  );
}

/** What the agent said and what it took: tokens, speed, rounds, tool calls, time. */
export function AgentMetrics({ metadata }: { metadata: AgentMetadata | null }) {
  const m = metadata;
  return (
    <div className="stats metric-grid" data-testid="job-metrics">
      <Stat label="Tokens/s" value={formatRate(m?.tokens_per_second)} />
      <Stat label="Prompt tokens" value={formatCount(m?.prompt_tokens)} />
      <Stat label="Completion tokens" value={formatCount(m?.completion_tokens)} />
      <Stat label="Steps" value={formatCount(m?.steps)} hint={m?.tool_calls !== null && m?.tool_calls !== undefined ? formatCount(m.tool_calls, 'tool call') : undefined} />
      <Stat label="Agent time" value={<Duration ms={m?.duration_ms ?? null} />} />
    </div>
  );
}

/** The agent's answer as sanitised Markdown; `children` follow it (the structured verdict's place). */
export function AnswerPanel({ answer, terminal, succeeded, children }: { answer: string | null; terminal: boolean; succeeded: boolean; children?: ReactNode }) {
  if (answer) {
    return (
      <Panel title="Answer" testId="job-answer">
        <div className="markdown" data-testid="job-answer-text">
          <Markdown rehypePlugins={[rehypeSanitize]}>{answer}</Markdown>
        </div>
        {children}
      </Panel>
    );
  }
  return (
    <Panel title="Answer" testId="job-no-answer">
      <p className="muted">{!terminal ? 'The answer appears here when the agent finishes.' : succeeded ? 'The agent gave no answer.' : 'No answer: the job did not succeed.'}</p>
    </Panel>
  );
}
