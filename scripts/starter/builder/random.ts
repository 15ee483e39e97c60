import { createHash } from 'node:crypto';

/**
 * Deterministic names and ids for generated snapshots: the same scenario code always gives the
 * same bytes, so the committed files can be compared with the builder's output.
 */

/** The alphabet Kubernetes uses for generated name suffixes (no vowels, no look-alikes). */
const KUBE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export function sha(seed: string): string {
  return createHash('sha256').update(seed).digest('hex');
}

/** A UUID-shaped id derived from a seed. */
export function uidOf(seed: string): string {
  const h = sha(`uid:${seed}`);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${'89ab'[parseInt(h[16] ?? '0', 16) % 4]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** `n` characters of Kubernetes' suffix alphabet (pod names, replica set hashes). */
export function kubeSuffix(seed: string, n: number): string {
  const h = sha(`suffix:${seed}`);
  let out = '';
  for (let i = 0; i < n; i++) out += KUBE_ALPHABET[parseInt(h.slice(i * 2, i * 2 + 2), 16) % KUBE_ALPHABET.length];
  return out;
}

export function hexOf(seed: string, n: number): string {
  return sha(`hex:${seed}`).repeat(2).slice(0, n);
}

/** A number in [min, max] derived from a seed. */
export function intOf(seed: string, min: number, max: number): number {
  return min + (parseInt(sha(`int:${seed}`).slice(0, 8), 16) % (max - min + 1));
}
