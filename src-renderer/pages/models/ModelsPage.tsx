import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { issueInWords, type BackendApi, type CatalogEntry, type LlmModelsResponse, type ModelEntry } from '../../../shared';
import type { BenchdeskApiError } from '../../../shared/client';
import { useApi } from '../../bridge';
import { DataTable, type Column } from '../../components/DataTable';
import { BackendApiField } from '../../components/BackendApiField';
import { Field } from '../../components/Field';
import { RelativeTime } from '../../components/Format';
import { Page, Panel } from '../../components/Page';
import { EmptyState, ErrorState, Loading } from '../../components/States';
import { formatBytes, formatCount, formatGb, formatMb } from '../../lib/format';
import { useCatalog } from '../../queries/catalog';
import { useSettings, useUpdateSettings } from '../../queries/settings';
import '../overview/common.css';
import { ModelActions } from './ModelActions';
import './models.css';

const DEFAULT_BACKEND = 'http://127.0.0.1:11434';

/** Case-insensitive match of every word of the filter against name, family and notes. */
export function matchesCatalogFilter(entry: CatalogEntry, filter: string, family: string, minVramGb: number): boolean {
  if (family && entry.family !== family) return false;
  if (entry.vram_mb < minVramGb * 1024) return false;
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const hay = `${entry.name} ${entry.family ?? ''} ${entry.notes ?? ''}`.toLowerCase();
  return words.every((w) => hay.includes(w));
}

