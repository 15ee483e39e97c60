import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

/** Electron's userData for productName "benchdesk", computed the same way outside Electron. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform = process.platform): string {
  const home = os.homedir();
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'benchdesk');
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'benchdesk');
  return path.join(env.XDG_CONFIG_HOME ?? path.join(home, '.config'), 'benchdesk');
}

const TRUTHY = new Set(['1', 'true', 'yes', 'on']);
export function isTruthy(value: string | undefined): boolean {
  return value !== undefined && TRUTHY.has(value.trim().toLowerCase());
}

const PortSchema = z.coerce.number().int().min(0).max(65535);

/** Settings of design §2 read from the environment, validated once at start-up. */
export type Config = {
  host: string;
  port: number;
  dataDir: string;
  apiTokens: string | undefined;
  authDisabled: boolean;
  vastApiKey: string | undefined;
  marketplaceApiUrl: string;
  kubeconfig: string;
  concurrency: number;
  serveUi: boolean;
  driverTimeoutMs: number;
  shutdownGraceMs: number;
  /** Multiplies the marketplace client's pacing (Vast's thresholds): 0 turns it off, for a fake or a proxy that paces itself. */
  marketplacePacingScale: number;
};

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function parseEnvNumber<T extends z.ZodType<number>>(schema: T, name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const parsed = schema.safeParse(raw.trim());
  if (!parsed.success) throw new ConfigError(`${name}=${JSON.stringify(raw)} is not valid: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = (env.BENCHDESK_HOST ?? '127.0.0.1').trim() || '127.0.0.1';
  const marketplaceApiUrl = (env.MARKETPLACE_API_URL ?? 'https://console.vast.ai/api/v0').trim().replace(/\/+$/, '');
  try {
    const url = new URL(marketplaceApiUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw new ConfigError(`MARKETPLACE_API_URL=${JSON.stringify(marketplaceApiUrl)} is not an http(s) URL`);
  }
  return {
    host,
    port: parseEnvNumber(PortSchema, 'BENCHDESK_PORT', env.BENCHDESK_PORT, 8080),
    dataDir: path.resolve(env.BENCHDESK_DATA_DIR?.trim() || defaultDataDir(env)),
    apiTokens: env.SERVICE_API_TOKENS,
    authDisabled: isTruthy(env.SERVICE_API_AUTH_DISABLED),
    vastApiKey: env.VAST_API_KEY?.trim() || undefined,
    marketplaceApiUrl,
    kubeconfig: env.KUBECONFIG?.split(path.delimiter)[0]?.trim() || path.join(os.homedir(), '.kube', 'config'),
    concurrency: parseEnvNumber(z.coerce.number().int().min(1).max(256), 'BENCHDESK_CONCURRENCY', env.BENCHDESK_CONCURRENCY, 4),
    serveUi: isTruthy(env.BENCHDESK_SERVE_UI),
    driverTimeoutMs: parseEnvNumber(z.coerce.number().int().min(1).max(86_400), 'BENCHDESK_AGENT_TIMEOUT_S', env.BENCHDESK_AGENT_TIMEOUT_S, 300) * 1000,
    shutdownGraceMs: parseEnvNumber(z.coerce.number().int().min(0).max(3600), 'BENCHDESK_SHUTDOWN_GRACE_S', env.BENCHDESK_SHUTDOWN_GRACE_S, 10) * 1000,
    marketplacePacingScale: parseEnvNumber(z.coerce.number().min(0).max(10), 'BENCHDESK_MARKETPLACE_PACING', env.BENCHDESK_MARKETPLACE_PACING, 1),
  };
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}
