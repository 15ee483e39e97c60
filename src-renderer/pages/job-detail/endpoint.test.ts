import { describe, expect, it } from 'vitest';
import { curlExample, ollamaExample } from './endpoint';

describe('endpoint examples', () => {
  it('an open server: a chat call with the model, and the ollama command', () => {
    const info = { backendUrl: 'http://127.0.0.1:11434/', model: 'llama3.1:8b', tokenFile: null };
    expect(curlExample(info)).toBe(
      `curl http://127.0.0.1:11434/api/chat \\\n  -d '{"model":"llama3.1:8b","messages":[{"role":"user","content":"Say hello in five words."}],"stream":false}'`,
    );
    expect(ollamaExample(info)).toBe('OLLAMA_HOST=http://127.0.0.1:11434 ollama run llama3.1:8b');
  });

  it("a rented machine behind the proxy: the token from its file, -k for the proxy's own certificate, no ollama command", () => {
    const info = { backendUrl: 'https://1.2.3.4:41234', model: 'qwen2.5:32b', tokenFile: "/data/tokens/it's.token" };
    const curl = curlExample(info);
    expect(curl).toContain('curl -k https://1.2.3.4:41234/api/chat');
    expect(curl).toContain(`-H "Authorization: Bearer $(cat '/data/tokens/it'"'"'s.token')"`);
    expect(ollamaExample(info)).toBeNull();
  });

  it('no model asked for: list the models', () => {
    expect(curlExample({ backendUrl: 'http://h:1', model: null, tokenFile: null })).toBe('curl http://h:1/api/tags');
    expect(ollamaExample({ backendUrl: 'http://h:1', model: null, tokenFile: null })).toBe('OLLAMA_HOST=http://h:1 ollama list');
  });
});