function Catalog() {
  const catalog = useCatalog();
  const [filter, setFilter] = useState('');
  const [family, setFamily] = useState('');
  const [minVram, setMinVram] = useState('0');
  const models = catalog.data?.models ?? [];
  const families = useMemo(() => [...new Set(models.map((m) => m.family).filter((f): f is string => Boolean(f)))].sort(), [models]);
  const shown = useMemo(() => models.filter((m) => matchesCatalogFilter(m, filter, family, Number(minVram) || 0)), [models, filter, family, minVram]);
  const columns: Column<CatalogEntry>[] = [
    // The notes under the name, not in a column of their own: a column squeezed at 1024 px made them a word per line.
    {
      id: 'name',
      header: 'Model',
      cell: (m) => (
        <>
          <span className="code-id">{m.name}</span>
          {m.notes ? <span className="cell-detail">{m.notes}</span> : null}
        </>
      ),
      sortValue: (m) => m.name,
    },
    { id: 'family', header: 'Family', cell: (m) => m.family ?? '—', sortValue: (m) => m.family ?? null },
    { id: 'vram', header: 'VRAM needed', align: 'right', cell: (m) => formatMb(m.vram_mb), sortValue: (m) => m.vram_mb },
    { id: 'disk', header: 'Disk', align: 'right', cell: (m) => formatGb(m.required_disk_gb), sortValue: (m) => m.required_disk_gb },
    { id: 'actions', header: <span className="visually-hidden">Next steps</span>, align: 'right', cell: (m) => <ModelActions model={m.name} /> },
  ];
  return (
    <Panel title="Marketplace catalog" testId="models-catalog" actions={<span className="muted">{catalog.data ? `${formatCount(shown.length)} of ${formatCount(models.length, 'model')}` : ''}</span>}>
      <p className="muted note-small">The models a marketplace run can rent a GPU for: offers are filtered by the VRAM a model needs, and the disk is sized for it.</p>
      <div className="toolbar">
        <Field label="Filter">
          <input type="search" className="input" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="name, family or note" data-testid="catalog-filter" />
        </Field>
        <Field label="Family">
          <select className="input" value={family} onChange={(e) => setFamily(e.target.value)} data-testid="catalog-family">
            <option value="">All families</option>
            {families.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </Field>
        <Field label="At least (GB VRAM)">
          <input type="number" min={0} step={1} className="input input-narrow" value={minVram} onChange={(e) => setMinVram(e.target.value)} data-testid="catalog-min-vram" />
        </Field>
      </div>
      {catalog.isError ? (
        <ErrorState error={catalog.error} onRetry={() => void catalog.refetch()} />
      ) : catalog.isPending ? (
        <Loading height={160} />
      ) : (
        <div className="table-scroll">
          <DataTable
            columns={columns}
            rows={shown}
            rowKey={(m) => m.name}
            initialSort={{ column: 'vram', direction: 'asc' }}
            testId="catalog-table"
            empty={<span className="muted">No model matches the filter.</span>}
          />
        </div>
      )}
    </Panel>
  );
}

type BackendRow = ModelEntry & { running: ModelEntry | null };

/** "llama · 8.0B parameters · Q4_K_M", or what of it the backend said (an OpenAI-compatible server says none of it). */
export function modelDetail(m: Pick<ModelEntry, 'family' | 'parameter_size' | 'quantization'>): string {
  const parts = [m.family, m.parameter_size ? `${m.parameter_size} parameters` : null, m.quantization].filter((p): p is string => Boolean(p));
  return parts.length > 0 ? parts.join(' · ') : 'family, size and quantization not reported';
}

function backendRows(data: LlmModelsResponse): BackendRow[] {
  const running = new Map(data.running_models.map((m) => [m.name, m]));
  const rows: BackendRow[] = data.models.map((m) => ({ ...m, running: running.get(m.name) ?? null }));
  // A running model missing from the tags list still shows (it is using VRAM).
  for (const r of data.running_models) if (!data.models.some((m) => m.name === r.name)) rows.push({ ...r, running: r });
  return rows;
}

function BackendModels() {
  const api = useApi();
  const settings = useSettings();
  const save = useUpdateSettings();
  const [draft, setDraft] = useState<string | null>(null);
  const [url, setUrl] = useState<string | null>(null);
  // The API and the key as chosen, and as last listed (the list follows a submit, not every keystroke).
  const [apiDraft, setApiDraft] = useState<BackendApi>('auto');
  const [keyDraft, setKeyDraft] = useState('');
  const [target, setTarget] = useState<{ api: BackendApi; key: string; submitted: number }>({ api: 'auto', key: '', submitted: 0 });
  // Once the user is in the field, what it holds is theirs: settings that arrive later never put
  // text into it (typing would go after it: "…:11434http://…", a URL the form refuses).
  const inField = useRef(false);
  // The remembered URL, once settings arrive (and the page lists it at once).
  useEffect(() => {
    if (settings.data && url === null) {
      const remembered = settings.data.settings.default_backend_url;
      if (remembered) setUrl(remembered);
      setDraft((d) => d ?? (inField.current ? '' : (remembered ?? DEFAULT_BACKEND)));
    }
  }, [settings.data, url]);
  const models = useQuery<LlmModelsResponse, BenchdeskApiError>({
    queryKey: ['llm-models', url, target.api, target.key !== '', target.submitted],
    queryFn: ({ signal }) => api.listLlmModels({ backend_url: url ?? '', backend_api: target.api, ...(target.key && target.api !== 'ollama' ? { backend_api_key: target.key } : {}) }, { signal }),
    enabled: Boolean(url),
    retry: false,
    refetchInterval: 30_000,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const next = (draft ?? '').trim();
    if (!next) return;
    setUrl(next);
    // Each submit is a query of its own (`submitted`), which lists by itself once the new URL, API
    // and key are set. (refetch() would run the query on screen at once, before they are: with no
    // URL yet, a request for an empty one the server rightly refuses.)
    setTarget((t) => ({ api: apiDraft, key: keyDraft.trim(), submitted: t.submitted + 1 }));
    if (settings.data?.settings.default_backend_url !== next) save.mutate({ default_backend_url: next });
  };
  const rows = models.data ? backendRows(models.data) : [];
  const columns: Column<BackendRow>[] = [
    // Family, size in parameters and quantization as one line under the name: nine columns did not fit at 1024 px.
    {
      id: 'name',
      header: 'Model',
      cell: (m) => (
        <>
          <span className="code-id">{m.name}</span>
          <span className="cell-detail" data-testid="model-detail">
            {modelDetail(m)}
          </span>
        </>
      ),
      sortValue: (m) => m.name,
    },
    {
      id: 'state',
      header: 'State',
      cell: (m) =>
        m.running ? (
          <span className="badge badge-ok" data-testid="model-running">
            {models.data?.backend_api === 'openai' ? 'served' : 'running'}
          </span>
        ) : (
          <span className="muted">on disk</span>
        ),
      sortValue: (m) => (m.running ? 0 : 1),
    },
    { id: 'size', header: 'Size', align: 'right', cell: (m) => formatBytes(m.size), sortValue: (m) => m.size ?? null },
    // Ollama's loaded window (/api/ps) or vLLM's max_model_len: the longest prompt + answer a request may have.
    { id: 'context', header: 'Context (tokens)', align: 'right', cell: (m) => formatCount(m.running?.context_length ?? m.context_length ?? null), sortValue: (m) => m.running?.context_length ?? m.context_length ?? null },
    { id: 'vram', header: 'In VRAM', align: 'right', cell: (m) => (m.running ? formatBytes(m.running.size_vram) : '—'), sortValue: (m) => m.running?.size_vram ?? null },
    { id: 'expires', header: 'Unloads', cell: (m) => (m.running?.expires_at ? <RelativeTime iso={m.running.expires_at} /> : '—') },
  ];
  return (
    <Panel title="Models of a backend" testId="models-backend">
      <form className="toolbar backend-form" onSubmit={submit}>
        <Field label="llmserver URL" hint="Ollama or an OpenAI-compatible server; remembered in Settings as the default backend.">
          <input
            type="url"
            className="input input-wide"
            value={draft ?? ''}
            onChange={(e) => setDraft(e.target.value)}
            onFocus={() => (inField.current = true)}
            placeholder={DEFAULT_BACKEND}
            data-testid="backend-url"
            required
          />
        </Field>
        <BackendApiField api={apiDraft} apiKey={keyDraft} onApi={setApiDraft} onKey={setKeyDraft} testIdPrefix="models" />
        <button type="submit" className="button button-primary" data-testid="backend-list" disabled={models.isFetching}>
          {models.isFetching ? 'Listing…' : 'List models'}
        </button>
      </form>
      {!url ? (
        <EmptyState title="No backend chosen">
          <p>Enter the URL of an Ollama server (port 11434 by default) or of an OpenAI-compatible one (vLLM: port 8000) and list its models.</p>
        </EmptyState>
      ) : models.isError ? (
        <BackendError url={url} error={models.error} onRetry={() => void models.refetch()} />
      ) : models.isPending ? (
        <Loading height={120} label={`Asking ${url}…`} />
      ) : (
        <>
          <p className="muted note-small" data-testid="backend-summary">
            {models.data.backend_url} ({models.data.backend_api === 'openai' ? 'OpenAI-compatible' : 'Ollama'}): {formatCount(rows.length, 'model')}, {formatCount(models.data.running_models.length)} {models.data.backend_api === 'openai' ? 'served' : 'running'}
            {models.data.backend_api === 'ollama' && models.data.running_models.length > 0
              ? `, ${formatBytes(models.data.running_models.reduce((s, m) => s + (m.size_vram ?? 0), 0))} in VRAM`
              : ''}
            .
          </p>
          <DataTable
            columns={columns}
            rows={rows}
            rowKey={(m) => m.name}
            initialSort={{ column: 'state', direction: 'asc' }}
            testId="backend-table"
            rowClassName={(m) => (m.running ? 'row-running' : undefined)}
            empty={<span className="muted">This backend has no models. Pull one with `ollama pull llama3.1:8b`.</span>}
          />
        </>
      )}
    </Panel>
  );
}

/** An unreachable backend: the URL asked, what went wrong, and how to fix it. */
function BackendError({ url, error, onRetry }: { url: string; error: BenchdeskApiError; onRetry: () => void }) {
  const unreachable = error.problem.code === 'upstream_unreachable' || error.status === 502 || error.status === 504;
  if (!unreachable && error.problem.code !== 'validation_failed') return <ErrorState error={error} onRetry={onRetry} />;
  return (
    <div className="problem" role="alert" data-testid="backend-error" data-code={error.code}>
      <p className="problem-title">{error.problem.code === 'validation_failed' ? 'That is not a backend URL' : `Cannot reach ${url}`}</p>
      <p className="problem-detail">
        {error.problem.code === 'validation_failed' && error.problem.errors?.length
          ? error.problem.errors.map((i) => issueInWords(i, { backend_url: { name: 'The URL' }, backend_type: { name: 'The backend type' } })).join('. ')
          : error.problem.detail}
      </p>
      <ul className="fix-list">
        <li>
          Is Ollama running there? Start it with <code>ollama serve</code>; it listens on <code>http://127.0.0.1:11434</code> by default. vLLM listens on port 8000 (<code>vllm serve MODEL</code>).
        </li>
        <li>A server started with <code>--api-key</code> wants that key: choose OpenAI-compatible and enter it.</li>
        <li>Is the host and port right, and does the URL start with http:// or https://?</li>
        <li>
          A server on another machine must listen on its network address (<code>OLLAMA_HOST=0.0.0.0</code>), and a firewall may block the port.
        </li>
      </ul>
      <button type="button" className="button" onClick={onRetry}>
        Retry
      </button>
    </div>
  );
}

/** The marketplace catalog, and the models (and running ones) of an llmserver backend. */
export function ModelsPage() {
  return (
    <Page title="Models" subtitle="What a marketplace run can rent a GPU for, and what a backend has loaded." testId="page-models">
      <BackendModels />
      <Catalog />
    </Page>
  );
}
