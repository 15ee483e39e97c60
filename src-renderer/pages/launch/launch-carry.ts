import type { JobKind } from '../../../shared';
import { canRent, DEFAULT_DRAFT, type DraftField, type LaunchDraft } from './launch-form';

/** What a kind switch carries to the next kind's form: the model, where it runs and, when both can rent, the whole offer. */
const CARRIED_TO_RENTERS: readonly DraftField[] = ['model', 'target', 'template_hash', 'min_dph', 'max_dph', 'reliability_pct', 'hours', 'max_cost_usd', 'stop_instance', 'rented_server', 'backend_url'];
const CARRIED_TO_OTHERS: readonly DraftField[] = ['model', 'backend_url'];

/**
 * The fields of `from` (another kind's draft) that the `to` kind's form takes over when the user
 * switches kind: what was set there (by hand or from an estimate's offer), not the built-in
 * defaults. null when nothing is worth carrying.
 */
export function carriedFields(from: LaunchDraft, fromKind: JobKind, to: JobKind): Partial<LaunchDraft> | null {
  const fields = canRent(to) && canRent(fromKind) ? CARRIED_TO_RENTERS : CARRIED_TO_OTHERS;
  const patch: Partial<LaunchDraft> = {};
  for (const f of fields) if (from[f] !== DEFAULT_DRAFT[f]) (patch as Record<string, unknown>)[f] = from[f];
  return Object.keys(patch).length > 0 ? patch : null;
}

/** The carried fields in words: "model, price range and rent mode". */
export function carriedInWords(patch: Partial<LaunchDraft>): string {
  const words: string[] = [];
  if (patch.model !== undefined) words.push('model');
  if (patch.min_dph !== undefined || patch.max_dph !== undefined) words.push('price range');
  if (patch.target !== undefined) words.push(patch.target === 'marketplace' ? 'rent mode' : 'backend choice');
  if (patch.reliability_pct !== undefined) words.push('reliability');
  if (patch.hours !== undefined) words.push('duration');
  if (patch.template_hash !== undefined) words.push('template');
  if (patch.backend_url !== undefined) words.push('backend URL');
  if (patch.max_cost_usd !== undefined) words.push('spend limit');
  if (words.length <= 1) return words[0] ?? 'fields';
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}
