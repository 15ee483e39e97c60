import { describe, expect, it } from 'vitest';
import { lineSplitter, newStreamState, readOllamaLine, readSseLine } from './stream-reader';

describe('the worker stream reader', () => {
  it('times Ollama chunks with text, keeps the done chunk as the final one and its reason', () => {
    const s = newStreamState(100);
    readOllamaLine(s, '{"message":{"role":"assistant","content":""},"done":false}', 1);
    readOllamaLine(s, '{"message":{"role":"assistant","content":"Hi"},"done":false}', 10);
    readOllamaLine(s, '{"message":{"role":"assistant","thinking":"hmm"},"done":false}', 14);
    readOllamaLine(s, '{"message":{"content":""},"done":true,"done_reason":"length","eval_count":2}', 20);
    expect(s).toMatchObject({ first: 10, itl: [4], textChunks: 2, done: true, endedAt: 20, finishReason: 'length', error: null });
    expect(s.final).toMatchObject({ eval_count: 2 });
  });

  it('reads an Ollama error line, and refuses a line that is not JSON', () => {
    const a = newStreamState(100);
    readOllamaLine(a, '{"error":"an error was encountered while running the model"}', 1);
    expect(a.error).toBe('an error was encountered while running the model');
    const b = newStreamState(100);
    readOllamaLine(b, '<html>', 1);
    expect(b.error).toBe('a line of the answer is not JSON');
  });

  it('reads vLLM SSE: a role-only chunk is not the first token; finish_reason, usage and [DONE]', () => {
    const s = newStreamState(100);
    readSseLine(s, 'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}', 1, false);
    readSseLine(s, ': a comment', 2, false);
    readSseLine(s, 'data: {"choices":[{"index":0,"delta":{"content":" a"},"finish_reason":null}]}', 5, false);
    readSseLine(s, 'data:{"choices":[{"index":0,"delta":{"content":" b"},"finish_reason":"length"}]}', 8, false);
    readSseLine(s, 'data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}', 9, false);
    expect(s).toMatchObject({ first: 5, itl: [3], textChunks: 2, finishReason: 'length', done: false });
    readSseLine(s, 'data: [DONE]', 10, false);
    expect(s).toMatchObject({ done: true, endedAt: 10, final: { completion_tokens: 2 } });
  });

  it('reads completion chunks (`text`) and an error event', () => {
    const s = newStreamState(100);
    readSseLine(s, 'data: {"choices":[{"index":0,"text":"x","finish_reason":null}]}', 3, true);
    expect(s.first).toBe(3);
    readSseLine(s, 'data: {"object":"error","message":"This model\'s maximum context length is 4096 tokens.","type":"BadRequestError"}', 4, true);
    expect(s.error).toMatch(/maximum context length/);
  });

  it('refuses more chunks of text than the tokens asked allow', () => {
    const s = newStreamState(2);
    for (let t = 0; t < 3; t++) readOllamaLine(s, '{"message":{"content":"x"},"done":false}', t);
    expect(s.error).toBe('the server streamed more than 2 chunks of text for the tokens asked');
  });

  it('splits lines across chunks (\\r\\n too) and caps a line and a response', () => {
    const lines: string[] = [];
    const push = lineSplitter({ lineBytes: 10, responseBytes: 40 }, (l) => lines.push(l));
    expect(push(Buffer.from('ab\r\ncd'))).toBeNull();
    expect(push(Buffer.from('ef\n\n'))).toBeNull();
    expect(lines).toEqual(['ab', 'cdef', '']);
    expect(push(Buffer.from('0123456789AB'))).toBe('a line of the answer passed 10 bytes without an end');
    const total = lineSplitter({ lineBytes: 100, responseBytes: 8 }, () => undefined);
    expect(total(Buffer.from('1234\n'))).toBeNull();
    expect(total(Buffer.from('5678\n'))).toBe('the answer passed 8 bytes');
  });
});
