import { homedir } from 'node:os';
import path from 'node:path';

/**
 * The kubeconfig an ask uses: the request's path, else the first entry of KUBECONFIG, else
 * ~/.kube/config (design §2). Made absolute here so a driver process started elsewhere reads the
 * same file; a leading ~/ is expanded as a shell would.
 */
export function resolveKubeconfigPath(requested: string | null | undefined, env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  const fromRequest = requested?.trim();
  const fromEnv = (env.KUBECONFIG ?? '')
    .split(path.delimiter)
    .map((p) => p.trim())
    .find((p) => p.length > 0);
  const chosen = fromRequest || fromEnv || path.join(home, '.kube', 'config');
  const expanded = chosen === '~' ? home : chosen.startsWith('~/') ? path.join(home, chosen.slice(2)) : chosen;
  return path.resolve(expanded);
}
