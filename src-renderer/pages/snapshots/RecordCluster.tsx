import { useEffect, useState, type FormEvent } from 'react';
import { Field } from '../../components/Field';
import { Panel } from '../../components/Page';
import { Notice } from '../../components/States';
import { ClusterProblem } from './cluster-problem';
import { formatDuration } from '../../lib/format';
import { useRecordSnapshot } from '../../queries/suites';
import { hrefOf, snapshotPath } from '../../router/routes';

/** The server stops a recording after this long (design §11). */
const RECORD_BOUND_MS = 60_000;

/**
 * "Record a cluster": reads a kubeconfig's cluster on the server's machine into a snapshot. The
 * server answers when it is done (at most 60 s); meanwhile the elapsed time counts up against
 * that bound.
 */
export function RecordCluster({ onClose }: { onClose: () => void }) {
  const record = useRecordSnapshot();
  const [name, setName] = useState('');
  const [kubeconfig, setKubeconfig] = useState('~/.kube/config');
  const [namespaces, setNamespaces] = useState('');
  const [touched, setTouched] = useState(false);
  const [startedAt, setStartedAt] = useState<number | null>(null);
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!record.isPending) return;
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [record.isPending]);

  const nameError = touched && !name.trim() ? 'Give the snapshot a name' : null;
  const kubeError = touched && !kubeconfig.trim() ? 'The path of a kubeconfig on the server’s machine' : null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTouched(true);
    if (!name.trim() || !kubeconfig.trim()) return;
    const list = namespaces
      .split(/[\s,]+/)
      .map((n) => n.trim())
      .filter(Boolean);
    setStartedAt(Date.now());
    setNow(Date.now());
    record.mutate({ name: name.trim(), kubeconfig: kubeconfig.trim(), ...(list.length ? { namespaces: list } : {}) });
  };
  const elapsed = startedAt === null ? 0 : Math.max(0, now - startedAt);
  const fieldErrors = record.error?.problem.errors ?? [];
  const errorOf = (path: string) => fieldErrors.find((i) => i.path === path)?.message ?? null;

  return (
    <Panel title="Record a cluster" testId="record-cluster" actions={<button type="button" className="button button-small" onClick={onClose}>Close</button>}>
      <p className="muted">
        Reads the cluster of a kubeconfig into a read-only snapshot: objects, events, and the last 200 lines of each container’s current and previous log. Secrets are never
        read, environment values become <code>***</code>, config maps keep their keys only.
      </p>
      <form className="record-form" onSubmit={submit} noValidate>
        <Field label="Name" error={nameError ?? errorOf('name')}>
          <input value={name} onChange={(e) => setName(e.target.value)} data-testid="record-name" placeholder="checkout incident" disabled={record.isPending} />
        </Field>
        <Field label="Kubeconfig" hint="A path on the server’s machine; its current context is recorded." error={kubeError ?? errorOf('kubeconfig')}>
          <input value={kubeconfig} onChange={(e) => setKubeconfig(e.target.value)} data-testid="record-kubeconfig" disabled={record.isPending} />
        </Field>
        <Field label="Namespaces (optional)" hint="Comma-separated; empty records them all." error={errorOf('namespaces')}>
          <input value={namespaces} onChange={(e) => setNamespaces(e.target.value)} data-testid="record-namespaces" placeholder="shop, payments" disabled={record.isPending} />
        </Field>
        <div className="record-actions">
          <button type="submit" className="button button-primary" disabled={record.isPending} data-testid="record-submit">
            {record.isPending ? 'Recording…' : 'Record'}
          </button>
        </div>
      </form>
      {record.isPending ? (
        <div className="record-progress" data-testid="record-progress">
          <progress max={RECORD_BOUND_MS} value={Math.min(elapsed, RECORD_BOUND_MS)} aria-label="Recording time used of the 60 s bound" />
          <span className="muted">
            Recording for {formatDuration(elapsed)} of at most {formatDuration(RECORD_BOUND_MS)}: listing 17 kinds of object, then every container’s logs.
          </span>
        </div>
      ) : null}
      {record.isSuccess ? (
        <Notice tone="ok" testId="record-done">
          Recorded <strong>{record.data.name}</strong> ({record.data.counts.pods} pods, {record.data.counts.events} events, {record.data.counts.logs} container logs) from {record.data.source}.{' '}
          <a href={hrefOf(snapshotPath(record.data.snapshot_id))} data-testid="record-open">
            Open it
          </a>{' '}
          to browse, run a job on it or serve it, or use its id <code>{record.data.snapshot_id}</code> in a suite’s scenarios.
          {record.data.warnings.length > 0 ? ` ${record.data.warnings.length} warning${record.data.warnings.length === 1 ? '' : 's'}: see its page.` : ''}
        </Notice>
      ) : null}
      {record.isError && fieldErrors.length === 0 ? <ClusterProblem error={record.error} testId="record-error" /> : null}
    </Panel>
  );
}
