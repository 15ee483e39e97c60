import { describe, expect, it } from 'vitest';
import { normaliseBackendType, normaliseBackendUrl } from '../llm/backend-url';
import { LlmServerAuthError, LlmServerUnreachableError, ModelNotFoundError } from '../llm/errors';
import { llmErrorToProblem } from './llm-problems';

const thrown = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
};

describe('llmErrorToProblem', () => {
  it('bad backend_url / backend_type → 422 with the field path', () => {
    const url = llmErrorToProblem(thrown(() => normaliseBackendUrl('ftp://x')));
    expect(url?.toProblem()).toMatchObject({ status: 422, code: 'validation_failed', errors: [{ path: 'backend_url' }] });
    const type = llmErrorToProblem(thrown(() => normaliseBackendType('vllm')));
    expect(type?.toProblem()).toMatchObject({ status: 422, errors: [{ path: 'backend_type', message: expect.stringContaining('llmserver, ollama') }] });
  });

  it('unreachable → 502 upstream_unreachable; Ollama and proxy errors → 502 upstream_error', () => {
    expect(llmErrorToProblem(new LlmServerUnreachableError('http://h:1', 'connection_refused', 'x'))?.toProblem()).toMatchObject({
      status: 502, code: 'upstream_unreachable', detail: expect.stringContaining('http://h:1'),
    });
    expect(llmErrorToProblem(new ModelNotFoundError('http://h:1', "model 'm' not found", 'POST /api/show', 'm'))?.status).toBe(502);
    expect(llmErrorToProblem(new LlmServerAuthError('http://h:1', 401, null))?.code).toBe('upstream_error');
  });

  it('leaves foreign errors alone', () => {
    expect(llmErrorToProblem(new Error('x'))).toBeUndefined();
  });

  it('gives every error a stable code for job records', () => {
    expect(new ModelNotFoundError('u', 'm', 'e', 'm').code).toBe('model_not_found');
    expect(new LlmServerUnreachableError('u', 'dns', 'x').code).toBe('llmserver_unreachable');
  });
});
