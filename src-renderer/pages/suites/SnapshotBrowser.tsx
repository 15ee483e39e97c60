import { useMemo, useState, type ReactNode } from 'react';
import { ageAt, nodeRoles, nodeStatus, podDisplay, restartsText, type SnapshotDocument } from '../../../shared';
import { jsonObject, jsonString, type Json } from '../../../shared/json-read';
import { DataTable, type Column } from '../../components/DataTable';
import { Field } from '../../components/Field';
import { EmptyState, ErrorState, Loading } from '../../components/States';
import { FilterTabs } from '../../components/Tabs';
import { ToggleGroup } from '../../components/ToggleGroup';
import { formatAbsolute } from '../../lib/format';
import { useSnapshotDocument } from '../../queries/snapshots';
import './suites.css';

/**
 * A read-only look at a recorded cluster, as `kubectl get` would have shown it when it was
 * recorded: pods with kubectl's READY/STATUS/RESTARTS, events, nodes, and each container's
 * current and previous log. Ages count from the recording, not from now.
 */

type Tab = 'pods' | 'events' | 'nodes' | 'logs';

const MAX_ROWS = 500;
/** kubectl statuses that mean "look here". */
const BAD_STATUS = /BackOff|Err|Error|OOMKilled|Failed|Evicted|Unknown|NotReady|Init:|Terminating|CreateContainer|Invalid/;

function meta(object: Json): { name: string; namespace: string } {
  const m = jsonObject(object.metadata);
  return { name: jsonString(m.name), namespace: jsonString(m.namespace) };
}
function linesOf(text: string | string[] | null | undefined): string[] | null {
  if (text === null || text === undefined) return null;
  return Array.isArray(text) ? text : text.split('\n').filter((line, i, all) => i < all.length - 1 || line !== '');
}

type PodRow = { key: string; namespace: string; name: string; ready: string; status: string; restarts: string; restartCount: number; age: string; created: number; node: string; hasLogs: boolean };
type EventRow = { key: string; namespace: string; lastSeen: string; at: number; type: string; reason: string; object: string; message: string; count: number };
type NodeRow = { key: string; name: string; status: string; roles: string; version: string; age: string };
type LogRow = { key: string; namespace: string; pod: string; container: string; current: string[] | null; previous: string[] | null };

function statusBadge(status: string) {
  const tone = BAD_STATUS.test(status) ? 'badge-error' : status === 'Pending' || status === 'ContainerCreating' ? 'badge-warn' : status === 'Running' || status === 'Ready' || status === 'Completed' ? 'badge-ok' : '';
  return <span className={`badge ${tone}`}>{status}</span>;
}

function rowsOf(doc: SnapshotDocument) {
  const now = Date.parse(doc.recorded_at);
  const logs: LogRow[] = doc.logs.map((l) => ({ key: `${l.namespace}/${l.pod}/${l.container}`, namespace: l.namespace, pod: l.pod, container: l.container, current: linesOf(l.current), previous: linesOf(l.previous) }));
  const withLogs = new Set(logs.map((l) => `${l.namespace}/${l.pod}`));
  const pods: PodRow[] = doc.objects.pods.map((p) => {
    const { name, namespace } = meta(p);
    const d = podDisplay(p);
    const created = Date.parse(jsonString(jsonObject(p.metadata).creationTimestamp));
    return {
      key: `${namespace}/${name}`,
      namespace,
      name,
      ready: d.ready,
      status: d.status,
      restarts: restartsText(d, now),
      restartCount: d.restarts,
      age: ageAt(jsonObject(p.metadata).creationTimestamp, now),
      created: Number.isNaN(created) ? 0 : created,
      node: jsonString(jsonObject(p.spec).nodeName) || '—',
      hasLogs: withLogs.has(`${namespace}/${name}`),
    };
  });
  const events: EventRow[] = doc.objects.events.map((e) => {
    const { name, namespace } = meta(e);
    const involved = jsonObject(e.involvedObject);
    const last = jsonString(e.lastTimestamp) || jsonString(jsonObject(e.series).lastObservedTime) || jsonString(e.eventTime) || jsonString(e.firstTimestamp) || jsonString(jsonObject(e.metadata).creationTimestamp);
    const at = Date.parse(last);
    return {
      key: `${namespace}/${name}`,
      namespace,
      lastSeen: ageAt(last, now),
      at: Number.isNaN(at) ? 0 : at,
      type: jsonString(e.type) || 'Normal',
      reason: jsonString(e.reason),
      object: `${jsonString(involved.kind).toLowerCase()}/${jsonString(involved.name)}`,
      message: jsonString(e.message).trim(),
      count: typeof e.count === 'number' ? e.count : 1,
    };
  });
  const nodes: NodeRow[] = doc.objects.nodes.map((n) => ({
    key: meta(n).name,
    name: meta(n).name,
    status: nodeStatus(n),
    roles: nodeRoles(n),
    version: jsonString(jsonObject(jsonObject(n.status).nodeInfo).kubeletVersion) || '—',
    age: ageAt(jsonObject(n.metadata).creationTimestamp, now),
  }));
  return { pods, events, nodes, logs };
}

