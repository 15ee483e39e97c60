import type { MarketplaceTemplateEntry, MarketplaceTemplateList, TemplateSearchQuery } from '../../shared';
import { isMarketplaceError } from '../marketplace/errors';
import type { FieldFilter, VastApi } from '../marketplace/vast-client';
import type { MarketplaceTemplate } from '../marketplace/vast-wire';
import { ProblemError } from './problem-error';

/**
 * Marketplace templates for the Launch form's picker (GET /v1/marketplace/templates). The
 * marketplace allows one template call per 3 s and has no text search, so: the recommended list
 * is read once and kept a while (a name search filters it here, and reads it first when it is not
 * kept), and a search makes one call of its own (a hash, or an exact name). A name's answer is
 * kept a minute; a hash is always asked (it is how Launch checks the template still exists before
 * renting). Identical searches in flight share one call.
 */

const RECOMMENDED_TTL_MS = 10 * 60_000;
const SEARCH_TTL_MS = 60_000;
const CALL_TIMEOUT_MS = 30_000;
/** Vast content hashes are 32 hex digits; anything else is searched as a name. */
const HASH_LIKE = /^[0-9a-f]{32}$/i;

export type TemplateSearchDeps = {
  marketplace(): Pick<VastApi, 'searchTemplates'> | null;
  now?: () => number;
};

export type TemplateSearch = (query: TemplateSearchQuery) => Promise<MarketplaceTemplateList>;

type Cached = { at: number; value: Promise<MarketplaceTemplate[]>; inFlight: boolean };

export function toTemplateEntry(t: MarketplaceTemplate): MarketplaceTemplateEntry {
  return {
    hash_id: t.hash_id,
    name: t.name ?? null,
    image: t.image ?? null,
    tag: t.tag ?? null,
    recommended: t.recommended === true,
    count_created: t.count_created ?? null,
    recommended_disk_space: t.recommended_disk_space ?? null,
  };
}

export function createTemplateSearch(deps: TemplateSearchDeps): TemplateSearch {
  const now = deps.now ?? Date.now;
  const cache = new Map<string, Cached>();
  let cachedClient: unknown = null;

  function cachedCall(client: Pick<VastApi, 'searchTemplates'>, key: string, ttl: number, filters: Record<string, FieldFilter>): Promise<MarketplaceTemplate[]> {
    // A new key (set or cleared in Settings) is another account: forget what the old one saw.
    if (client !== cachedClient) {
      cache.clear();
      cachedClient = client;
    }
    const hit = cache.get(key);
    if (hit && (now() - hit.at < ttl || hit.inFlight)) return hit.value;
    const value = client.searchTemplates(filters, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
    const entry: Cached = { at: now(), value, inFlight: true };
    cache.set(key, entry);
    value.then(
      () => {
        entry.inFlight = false;
        entry.at = now();
      },
      // A failure is not kept: the next search asks again.
      () => cache.delete(key),
    );
    return value;
  }

  /** The recommended list when it is kept (a hash lookup never waits for it). */
  async function keptRecommended(): Promise<MarketplaceTemplate[]> {
    const kept = cache.get('recommended');
    return kept ? kept.value.catch(() => []) : [];
  }

  return async (query) => {
    const client = deps.marketplace();
    if (!client) return { templates: [], note: 'no marketplace key is configured (set VAST_API_KEY), so the marketplace templates cannot be listed' };
    const q = query.q?.trim() ?? '';
    try {
      if (!q) {
        const recommended = await cachedCall(client, 'recommended', RECOMMENDED_TTL_MS, { recommended: { eq: true } });
        return { templates: rank(recommended, ''), note: null };
      }
      const hash = HASH_LIKE.test(q);
      // Names containing the text come from the recommended list, read first when it is not kept yet:
      // `templates --search ollama` used to find nothing until a plain `templates` had run.
      const listed = hash ? await keptRecommended() : await cachedCall(client, 'recommended', RECOMMENDED_TTL_MS, { recommended: { eq: true } }).catch(() => []);
      const found = await cachedCall(client, `q:${q}`, hash ? 0 : SEARCH_TTL_MS, hash ? { hash_id: { eq: q } } : { name: { eq: q } });
      const lower = q.toLowerCase();
      const partial = listed.filter((t) => (t.name ?? '').toLowerCase().includes(lower) || t.hash_id === q);
      return { templates: rank([...found, ...partial], q), note: null };
    } catch (err) {
      if (isMarketplaceError(err)) throw new ProblemError(502, 'upstream_error', `could not search the marketplace templates: ${err.message}`);
      throw err;
    }
  };
}

/** Unique by hash: the exact hash first, then exact names, then the most used. */
function rank(templates: readonly MarketplaceTemplate[], q: string): MarketplaceTemplateEntry[] {
  const byHash = new Map<string, MarketplaceTemplate>();
  for (const t of templates) if (!byHash.has(t.hash_id)) byHash.set(t.hash_id, t);
  const score = (t: MarketplaceTemplate) => (t.hash_id === q ? 0 : (t.name ?? '').toLowerCase() === q.toLowerCase() ? 1 : 2);
  return [...byHash.values()].sort((a, b) => score(a) - score(b) || (b.count_created ?? 0) - (a.count_created ?? 0) || (a.name ?? '').localeCompare(b.name ?? '')).map(toTemplateEntry);
}
