import { describe, expect, it } from 'vitest';
import type { MarketplaceTemplate } from './vast-wire';
import { parseDockerFlags, shellSplit, templateAccess } from './template';

const template = (env: string): MarketplaceTemplate => ({ id: 1, hash_id: 'h', env });

describe('template env', () => {
  it('splits docker flags with quotes', () => {
    expect(shellSplit(`-e A="x y" -e 'B=z' -p 1:2`)).toEqual(['-e', 'A=x y', '-e', 'B=z', '-p', '1:2']);
    const flags = parseDockerFlags('-p 1111:1111 -p 11434:11434/tcp -e OPEN_BUTTON_PORT=1111 -e PORTAL_CONFIG="a:1|b:2" --env=X=1');
    expect(flags.ports).toEqual(['1111/tcp', '11434/tcp']);
    expect(flags.env).toEqual({ OPEN_BUTTON_PORT: '1111', PORTAL_CONFIG: 'a:1|b:2', X: '1' });
    expect(parseDockerFlags(null)).toEqual({ env: {}, ports: [] });
  });

  it('knows when the Caddy proxy needs the bearer token', () => {
    expect(templateAccess(template('-p 11434:11434 -e OLLAMA_MODEL=x'))).toMatchObject({ authRequired: true, https: false, exposesPort: true, notes: [] });
    expect(templateAccess(template('-p 11434:11434 -e AUTH_EXCLUDE=8080,11434')).authRequired).toBe(false);
    expect(templateAccess(template('-p 11434:11434 -e ENABLE_AUTH=false')).authRequired).toBe(false);
    const tls = templateAccess(template('-e ENABLE_HTTPS=true'));
    expect(tls).toMatchObject({ https: true, exposesPort: false });
    expect(tls.notes.join(' ')).toMatch(/does not publish port 11434/);
  });
});
