import { useState } from 'react';
import { useApi, type RendererApi } from '../../../bridge';

/** A serving job's per-request records (GET /v1/jobs/{id}/requests) saved as CSV or JSONL. */

const MIME = { csv: 'text/csv', jsonl: 'application/x-ndjson' } as const;

/** Saves through the native dialog in the app, or as a download in browser mode. */
async function save(api: RendererApi, name: string, content: string, format: keyof typeof MIME): Promise<void> {
  if (api.desktop) {
    await api.desktop.saveFile({ suggested_name: name, content });
    return;
  }
  const url = URL.createObjectURL(new Blob([content], { type: `${MIME[format]};charset=utf-8` }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function ServingExports({ jobId }: { jobId: string }) {
  const api = useApi();
  const [error, setError] = useState<string | null>(null);
  const exportAs = async (format: keyof typeof MIME) => {
    setError(null);
    try {
      await save(api, `${jobId}-requests.${format}`, await api.getJobRequests({ job_id: jobId, format }), format);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <div className="serving-exports" role="group" aria-label="Export every measured request">
      <span className="muted">Every measured request (level, start, TTFT, end-to-end, output tokens, ITL count, finish reason, error):</span>
      <button type="button" className="button" onClick={() => void exportAs('csv')} data-testid="serving-export-csv">
        CSV
      </button>
      <button type="button" className="button" onClick={() => void exportAs('jsonl')} data-testid="serving-export-jsonl">
        JSONL
      </button>
      {error ? (
        <span className="field-error" role="alert">
          {error}
        </span>
      ) : null}
    </div>
  );
}
