import os from 'node:os';
import path from 'node:path';
import { InvalidArgumentError } from '@commander-js/extra-typings';

/**
 * Option value parsers. Each throws commander's InvalidArgumentError, which main turns into a
 * usage error (exit 2) naming the option.
 */

/** `--marketplace-reliability 99.5` → 0.995: users think in percent, the API takes a fraction. */
const DECIMAL = /^\d+(\.\d+)?$/;

export function parsePercentage(value: string): number {
  const text = value.trim().replace(/%$/, '');
  const n = Number(text);
  if (!DECIMAL.test(text) || n > 100) {
    throw new InvalidArgumentError('must be a percentage from 0 to 100 (e.g. 99 for 99% reliability)');
  }
  // Round away binary noise (99.9 / 100 = 0.9990000000000001).
  return Math.round(n * 1e6) / 1e8;
}

/** $/hour bounds: a non-negative number. */
export function parseDph(value: string): number {
  const n = Number(value.trim());
  if (!DECIMAL.test(value.trim()) || !Number.isFinite(n)) throw new InvalidArgumentError('must be a price in $/hour (a number ≥ 0, e.g. 0.5)');
  return n;
}

export function parsePositiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number ≥ 1');
  return n;
}

export function parseNonNegativeInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new InvalidArgumentError('must be a whole number ≥ 0');
  return n;
}

export function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidArgumentError('must be an integer from 0 to 65535');
  return port;
}

export function parseHttpUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return value.replace(/\/+$/, '');
  } catch {
    // Reported below.
  }
  throw new InvalidArgumentError('must be an http(s) URL, e.g. http://127.0.0.1:8080');
}

/** `~` and `~/x` expand to the home directory; relative paths resolve against the current directory (the app may run elsewhere). */
export function expandPath(value: string, home = os.homedir()): string {
  const v = value.trim();
  if (v === '~') return home;
  if (v.startsWith('~/') || v.startsWith(`~${path.sep}`)) return path.join(home, v.slice(2));
  return path.resolve(v);
}

/** The seed's default kubeconfig: `$KUBECONFIG` (its first entry), else `~/.kube/config`. */
export function defaultKubeconfig(env: NodeJS.ProcessEnv = process.env): string {
  const first = env.KUBECONFIG?.split(path.delimiter)[0]?.trim();
  return expandPath(first || '~/.kube/config');
}

/** `--max-cost 2.5`: a spend limit above 0. */
export function parseUsd(value: string): number {
  const n = Number(value.trim());
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(n > 0)) throw new InvalidArgumentError('must be an amount in $ above 0, e.g. 2.5');
  return n;
}
