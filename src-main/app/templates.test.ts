import { describe, expect, it } from 'vitest';
import { MarketplaceHttpError } from '../marketplace/errors';
import type { FieldFilter } from '../marketplace/vast-client';
import type { MarketplaceTemplate } from '../marketplace/vast-wire';
import { ProblemError } from './problem-error';
import { createTemplateSearch } from './templates';

const OLLAMA = '4e17788f74f075dd9aab7d0d4427968f';
const TEAM = 'c0ffee00c0ffee00c0ffee00c0ffee00';
const t = (hash_id: string, name: string, extra: Partial<MarketplaceTemplate> = {}): MarketplaceTemplate => ({ id: 1, hash_id, name, image: 'vastai/ollama', tag: '1', recommended: true, count_created: 10, ...extra });
const CATALOGUE = [t(OLLAMA, 'Ollama', { count_created: 500 }), t('1'.repeat(32), 'Ollama (open)', { count_created: 50 }), t('2'.repeat(32), 'PyTorch', { count_created: 900 }), t(TEAM, 'Ollama (team)', { recommended: false, count_created: 1 })];

/** A marketplace that answers the operator filters the way Vast does (eq only), counting calls. */
function market(fail?: Error) {
  const calls: Record<string, FieldFilter>[] = [];
  return {
    calls,
    client: {
      async searchTemplates(filters: Record<string, FieldFilter>) {
        calls.push(filters);
        if (fail) throw fail;
        return CATALOGUE.filter((x) => Object.entries(filters).every(([k, f]) => (x as Record<string, unknown>)[k] === f.eq));
      },
    },
  };
}

describe('template search', () => {
  it('a first search by part of a name finds the recommended templates that contain it (no plain listing before it)', async () => {
    const m = market();
    const found = await createTemplateSearch({ marketplace: () => m.client })({ q: 'ollama' });
    expect(found.templates.map((x) => x.name)).toEqual(['Ollama', 'Ollama (open)']);
  });

  it('lists the recommended templates, most used first, and reads them once for a while', async () => {
    const m = market();
    let now = 0;
    const search = createTemplateSearch({ marketplace: () => m.client, now: () => now });
    const first = await search({});
    expect(first.note).toBeNull();
    expect(first.templates.map((x) => x.name)).toEqual(['PyTorch', 'Ollama', 'Ollama (open)']);
    expect(first.templates[1]).toEqual({ hash_id: OLLAMA, name: 'Ollama', image: 'vastai/ollama', tag: '1', recommended: true, count_created: 500, recommended_disk_space: null });
    await search({});
    expect(m.calls).toEqual([{ recommended: { eq: true } }]);
    now += 11 * 60_000;
    await search({});
    expect(m.calls).toHaveLength(2);
  });

  it('a hash is one exact lookup, asked every time (a deleted template must show as gone); a name is one exact lookup plus the recommended names that contain it', async () => {
    const m = market();
    const search = createTemplateSearch({ marketplace: () => m.client });
    expect((await search({ q: TEAM })).templates.map((x) => x.hash_id)).toEqual([TEAM]);
    expect(m.calls.at(-1)).toEqual({ hash_id: { eq: TEAM } });
    // Two at once share the call; the next one asks again.
    await Promise.all([search({ q: TEAM }), search({ q: TEAM })]);
    expect(m.calls).toHaveLength(2);
    await search({ q: TEAM });
    expect(m.calls).toHaveLength(3);
    expect((await search({ q: 'f'.repeat(32) })).templates).toEqual([]);
    // A name also reads the recommended list when it is not kept yet (issue 34 item 11: a search before any plain listing found nothing).
    expect((await search({ q: 'Ollama (team)' })).templates.map((x) => x.name)).toEqual(['Ollama (team)']);
    expect(m.calls.slice(-2)).toEqual([{ recommended: { eq: true } }, { name: { eq: 'Ollama (team)' } }]);
    const named = m.calls.length;
    await search({ q: 'Ollama (team)' });
    expect(m.calls.length).toBe(named);
    const calls = m.calls.length;
    const found = await search({ q: 'ollama' });
    expect(m.calls.length).toBe(calls + 1);
    expect(m.calls.at(-1)).toEqual({ name: { eq: 'ollama' } });
    expect(found.templates.map((x) => x.name)).toEqual(['Ollama', 'Ollama (open)']);
  });

  it('without a key: an empty list that says why; a marketplace failure is a 502 problem', async () => {
    expect(await createTemplateSearch({ marketplace: () => null })({ q: 'x' })).toEqual({ templates: [], note: expect.stringMatching(/no marketplace key/) as string });
    const failing = market(new MarketplaceHttpError('Vast.ai answered HTTP 503 on GET /template/', 'upstream_unavailable', 503, 'GET /template/'));
    const search = createTemplateSearch({ marketplace: () => failing.client });
    const err = await search({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProblemError);
    expect(err).toMatchObject({ status: 502, code: 'upstream_error' });
    // The failure is not cached: the next search asks again.
    await search({}).catch(() => undefined);
    expect(failing.calls).toHaveLength(2);
  });
});
