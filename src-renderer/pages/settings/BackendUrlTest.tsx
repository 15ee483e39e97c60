import { useMutation } from '@tanstack/react-query';
import type { LlmModelsResponse } from '../../../shared';
import type { BenchdeskApiError } from '../../../shared/client';
import { useApi } from '../../bridge';
import { adviceFor, Notice } from '../../components/States';
import { formatCount } from '../../lib/format';

/** "Test" beside the default backend URL: asks that llmserver for its models, and says what answered (or what to check). */
export function BackendUrlTest({ url, disabled }: { url: string; disabled: boolean }) {
  const api = useApi();
  const test = useMutation<LlmModelsResponse, BenchdeskApiError, string>({ mutationFn: (backend_url) => api.listLlmModels({ backend_url }) });
  const asked = test.variables;
  const stale = asked !== undefined && asked !== url.trim();
  return (
    <div className="backend-test">
      <button type="button" className="button button-small" onClick={() => test.mutate(url.trim())} disabled={disabled || !url.trim() || test.isPending} data-testid="set-backend-test">
        {test.isPending ? 'Asking…' : 'Test'}
      </button>
      {!stale && test.data ? (
        <Notice tone="ok" testId="set-backend-test-result">
          {test.data.backend_url} answers: {formatCount(test.data.models.length, 'model')}
          {test.data.running_models.length > 0 ? `, ${formatCount(test.data.running_models.length)} loaded now` : ''}.
        </Notice>
      ) : null}
      {!stale && test.isError ? (
        <Notice tone="error" testId="set-backend-test-result">
          {adviceFor(test.error).title}: {test.error.problem.detail}
        </Notice>
      ) : null}
    </div>
  );
}
