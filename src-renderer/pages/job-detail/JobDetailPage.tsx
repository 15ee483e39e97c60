import { useMemo, useRef, useState } from 'react';
import Markdown from 'react-markdown';
import rehypeSanitize from 'rehype-sanitize';
import { Link, useLocation } from 'wouter';
import { isTerminal, type AgentMetadata, type CreateJobInput, type JobRecord } from '../../../shared';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { CopyButton } from '../../components/CopyButton';
import { Duration, Money, RelativeTime, RunningCost } from '../../components/Format';
import { Page, Panel, Stat } from '../../components/Page';
import { EmptyState, ErrorState, Loading, Notice } from '../../components/States';
import { StatusBadge } from '../../components/StatusBadge';
import { useNow } from '../../components/useNow';
import { formatCount, formatDph, formatDuration, formatGpus, formatMb, formatRate } from '../../lib/format';
import { jobBackend, jobCost, jobModel, KIND_LABELS } from '../../lib/job';
import { useJobEventStream } from '../../queries/job-events';
import { useCancelJob, useCreateJob, useJob } from '../../queries/jobs';
import { jobPath, ROUTES } from '../../router/routes';
import { useJobStream } from '../../state/event-stream';
import { EventLog } from './EventLog';
import { FailureNotice } from './FailureNotice';
import { phaseBars, toolCalls, type PhaseBar } from './phases';

function rentsMachine(job: JobRecord): boolean {
  return job.kind !== 'agentic-agent' && job.request.marketplace;
}

/** The instance a job rented, from its result or its recorded resources. */
function instanceOf(job: JobRecord): { id: number; gpu: string | null; released: boolean | null } | null {
  if (job.kind === 'benchmark' && job.result?.instance) {
    const i = job.result.instance;
    return { id: i.id, gpu: i.gpu_name ? formatGpus(i.num_gpus ?? 1, i.gpu_name) : null, released: i.released };
  }
  if (job.kind === 'llm-instance' && job.result?.mode === 'marketplace') {
    const r = job.result;
    return { id: r.contract_id, gpu: `${formatGpus(r.offer.num_gpus, r.offer.gpu_name)} (${formatMb(r.offer.gpu_ram)} each)`, released: !r.instance_running };
  }
  const id = job.resources?.marketplace_instance_id;
  return id ? { id, gpu: null, released: job.resources?.marketplace_instance_released ?? null } : null;
}

function metadataOf(job: JobRecord): AgentMetadata | null {
  if (job.kind === 'benchmark' || job.kind === 'agentic-agent') return job.result?.metadata ?? null;
  return null;
}

function answerOf(job: JobRecord): string | null {
  if (job.kind === 'benchmark' || job.kind === 'agentic-agent') return job.result?.answer ?? null;
  return null;
}

function CostValue({ job }: { job: JobRecord }) {
  const cost = jobCost(job);
  if (!cost) return <span className="muted">nothing rented</span>;
  if (cost.type === 'running')
    return (
      <span data-testid="running-cost">
        <RunningCost dph={cost.dph} since={cost.since} /> <span className="muted">at {formatDph(cost.dph)}</span>
      </span>
    );
  return (
    <span data-testid="final-cost">
      <Money usd={cost.usd} /> {cost.dph ? <span className="muted">at {formatDph(cost.dph)}</span> : null}
    </span>
  );
}

/** The cost alone (for a metric card); the rate goes in its hint. */
function CostFigure({ job }: { job: JobRecord }) {
  const cost = jobCost(job);
  if (!cost) return <span className="muted">$0.00</span>;
  return cost.type === 'running' ? <RunningCost dph={cost.dph} since={cost.since} /> : <Money usd={cost.usd} />;
}

function costHint(job: JobRecord): string {
  const cost = jobCost(job);
  if (!cost) return 'nothing rented';
  if (cost.type === 'running') return `running at ${formatDph(cost.dph)}`;
  return cost.dph ? `at ${formatDph(cost.dph)}` : 'final';
}

