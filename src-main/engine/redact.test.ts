import { describe, expect, it } from 'vitest';
import { Redactor, sealSecrets } from './redact';

describe('Redactor', () => {
  const redactor = Redactor.forRequest({ backend_url: 'http://alice:p%40ss-w0rd-1@10.0.0.5:11434', nested: { api_token: 'tok-1234567' }, model: 'llama3' });

  it('masks URL credentials and every secret of the request wherever it appears', () => {
    expect(redactor.text('cannot reach http://alice:p%40ss-w0rd-1@10.0.0.5:11434/api')).toBe('cannot reach http://alice:***@10.0.0.5:11434/api');
    // On its own, as sent (percent-encoded) and as a program decodes it.
    expect(redactor.text('password p%40ss-w0rd-1 / p@ss-w0rd-1, token tok-1234567')).toBe('password *** / ***, token ***');
    expect(redactor.deep({ labels: { url: 'http://bob:other-secret@h', n: 3 }, list: ['tok-1234567'] })).toEqual({ labels: { url: 'http://bob:***@h', n: 3 }, list: ['***'] });
  });

  it('leaves ordinary text alone, and does not mask secrets too short to tell from words', () => {
    expect(redactor.text('model llama3 answered')).toBe('model llama3 answered');
    const short = Redactor.forRequest({ backend_url: 'http://u:pw@h' });
    expect(short.text('pw at http://u:pw@h')).toBe('pw at http://u:***@h');
  });
});

describe('sealSecrets', () => {
  it('keeps counts of LLM tokens (prompt_tokens, output_tokens) and still seals token strings', () => {
    const { value, secrets } = sealSecrets({ prompt_tokens: 256, output_tokens: 128, api_token: 'tok-1234567', refresh_tokens: 'abc' });
    expect(value).toEqual({ prompt_tokens: 256, output_tokens: 128, api_token: '[redacted]', refresh_tokens: '[redacted]' });
    expect(secrets.map((s) => s.path)).toEqual([['api_token'], ['refresh_tokens']]);
  });
});
