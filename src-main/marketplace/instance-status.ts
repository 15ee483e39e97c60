import type { MarketplaceInstance } from './vast-wire';

/** Pure reading of an instance row: is it ready, still coming up, failed, or gone? */

export type InstancePhase =
  | { kind: 'ready'; host: string; hostPort: number }
  | { kind: 'pending'; status: string; detail: string }
  | { kind: 'failed'; status: string; detail: string }
  | { kind: 'gone'; detail: string };

/** Statuses that never become `running` by themselves (reference §A.5). */
const FAILED_STATUSES = new Set(['exited', 'offline', 'unknown']);
const GONE_STATUSES = new Set(['destroyed', 'terminated']);

const lower = (s: string | null | undefined): string => (s ?? '').trim().toLowerCase();

/** The Vast way to say an instance no longer exists: null, or destroyed/terminated status. */
export function isGone(instance: MarketplaceInstance | null): boolean {
  if (!instance) return true;
  return GONE_STATUSES.has(lower(instance.actual_status)) || GONE_STATUSES.has(lower(instance.intended_status));
}

/** The first host binding of `<port>/tcp` as a number, or null while ports are missing or `{}`. */
export function hostPortOf(instance: MarketplaceInstance, containerPort: number): number | null {
  const binding = instance.ports?.[`${containerPort}/tcp`]?.[0];
  if (!binding) return null;
  const port = Number(binding.HostPort);
  return Number.isInteger(port) && port > 0 && port < 65536 ? port : null;
}

export function classifyInstance(instance: MarketplaceInstance | null, containerPort: number): InstancePhase {
  if (!instance) return { kind: 'gone', detail: 'the marketplace no longer knows this instance' };
  const actual = lower(instance.actual_status);
  const msg = instance.status_msg ?? '';
  if (isGone(instance)) return { kind: 'gone', detail: `instance is ${actual || lower(instance.intended_status)}` };
  if (FAILED_STATUSES.has(actual)) {
    return { kind: 'failed', status: actual, detail: `instance is ${actual}${msg ? `: ${msg}` : ''}` };
  }
  if (actual === 'running' && lower(instance.intended_status) !== 'stopped') {
    const hostPort = hostPortOf(instance, containerPort);
    const host = instance.public_ipaddr ?? '';
    // A usable port wins over a stale message; until then keep waiting.
    if (hostPort !== null && host) return { kind: 'ready', host, hostPort };
    if (!msg.includes('Error')) {
      return { kind: 'pending', status: actual, detail: hostPort === null ? `running, port ${containerPort}/tcp not mapped yet` : 'running, no public IP yet' };
    }
  }
  // Vast's own CLI treats a status_msg containing "Error" as fatal.
  if (msg.includes('Error')) return { kind: 'failed', status: actual || 'error', detail: `instance reports: ${msg}` };
  return { kind: 'pending', status: actual || 'scheduling', detail: msg || (actual ? `instance is ${actual}` : 'being scheduled') };
}

/** `http://host:port`, with IPv6 hosts bracketed. */
export function endpointUrl(host: string, port: number, https = false): string {
  const h = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `${https ? 'https' : 'http'}://${h}:${port}`;
}
