import type { JobRecordOf } from '../../../shared';
import { Panel } from '../../components/Page';
import { useSnapshots } from '../../queries/snapshots';
import { hrefOf, snapshotPath } from '../../router/routes';

type AskingJob = JobRecordOf<'agentic-agent'> | JobRecordOf<'benchmark'>;

/** The cluster the agent read: a recorded snapshot (linked, by name) or a live one through a kubeconfig. */
function ClusterFact({ job }: { job: AskingJob }) {
  const snapshotId = job.request.snapshot ?? null;
  const snapshots = useSnapshots();
  if (snapshotId) {
    const s = snapshots.data?.snapshots.find((x) => x.snapshot_id === snapshotId);
    return (
      <dd data-testid="asked-cluster">
        the recorded snapshot <a href={hrefOf(snapshotPath(snapshotId))}>{s ? s.name : snapshotId}</a>
        {s ? <span className="muted"> · from {s.source}, recorded {s.recorded_at.slice(0, 10)}</span> : null}
      </dd>
    );
  }
  return (
    <dd data-testid="asked-cluster">
      a live cluster through <code>{job.request.kubeconfig ?? 'the server’s default kubeconfig'}</code>
    </dd>
  );
}

/**
 * What was asked and who answered: the question in full, the agent, the model and where it ran,
 * and the cluster (or snapshot) it read. The answer follows in its own panel.
 */
export function AskedPanel({ job }: { job: AskingJob }) {
  const meta = job.result?.metadata;
  const asked = job.request.agent ?? 'builtin';
  const answeredBy = meta?.agent && meta.agent !== asked ? `${meta.agent} (asked for ${asked})` : asked;
  const backend = job.result && 'backend_url' in job.result && job.result.backend_url ? job.result.backend_url : job.kind === 'benchmark' && job.request.marketplace ? 'a rented GPU (marketplace)' : (job.request.backend_url ?? '—');
  return (
    <Panel title="What was asked" testId="job-asked">
      <blockquote className="asked-question" data-testid="asked-question">
        {job.request.question}
      </blockquote>
      <dl className="kv asked-facts">
        <dt>Agent</dt>
        <dd data-testid="asked-agent">{answeredBy}</dd>
        <dt>Model</dt>
        <dd data-testid="asked-model">
          <code>{job.request.model ?? meta?.model ?? '—'}</code>
        </dd>
        <dt>Backend</dt>
        <dd className="mono" data-testid="asked-backend">
          {backend}
        </dd>
        <dt>Cluster</dt>
        <ClusterFact job={job} />
      </dl>
    </Panel>
  );
}
