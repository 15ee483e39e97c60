import type { MarketplaceTemplate } from './vast-wire';

/**
 * Reading a Vast template's docker-flag `env` string: which variables and ports it sets, and so
 * how the Ollama port will be reached (Vast's Caddy proxy requires a token unless told otherwise).
 */

export const OLLAMA_CONTAINER_PORT = 11434;

export type DockerFlags = {
  env: Record<string, string>;
  /** Container ports from `-p host:container[/proto]`, as `"11434/tcp"`. */
  ports: string[];
};

/** Splits like a shell would for the simple cases templates use: spaces, '…' and "…" quoting. */
export function shellSplit(input: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: '"' | "'" | null = null;
  let inToken = false;
  for (let i = 0; i < input.length; i++) {
    const ch = input[i] as string;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === '\\' && quote === '"' && i + 1 < input.length) cur += input[++i];
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inToken = true;
    } else if (/\s/.test(ch)) {
      if (inToken) out.push(cur);
      cur = '';
      inToken = false;
    } else {
      cur += ch;
      inToken = true;
    }
  }
  if (inToken) out.push(cur);
  return out;
}

export function parseDockerFlags(input: string | null | undefined): DockerFlags {
  const env: Record<string, string> = {};
  const ports: string[] = [];
  const tokens = shellSplit(input ?? '');
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i] as string;
    const inline = /^(-e|--env|-p|--publish)=(.*)$/.exec(tok);
    const flag = inline ? inline[1] : tok;
    const value = inline ? inline[2] : tokens[i + 1];
    if (value === undefined) continue;
    if (flag === '-e' || flag === '--env') {
      const eq = value.indexOf('=');
      if (eq > 0) env[value.slice(0, eq)] = value.slice(eq + 1);
      if (!inline) i++;
    } else if (flag === '-p' || flag === '--publish') {
      const [mapping, proto = 'tcp'] = value.split('/');
      const container = mapping?.split(':').pop();
      if (container && /^\d+$/.test(container)) ports.push(`${container}/${proto}`);
      if (!inline) i++;
    }
  }
  return { env, ports };
}

const FALSY = new Set(['0', 'false', 'no', 'off']);
const TRUTHY = new Set(['1', 'true', 'yes', 'on']);

export type TemplateAccess = {
  /** Caddy will demand `Authorization: Bearer <OPEN_BUTTON_TOKEN>` on the Ollama port. */
  authRequired: boolean;
  /** The proxy speaks TLS with a self-signed certificate. */
  https: boolean;
  /** The template publishes the container port itself. */
  exposesPort: boolean;
  /** Human-readable findings for events. */
  notes: string[];
};

/** How the server's port (Ollama's by default) of an instance made from this template will be reached. */
export function templateAccess(template: MarketplaceTemplate, containerPort = OLLAMA_CONTAINER_PORT, server = 'Ollama'): TemplateAccess {
  const { env, ports } = parseDockerFlags(template.env);
  const notes: string[] = [];
  const excluded = (env.AUTH_EXCLUDE ?? '').split(/[,\s]+/).includes(String(containerPort));
  const authDisabled = FALSY.has((env.ENABLE_AUTH ?? '').toLowerCase());
  const authRequired = !excluded && !authDisabled;
  if (!authRequired) notes.push(`template turns proxy auth off for port ${containerPort}: ${server} will be open to the internet`);
  const https = TRUTHY.has((env.ENABLE_HTTPS ?? '').toLowerCase());
  if (https) notes.push('template enables HTTPS with a self-signed certificate');
  const exposesPort = ports.includes(`${containerPort}/tcp`);
  if (!exposesPort) notes.push(`template does not publish port ${containerPort}; we add -p ${containerPort}:${containerPort}`);
  return { authRequired, https, exposesPort, notes };
}
