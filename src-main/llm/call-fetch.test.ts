import { describe, expect, it } from 'vitest';
import { httpError, transportError } from './call-fetch';
import { LlmServerAuthError, LlmServerHttpError, ModelNotFoundError, ToolsUnsupportedError } from './errors';

const base = { serverUrl: 'http://h:1', endpoint: 'POST /api/chat', statusText: '', model: 'm:1' };
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  httpError({ ...base, status, headers: new Headers({ 'content-type': 'application/json', ...headers }), text: JSON.stringify(body) });

describe('httpError', () => {
  it('keeps Ollama 404 as ModelNotFoundError with its message', () => {
    const error = json(404, { error: "model 'm:1' not found" });
    expect(error).toBeInstanceOf(ModelNotFoundError);
    expect(error.message).toMatch(/^model 'm:1' not found \(HTTP 404/);
    expect((error as ModelNotFoundError).model).toBe('m:1');
  });

  it('maps 400 "does not support tools" to ToolsUnsupportedError', () => {
    const error = json(400, { error: 'registry.ollama.ai/library/gemma:2b does not support tools' });
    expect(error).toBeInstanceOf(ToolsUnsupportedError);
    expect((error as ToolsUnsupportedError).serverMessage).toBe('registry.ollama.ai/library/gemma:2b does not support tools');
  });

  it('maps a proxy 401 with a text body to LlmServerAuthError', () => {
    const error = httpError({ ...base, status: 401, headers: new Headers({ 'www-authenticate': 'Basic realm="restricted"' }), text: 'Unauthorized' });
    expect(error).toBeInstanceOf(LlmServerAuthError);
    expect((error as LlmServerAuthError).challenge).toBe('Basic realm="restricted"');
  });

  it('keeps other statuses, and text bodies, as LlmServerHttpError', () => {
    const busy = json(503, { error: 'server busy' });
    expect(busy).toBeInstanceOf(LlmServerHttpError);
    expect(busy).not.toBeInstanceOf(ModelNotFoundError);
    expect((busy as LlmServerHttpError).status).toBe(503);
    const page = httpError({ ...base, status: 404, headers: new Headers({ 'content-type': 'text/plain' }), text: '404 page not found' });
    expect(page).not.toBeInstanceOf(ModelNotFoundError);
    expect((page as LlmServerHttpError).serverMessage).toBe('404 page not found');
    const empty = httpError({ ...base, status: 502, statusText: 'Bad Gateway', headers: new Headers(), text: '' });
    expect((empty as LlmServerHttpError).serverMessage).toBe('HTTP 502 Bad Gateway');
  });
});

describe('transportError', () => {
  const failed = (code: string) => new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });
  it.each([
    ['ECONNREFUSED', 'connection_refused'],
    ['ENOTFOUND', 'dns'],
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout'],
    ['ECONNRESET', 'connection_reset'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
    ['EWHATEVER', 'network'],
  ])('%s → %s', (code, reason) => {
    const error = transportError(failed(code), 'http://h:1', 'GET /api/tags');
    expect(error.reason).toBe(reason);
    expect(error.message).toContain('http://h:1');
  });

  it('reads the code of an AggregateError (several addresses)', () => {
    const aggregate = new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]);
    expect(transportError(new TypeError('fetch failed', { cause: aggregate }), 'u', 'e').reason).toBe('connection_refused');
  });
});
