import { describe, expect, it } from 'vitest';
import { formatK8sgptAnswer, parseK8sgptOutput } from './k8sgpt';
import { holmesModelName } from './holmes';

describe('k8sgpt output', () => {
  const doc = {
    provider: 'ollama',
    errors: ['analyzer Ingress failed'],
    status: 'ProblemDetected',
    problems: 1,
    results: [{ kind: 'Pod', name: 'shop/web', error: [{ Text: 'back-off\n restarting', KubernetesDoc: '', Sensitive: [] }], details: 'Fix it.', parentObject: 'Deployment/web' }],
  };
  it('parses JSON after a leading warning line', () => {
    expect(parseK8sgptOutput(`Warning: x\n${JSON.stringify(doc, null, 2)}\n`).problems).toBe(1);
  });
  it('formats findings, explanations and analyzer errors', () => {
    expect(formatK8sgptAnswer(parseK8sgptOutput(JSON.stringify(doc)))).toBe(
      'k8sgpt found 1 problem(s):\n\n1. **Pod shop/web** (parent Deployment/web)\n   - back-off restarting\n   Explanation: Fix it.\n\nAnalyzer errors: analyzer Ingress failed',
    );
  });
  it('rejects non-JSON and wrong shapes', () => {
    expect(() => parseK8sgptOutput('nope')).toThrow(/did not print JSON: nope/);
    expect(() => parseK8sgptOutput('{"status": 3}')).toThrow(/unexpected shape/);
  });
});

describe('holmesModelName', () => {
  it('adds the LiteLLM ollama_chat prefix unless present', () => {
    expect(holmesModelName('llama3.1:8b')).toBe('ollama_chat/llama3.1:8b');
    expect(holmesModelName('hf.co/org/m:Q4')).toBe('ollama_chat/hf.co/org/m:Q4');
    expect(holmesModelName('ollama/phi3')).toBe('ollama/phi3');
  });
});