function Timeline({ bars }: { bars: PhaseBar[] }) {
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

function Metrics({ job }: { job: JobRecord }) {
  const m = metadataOf(job);
  const duration = job.started_at ? <Duration since={job.started_at} until={job.finished_at} /> : '—';
  return (
    <div className="stats" data-testid="job-metrics">
      <Stat label="Tokens/s" value={formatRate(m?.tokens_per_second)} />
      <Stat label="Prompt tokens" value={formatCount(m?.prompt_tokens)} />
      <Stat label="Completion tokens" value={formatCount(m?.completion_tokens)} />
      <Stat label="Steps" value={formatCount(m?.steps)} hint={m?.tool_calls !== null && m?.tool_calls !== undefined ? formatCount(m.tool_calls, 'tool call') : undefined} />
      <Stat label="Duration" value={duration} />
      <Stat label="Cost" value={<CostFigure job={job} />} hint={costHint(job)} />
    </div>
  );
}

function ToolCalls({ calls }: { calls: ReturnType<typeof toolCalls> }) {
  if (calls.length === 0) return <p className="muted">No tool calls yet.</p>;
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

/** The same request again, as a new job. */
function rerunInput(job: JobRecord): CreateJobInput {
  switch (job.kind) {
    case 'benchmark':
      return { kind: 'benchmark', request: job.request };
    case 'agentic-agent':
      return { kind: 'agentic-agent', request: job.request };
    case 'llm-instance':
      return { kind: 'llm-instance', request: job.request };
  }
}

function Loaded({ job }: { job: JobRecord }) {
  const [, navigate] = useLocation();
  useJobEventStream(job.job_id, job.status);
  const stream = useJobStream(job.job_id);
  const now = useNow();
  const cancel = useCancelJob(job.job_id);
  const rerun = useCreateJob();
  const [confirm, setConfirm] = useState<'cancel' | 'rerun' | null>(null);
  const [showRaw, setShowRaw] = useState(false);
  const rerunKey = useRef<string | null>(null);
  const terminal = isTerminal(job.status);
  const resultPhases = job.kind === 'benchmark' ? (job.result?.phases ?? null) : null;
  // Ticks only matter while a phase is open; after the job the bars are fixed.
  const bars = useMemo(() => phaseBars(stream.events, resultPhases, terminal ? 0 : now), [stream.events, resultPhases, terminal, now]);
  const calls = useMemo(() => toolCalls(stream.events), [stream.events]);
  const instance = instanceOf(job);
  const answer = answerOf(job);
  const rents = rentsMachine(job);

  return (
    <Page
      title={
        <>
          {KIND_LABELS[job.kind]} <span className="muted">{jobModel(job) ?? ''}</span>
        </>
      }
      subtitle={
        <>
          <code data-testid="job-id">{job.job_id}</code> · created <RelativeTime iso={job.created_at} />
        </>
      }
      testId="page-job"
      actions={
        <>
          <CopyButton text={job.job_id} label="Copy job ID" testId="copy-job-id" />
          <button type="button" className="button" onClick={() => setConfirm('rerun')} data-testid="rerun">
            Re-run
          </button>
          {!terminal ? (
            <button type="button" className="button button-danger" onClick={() => setConfirm('cancel')} disabled={cancel.isPending} data-testid="cancel-job">
              {cancel.isPending ? 'Cancelling…' : 'Cancel job'}
            </button>
          ) : null}
        </>
      }
    >
      <Panel>
        <dl className="kv" data-testid="job-header" data-status={job.status}>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={job.status} />{' '}
            <span className="muted" data-testid="job-progress">
              {!terminal && job.progress?.phase ? `phase ${job.progress.phase}${job.progress.detail ? `: ${job.progress.detail}` : ''}` : job.message === job.status ? '' : job.message}
            </span>
          </dd>
          <dt>Kind</dt>
          <dd>{KIND_LABELS[job.kind]}</dd>
          <dt>Model</dt>
          <dd>{jobModel(job) ?? '—'}</dd>
          <dt>Backend</dt>
          <dd className="mono">{job.result && 'backend_url' in job.result && job.result.backend_url ? job.result.backend_url : jobBackend(job)}</dd>
          {rents || instance ? (
            <>
              <dt>Instance</dt>
              <dd data-testid="job-instance">
                {instance ? (
                  <>
                    #{instance.id} {instance.gpu ? <span>{instance.gpu}</span> : null}{' '}
                    {instance.released === true ? <span className="badge badge-ok">released</span> : instance.released === false ? <span className="badge badge-warn">running</span> : null}
                  </>
                ) : (
                  <span className="muted">not rented yet</span>
                )}
              </dd>
              <dt>Cost</dt>
              <dd>
                <CostValue job={job} />
              </dd>
            </>
          ) : null}
          <dt>Started</dt>
          <dd>
            <RelativeTime iso={job.started_at} /> {job.started_at ? <>· ran <Duration since={job.started_at} until={job.finished_at} /></> : null}
          </dd>
        </dl>
      </Panel>

      {job.status === 'failed' ? <FailureNotice job={job} /> : null}
      {job.status === 'cancelled' ? <Notice tone="warn">Cancelled: {job.message}</Notice> : null}

      <Panel title="Headline metrics">
        <Metrics job={job} />
      </Panel>

      <div className="grid-2">
        <Panel title="Phases">
          {bars.length > 0 ? <Timeline bars={bars} /> : <p className="muted">{job.kind === 'benchmark' ? 'No phase has started yet.' : 'This kind of job has no phases; see its events.'}</p>}
        </Panel>
        <Panel title={`Tool calls (${calls.length})`}>
          <div style={{ maxHeight: 260, overflow: 'auto' }}>
            <ToolCalls calls={calls} />
          </div>
        </Panel>
      </div>

      <div style={{ marginTop: 16 }}>
        {answer ? (
          <Panel title="Answer" testId="job-answer">
            <div className="markdown">
              <Markdown rehypePlugins={[rehypeSanitize]}>{answer}</Markdown>
            </div>
          </Panel>
        ) : job.kind !== 'llm-instance' ? (
          <Panel title="Answer">
            <p className="muted">{terminal ? 'No answer: the job did not succeed.' : 'The answer appears here when the agent finishes.'}</p>
          </Panel>
        ) : null}
      </div>

      <EventLog events={stream.events} state={stream.state} error={stream.error} />

      <Panel
        title="Raw JSON"
        actions={
          <button type="button" className="button button-small" aria-expanded={showRaw} onClick={() => setShowRaw(!showRaw)} data-testid="toggle-raw">
            {showRaw ? 'Hide' : 'Show'}
          </button>
        }
      >
        {showRaw ? <pre className="raw-json" data-testid="raw-json">{JSON.stringify(job, null, 2)}</pre> : <p className="muted">The job record as the API returns it.</p>}
      </Panel>

      <ConfirmDialog
        open={confirm === 'cancel'}
        title="Cancel this job?"
        confirmLabel="Cancel job"
        cancelLabel="Keep running"
        tone="danger"
        busy={cancel.isPending}
        onCancel={() => setConfirm(null)}
        onConfirm={() => {
          cancel.mutate(undefined, { onSettled: () => setConfirm(null) });
        }}
        testId="cancel-confirm"
      >
        <p>The job stops at its next step and ends as cancelled.</p>
        {rents ? (
          <p data-testid="cancel-release-note">
            <strong>Its rented machine{instance ? ` (#${instance.id})` : ''} will be released</strong>, so billing stops; the release shows in the events.
          </p>
        ) : null}
        {cancel.isError ? <ErrorState error={cancel.error} /> : null}
      </ConfirmDialog>

      <ConfirmDialog
        open={confirm === 'rerun'}
        title="Run this request again?"
        confirmLabel={rents ? 'Rent and run again' : 'Run again'}
        busy={rerun.isPending}
        onCancel={() => {
          setConfirm(null);
          rerun.reset();
        }}
        onConfirm={() => {
          rerunKey.current ??= crypto.randomUUID();
          rerun.mutate(
            { ...rerunInput(job), idempotency_key: rerunKey.current },
            {
              onSuccess: (accepted) => {
                rerunKey.current = null;
                setConfirm(null);
                navigate(jobPath(accepted.job_id));
              },
            },
          );
        }}
        testId="rerun-confirm"
      >
        <p>A new {KIND_LABELS[job.kind].toLowerCase()} job starts with the same request.</p>
        {job.kind !== 'agentic-agent' && job.request.marketplace ? (
          <p>
            <strong>It rents a new machine</strong> at up to {formatDph(job.request.max_dph ?? null)}
            {job.kind === 'benchmark' ? (job.request.marketplace_stop_instance ? ', released when the run ends.' : ', kept running afterwards.') : ', kept running afterwards.'}
          </p>
        ) : null}
        {rerun.isError ? <ErrorState error={rerun.error} /> : null}
      </ConfirmDialog>
    </Page>
  );
}

export function JobDetailPage({ jobId }: { jobId: string }) {
  const job = useJob(jobId);
  if (job.isPending) return <Loading label="Loading job…" height={400} />;
  if (job.isError) {
    return (
      <Page title="Job" subtitle={<code>{jobId}</code>} testId="page-job">
        {job.error.status === 404 ? (
          <EmptyState title="No such job" testId="job-not-found" action={<Link href={ROUTES.jobs} className="button">Open the Jobs list</Link>}>
            <p>
              There is no job <code>{jobId}</code> for this API token. The link may be wrong, or the job belongs to another tenant.
            </p>
          </EmptyState>
        ) : (
          <ErrorState error={job.error} onRetry={() => void job.refetch()} />
        )}
      </Page>
    );
  }
  return <Loaded job={job.data} />;
}
