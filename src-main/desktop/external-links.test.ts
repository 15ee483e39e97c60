import { describe, expect, it } from 'vitest';
import { externalUrl } from './external-links';

describe('external links', () => {
  it('only http(s) URLs with a host and no credentials reach the system browser', () => {
    expect(externalUrl('https://vast.ai/docs')).toBe('https://vast.ai/docs');
    expect(externalUrl('http://127.0.0.1:11434/')).toBe('http://127.0.0.1:11434/');
    for (const bad of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 'vscode://x', 'https://user:pw@example.com/', 'not a url', 'mailto:a@b.c', '']) {
      expect(externalUrl(bad)).toBeNull();
    }
  });
});
