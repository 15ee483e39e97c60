import type { JobEvent, JobRecordOf, ModelEntry } from '../../../../shared';
import { RelativeTime } from '../../../components/Format';
import { CopyButton } from '../../../components/CopyButton';
import { Panel } from '../../../components/Page';
import { formatBytes, formatCount, formatInstance } from '../../../lib/format';
import { curlExample, ollamaExample, type EndpointInfo } from '../endpoint';
import type { KindViewProps } from './types';

function Snippet({ label, text, testId }: { label: string; text: string; testId: string }) {
  return (
    <div className="endpoint-snippet">
      <div className="endpoint-snippet-head">
        <span className="muted">{label}</span>
        <CopyButton text={text} label="Copy" testId={`${testId}-copy`} />
      </div>
      <pre className="snippet" data-testid={testId}>
        {text}
      </pre>
    </div>
  );
}

function Endpoint({ info, note }: { info: EndpointInfo; note?: string }) {
  const ollama = ollamaExample(info);
  return (
    <Panel title="Endpoint to use" testId="llm-endpoint">
      <dl className="kv">
        <dt>Backend URL</dt>
        <dd className="endpoint-url">
          <code data-testid="endpoint-url">{info.backendUrl}</code>
          <CopyButton text={info.backendUrl} label="Copy URL" testId="endpoint-url-copy" />
        </dd>
        <dt>Model</dt>
        <dd>{info.model ? <code data-testid="endpoint-model">{info.model}</code> : <span className="muted">none asked for: any model the server has</span>}</dd>
        {info.tokenFile ? (
          <>
            <dt>Token</dt>
            <dd>
              The marketplace's proxy wants a bearer token, kept in <code>{info.tokenFile}</code> (readable by you only).
            </dd>
          </>
        ) : null}
      </dl>
      <div className="endpoint-snippets">
        <Snippet label="curl" text={curlExample(info)} testId="endpoint-curl" />
        {ollama ? (
          <Snippet label="ollama" text={ollama} testId="endpoint-ollama" />
        ) : (
          <p className="muted note-small" data-testid="endpoint-ollama-none">
            The ollama command cannot send the proxy's token: use curl or a client that sets the Authorization header.
          </p>
        )}
      </div>
      {note ? <p className="muted note-small">{note}</p> : null}
    </Panel>
  );
}

function Models({ models }: { models: readonly ModelEntry[] }) {
  return (
    <Panel title={`Models on the server (${formatCount(models.length)})`} testId="llm-models">
      {models.length === 0 ? (
        <p className="muted">It has no models: pull one with <code>ollama pull llama3.1:8b</code>.</p>
      ) : (
        <ul className="model-list">
          {models.map((m) => (
            <li key={m.name}>
              <code>{m.name}</code> <span className="muted">{[m.parameter_size, m.quantization, m.size ? formatBytes(m.size) : null].filter(Boolean).join(' · ')}</span>
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
}

/** When the kept machine behind the endpoint was released (its destroy confirmed), or null while it runs. */
export function releasedAt(job: JobRecordOf<'llm-instance'>, events: readonly JobEvent[]): string | null {
  const destroyed = events.findLast((e) => e.event === 'marketplace.instance.destroy' && e.status === 'ok');
  if (destroyed) return destroyed.recorded_at;
  return job.resources?.marketplace_instance_released === true ? (job.updated_at ?? job.finished_at) : null;
}

/** The machine was released: the endpoint no longer answers, and says so instead of offering commands that would fail. */
function RetiredEndpoint({ backendUrl, at, instanceId }: { backendUrl: string; at: string; instanceId: number | null }) {
  return (
    <Panel title="Endpoint retired" testId="llm-endpoint-retired">
      <p>
        The machine{instanceId ? ` ${formatInstance(instanceId)}` : ''} was released <RelativeTime iso={at} />: <code>{backendUrl}</code> no longer answers.
      </p>
      <p className="muted note-small">To serve the model again, use Edit and re-run: it rents a new machine with the same request.</p>
    </Panel>
  );
}

/** llm-instance: the endpoint to use (URL, model, copyable examples); the machine is in the page's Machine panel. */
export function LlmInstanceView({ job, events, terminal }: KindViewProps<'llm-instance'>) {
  const result = job.result;
  if (!result) {
    return (
      <Panel title="Endpoint to use" testId="llm-endpoint-pending">
        <p className="muted">
          {!terminal
            ? job.request.marketplace
              ? 'The URL appears here once the machine runs Ollama and the model is ready.'
              : 'The URL appears here once the server has been checked.'
            : 'No endpoint: the job did not succeed.'}
        </p>
      </Panel>
    );
  }
  if (result.mode === 'marketplace') {
    const retired = releasedAt(job, events);
    if (retired) return <RetiredEndpoint backendUrl={result.backend_url} at={retired} instanceId={result.contract_id ?? job.resources?.marketplace_instance_id ?? null} />;
    return <Endpoint info={{ backendUrl: result.backend_url, model: result.model_name, tokenFile: result.backend_auth?.token_file ?? null }} />;
  }
  const model = job.request.model ?? result.models[0]?.name ?? null;
  return (
    <div className="grid-2 job-kind-grid">
      <Endpoint info={{ backendUrl: result.backend_url, model, tokenFile: null }} note="Your own server: benchdesk checked it and rented nothing." />
      <Models models={result.models} />
    </div>
  );
}
