import net from 'node:net';

/** What every loopback address counts as: one machine, one source. */
export const LOOPBACK_SOURCE = 'loopback';

/**
 * The source a connection or a failed login is counted against. Every address of 127.0.0.0/8
 * (and ::1) is this machine: a local program that binds 127.0.0.2, 127.0.0.3… is still one
 * program, so the connection cap and the failed-login lockout treat them all as one source.
 */
export function sourceOf(address: string | undefined): string {
  if (!address) return 'unknown';
  const v4 = address.startsWith('::ffff:') && net.isIPv4(address.slice(7)) ? address.slice(7) : address;
  if (v4 === '::1' || (net.isIPv4(v4) && v4.startsWith('127.'))) return LOOPBACK_SOURCE;
  return v4.toLowerCase();
}