export function SnapshotBrowser({ snapshotId }: { snapshotId: string }) {
  const doc = useSnapshotDocument(snapshotId);
  if (doc.isPending) return <Loading label="Loading the snapshot…" height={320} />;
  if (doc.isError) return <ErrorState error={doc.error} onRetry={() => void doc.refetch()} testId="snapshot-error" />;
  return <Loaded doc={doc.data} />;
}

function Loaded({ doc }: { doc: SnapshotDocument }) {
  const { pods, events, nodes, logs } = useMemo(() => rowsOf(doc), [doc]);
  const [tab, setTab] = useState<Tab>('pods');
  const [namespace, setNamespace] = useState('');
  const [query, setQuery] = useState('');
  const [logKey, setLogKey] = useState('');
  const namespaces = useMemo(() => [...new Set(pods.map((p) => p.namespace).concat(events.map((e) => e.namespace)))].sort(), [pods, events]);
  const matches = (ns: string, ...texts: string[]) => (!namespace || ns === namespace) && (!query || texts.some((t) => t.toLowerCase().includes(query.toLowerCase())));
  const shownPods = pods.filter((p) => matches(p.namespace, p.name, p.status));
  const shownEvents = events.filter((e) => matches(e.namespace, e.reason, e.object, e.message));
  const unhealthy = pods.filter((p) => BAD_STATUS.test(p.status) || p.status === 'Pending').length;
  const warnings = events.filter((e) => e.type === 'Warning').length;

  const openLogs = (namespaceName: string, pod: string) => {
    const first = logs.find((l) => l.namespace === namespaceName && l.pod === pod);
    if (first) setLogKey(first.key);
    setTab('logs');
  };

  const podColumns: Column<PodRow>[] = [
    { id: 'namespace', header: 'Namespace', cell: (r) => r.namespace, sortValue: (r) => r.namespace },
    { id: 'name', header: 'Name', cell: (r) => <span className="code-id">{r.name}</span>, sortValue: (r) => r.name },
    { id: 'ready', header: 'Ready', cell: (r) => r.ready, align: 'right' },
    { id: 'status', header: 'Status', cell: (r) => statusBadge(r.status), sortValue: (r) => r.status },
    { id: 'restarts', header: 'Restarts', cell: (r) => r.restarts, sortValue: (r) => r.restartCount, align: 'right' },
    { id: 'age', header: 'Age', cell: (r) => r.age, sortValue: (r) => -r.created, align: 'right' },
    { id: 'node', header: 'Node', cell: (r) => r.node, sortValue: (r) => r.node },
    {
      id: 'logs',
      header: <span className="visually-hidden">Logs</span>,
      cell: (r) =>
        r.hasLogs ? (
          <button type="button" className="button button-small" onClick={() => openLogs(r.namespace, r.name)} aria-label={`Logs of ${r.name}`}>
            Logs
          </button>
        ) : null,
    },
  ];
  const eventColumns: Column<EventRow>[] = [
    { id: 'namespace', header: 'Namespace', cell: (r) => r.namespace, sortValue: (r) => r.namespace },
    { id: 'last', header: 'Last seen', cell: (r) => r.lastSeen, sortValue: (r) => -r.at, align: 'right' },
    { id: 'type', header: 'Type', cell: (r) => (r.type === 'Warning' ? <span className="badge badge-warn">Warning</span> : r.type), sortValue: (r) => r.type },
    { id: 'reason', header: 'Reason', cell: (r) => r.reason, sortValue: (r) => r.reason },
    { id: 'object', header: 'Object', cell: (r) => <span className="code-id">{r.object}</span>, sortValue: (r) => r.object },
    { id: 'count', header: 'Count', cell: (r) => r.count, sortValue: (r) => r.count, align: 'right' },
    { id: 'message', header: 'Message', cell: (r) => <span className="snapshot-message">{r.message}</span> },
  ];
  const nodeColumns: Column<NodeRow>[] = [
    { id: 'name', header: 'Name', cell: (r) => r.name, sortValue: (r) => r.name },
    { id: 'status', header: 'Status', cell: (r) => statusBadge(r.status), sortValue: (r) => r.status },
    { id: 'roles', header: 'Roles', cell: (r) => r.roles },
    { id: 'age', header: 'Age', cell: (r) => r.age, align: 'right' },
    { id: 'version', header: 'Version', cell: (r) => r.version },
  ];

  return (
    <div className="snapshot-browser" data-testid="snapshot-browser">
      <p className="snapshot-asof">
        As recorded on <strong>{formatAbsolute(doc.recorded_at)}</strong> from <span className="code-id">{doc.source.server}</span>
        {doc.source.kubernetes_version ? ` (Kubernetes ${doc.source.kubernetes_version})` : ''}: ages count from then. {unhealthy} of {pods.length} pods need a look; {warnings} warning event
        {warnings === 1 ? '' : 's'}.
      </p>
      <FilterTabs<Tab>
        label="What to show"
        value={tab}
        onChange={setTab}
        testId="snapshot-tabs"
        items={[
          { value: 'pods', label: 'Pods', count: pods.length },
          { value: 'events', label: 'Events', count: events.length },
          { value: 'nodes', label: 'Nodes', count: nodes.length },
          { value: 'logs', label: 'Logs', count: logs.length },
        ]}
      />
      {tab === 'pods' || tab === 'events' ? (
        <div className="snapshot-filters">
          <Field label="Namespace">
            <select value={namespace} onChange={(e) => setNamespace(e.target.value)} data-testid="snapshot-namespace">
              <option value="">All namespaces</option>
              {namespaces.map((ns) => (
                <option key={ns} value={ns}>
                  {ns}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Filter">
            <input type="search" value={query} onChange={(e) => setQuery(e.target.value)} placeholder={tab === 'pods' ? 'name or status' : 'reason, object or message'} data-testid="snapshot-filter" />
          </Field>
        </div>
      ) : null}
      {tab === 'pods' ? (
        <Rows count={shownPods.length} total={pods.length} what="pods">
          <div className="table-x">
            <DataTable columns={podColumns} rows={shownPods.slice(0, MAX_ROWS)} rowKey={(r) => r.key} testId="snapshot-pods" empty="No pod matches." />
          </div>
        </Rows>
      ) : null}
      {tab === 'events' ? (
        <Rows count={shownEvents.length} total={events.length} what="events">
          <div className="table-x">
            <DataTable columns={eventColumns} rows={shownEvents.slice(0, MAX_ROWS)} rowKey={(r) => r.key} initialSort={{ column: 'last', direction: 'asc' }} testId="snapshot-events" empty="No event matches." />
          </div>
        </Rows>
      ) : null}
      {tab === 'nodes' ? <DataTable columns={nodeColumns} rows={nodes} rowKey={(r) => r.key} testId="snapshot-nodes" empty="The snapshot holds no nodes." /> : null}
      {tab === 'logs' ? <Logs logs={logs} selected={logKey || (logs[0]?.key ?? '')} onSelect={setLogKey} /> : null}
    </div>
  );
}

function Rows({ count, total, what, children }: { count: number; total: number; what: string; children: ReactNode }) {
  return (
    <>
      {children}
      {count > MAX_ROWS ? <p className="note-small">Showing {MAX_ROWS} of {count} {what}: narrow them with the namespace or the filter.</p> : null}
      {count < total && count <= MAX_ROWS ? <p className="note-small">{count} of {total} {what} match.</p> : null}
    </>
  );
}

function Logs({ logs, selected, onSelect }: { logs: LogRow[]; selected: string; onSelect: (key: string) => void }) {
  const log = logs.find((l) => l.key === selected);
  const [which, setWhich] = useState<'current' | 'previous'>('previous');
  if (logs.length === 0) {
    return (
      <EmptyState title="No container logs" testId="snapshot-no-logs">
        <p>The snapshot was recorded without logs (log_tail_lines 0), or no container had one.</p>
      </EmptyState>
    );
  }
  // Show the previous instance first when there is one: that is where a crash loop's cause is.
  const shown = log ? (which === 'previous' && log.previous !== null ? 'previous' : log.current !== null ? 'current' : 'previous') : 'current';
  const lines = log ? (shown === 'previous' ? log.previous : log.current) : null;
  return (
    <div className="snapshot-logs">
      <div className="snapshot-filters">
        <Field label="Container">
          <select value={selected} onChange={(e) => onSelect(e.target.value)} data-testid="snapshot-log-container">
            {logs.map((l) => (
              <option key={l.key} value={l.key}>
                {l.namespace}/{l.pod} · {l.container}
              </option>
            ))}
          </select>
        </Field>
        <div className="field">
          <span className="snapshot-control-label" aria-hidden="true">
            Instance
          </span>
          <ToggleGroup
            label="Which instance's log"
            size="large"
            value={shown}
            onChange={setWhich}
            options={[
              { value: 'current', label: 'Current', disabled: log?.current === null, testId: 'snapshot-log-current' },
              { value: 'previous', label: 'Previous (before the last restart)', disabled: log?.previous === null, testId: 'snapshot-log-previous' },
            ]}
          />
          {/* The same reserved line as the fields beside it, so the controls line up. */}
          <span className="field-error" />
        </div>
      </div>
      <pre className="snapshot-log" tabIndex={0} aria-label="Log lines" data-testid="snapshot-log">
        {lines && lines.length > 0 ? lines.join('\n') : 'This log is empty.'}
      </pre>
    </div>
  );
}
