import type { BackendApi } from '../../shared';
import { Field } from './Field';

/**
 * Which API an llmserver speaks (design §13b), offered wherever an llmserver URL is entered:
 * detect it (the default), Ollama's /api/*, or an OpenAI-compatible /v1/* (vLLM, SGLang, TGI,
 * llama.cpp, LM Studio), with the key of a server that wants one. The key is a password field: it
 * is sent with the request, kept out of the job record, and never shown again.
 */

export const BACKEND_API_LABELS: Record<BackendApi, string> = {
  auto: 'Detect',
  ollama: 'Ollama',
  openai: 'OpenAI-compatible',
};

export function BackendApiField({
  api,
  apiKey,
  onApi,
  onKey,
  onBlur,
  error,
  keyError,
  testIdPrefix = 'launch',
}: {
  api: BackendApi;
  apiKey: string;
  onApi: (api: BackendApi) => void;
  onKey: (key: string) => void;
  onBlur?: () => void;
  error?: string | null;
  keyError?: string | null;
  testIdPrefix?: string;
}) {
  return (
    <>
      <Field label="Backend API" hint="OpenAI-compatible: vLLM, SGLang, TGI, llama.cpp, LM Studio. Detect asks the server (/api/version, else /v1/models)." error={error ?? null}>
        <select name="backend_api" value={api} onChange={(e) => onApi(e.target.value as BackendApi)} onBlur={onBlur} data-testid={`${testIdPrefix}-backend_api`}>
          {(Object.keys(BACKEND_API_LABELS) as BackendApi[]).map((value) => (
            <option key={value} value={value}>
              {BACKEND_API_LABELS[value]}
            </option>
          ))}
        </select>
      </Field>
      {api !== 'ollama' ? (
        <Field label="API key (optional)" hint="Only for a server started with --api-key: sent as a Bearer token, kept out of the job record." error={keyError ?? null}>
          <input type="password" name="backend_api_key" autoComplete="off" spellCheck={false} value={apiKey} onChange={(e) => onKey(e.target.value)} onBlur={onBlur} data-testid={`${testIdPrefix}-backend_api_key`} />
        </Field>
      ) : null}
    </>
  );
}
