import { describe, expect, it } from 'vitest';
import { displayBackendUrl, normaliseBackendType, normaliseBackendUrl, splitBackendCredentials } from './backend-url';
import { InvalidBackendUrlError, UnknownBackendTypeError } from './errors';

describe('normaliseBackendUrl', () => {
  it.each([
    ['http://127.0.0.1:11434', 'http://127.0.0.1:11434'],
    ['http://127.0.0.1:11434/', 'http://127.0.0.1:11434'],
    ['  http://127.0.0.1:11434//  ', 'http://127.0.0.1:11434'],
    ['127.0.0.1:11434', 'http://127.0.0.1:11434'],
    ['localhost:11434', 'http://localhost:11434'],
    ['localhost:11434/', 'http://localhost:11434'],
    ['localhost', 'http://localhost:11434'],
    ['ollama.internal', 'http://ollama.internal:11434'],
    ['[::1]:11434', 'http://[::1]:11434'],
    ['https://gpu.example.com', 'https://gpu.example.com'],
    ['https://gpu.example.com:8443/', 'https://gpu.example.com:8443'],
    ['HTTPS://GPU.Example.com/', 'https://gpu.example.com'],
    ['http://example.com:80', 'http://example.com'],
    ['http://proxy.example.com/ollama/', 'http://proxy.example.com/ollama'],
    ['http://vastai:tok@1.2.3.4:40123', 'http://vastai:tok@1.2.3.4:40123'],
  ])('%j → %j', (input, expected) => {
    expect(normaliseBackendUrl(input)).toBe(expected);
  });

  it.each([
    ['', 'it is empty'],
    ['   ', 'it is empty'],
    ['ftp://example.com', 'scheme "ftp:" is not allowed'],
    ['file:///etc/passwd', 'scheme "file:" is not allowed'],
    ['javascript:alert(1)', 'scheme "javascript:" is not allowed'],
    ['ws://example.com', 'scheme "ws:" is not allowed'],
    ['http://', 'expected a URL like'],
    ['https://', 'expected a URL like'],
    ['http:example.com', 'expected a URL like'],
    ['http://exa mple.com', 'expected a URL like'],
    ['http://example.com/?x=1', 'query string or fragment'],
    ['http://example.com/#top', 'query string or fragment'],
  ])('refuses %j', (input, reason) => {
    let caught: unknown;
    try {
      normaliseBackendUrl(input);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidBackendUrlError);
    expect((caught as Error).message).toContain(reason);
    expect((caught as InvalidBackendUrlError).input).toBe(input);
  });
});

describe('credentials in the URL', () => {
  it('become a Basic Authorization header and are hidden for display', () => {
    const url = normaliseBackendUrl('http://vastai:s%3Acret@1.2.3.4:40123/');
    expect(splitBackendCredentials(url)).toEqual({
      url: 'http://1.2.3.4:40123',
      authorization: `Basic ${Buffer.from('vastai:s:cret').toString('base64')}`,
    });
    expect(displayBackendUrl(url)).toBe('http://1.2.3.4:40123');
    expect(splitBackendCredentials('http://1.2.3.4:40123/ollama')).toEqual({ url: 'http://1.2.3.4:40123/ollama' });
  });
});

describe('normaliseBackendType', () => {
  it.each([[undefined], [null], [''], ['llmserver'], ['ollama'], [' Ollama ']])('%j → llmserver', (input) => {
    expect(normaliseBackendType(input)).toBe('llmserver');
  });

  it('refuses unknown types and lists the known ones', () => {
    expect(() => normaliseBackendType('openai')).toThrow(UnknownBackendTypeError);
    expect(() => normaliseBackendType('openai')).toThrow('unknown backend_type "openai"; known types: llmserver, ollama');
  });
});
