import { describe, expect, it } from 'vitest';
import { canonicalModelName, sameModel } from './model-name';

describe('sameModel', () => {
  it.each([
    ['tinyllama', 'tinyllama:latest'],
    ['tinyllama:latest', 'tinyllama'],
    ['llama3.1:8b', 'llama3.1:8b'],
    ['Llama3.1:8B', 'llama3.1:8b'],
    [' qwen2.5:7b ', 'qwen2.5:7b'],
    ['registry.ollama.ai/library/gemma:2b', 'gemma:2b'],
    ['myorg/model', 'myorg/model:latest'],
    ['localhost:5000/team/model', 'localhost:5000/team/model:latest'],
  ])('%j ≡ %j', (a, b) => {
    expect(sameModel(a, b)).toBe(true);
  });

  it.each([
    ['llama3.1:8b', 'llama3.1:70b'],
    ['llama3.1', 'llama3.1:8b'],
    ['gemma', 'gemma2'],
    ['myorg/model', 'model'],
  ])('%j ≢ %j', (a, b) => {
    expect(sameModel(a, b)).toBe(false);
  });

  it('treats a registry port as part of the host, not a tag', () => {
    expect(canonicalModelName('localhost:5000/model')).toBe('localhost:5000/model:latest');
  });
});
