import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OLLAMA_TEMPLATE_HASH } from '../fakes/vast';
import { mustVast, startHarness, type Harness, type Reply } from './harness';

/** serving-benchmark requests refused over HTTP with a 422 naming the field; nothing is stored or run. */

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ vast: true });
});
afterAll(async () => {
  await h.close();
});

const body = (over: Record<string, unknown> = {}) => ({ backend_url: 'http://127.0.0.1:9', model: 'llama3.1:8b', ...over });

function expect422(res: Reply, path: string): string {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.headers['content-type']).toContain('application/problem+json');
  expect(res.body).toMatchObject({ status: 422, code: 'validation_failed' });
  const errors = res.body.errors as { path: string; message: string }[];
  const issue = errors.find((e) => e.path === path);
  expect(issue, JSON.stringify(errors)).toBeDefined();
  return issue?.message ?? '';
}

describe('POST /v1/jobs/serving-benchmark: 422', () => {
  it.each([
    ['a concurrency level below 1', { concurrency: [1, 0, 4] }, 'concurrency.1', />=1/],
    ['a negative concurrency level', { concurrency: [-2] }, 'concurrency.0', />=1/],
    ['a concurrency that is not a list', { concurrency: 4 }, 'concurrency', /list of levels/],
    ['a concurrency given as text', { concurrency: '1,2,4' }, 'concurrency', /list of levels/],
    ['no concurrency level at all', { concurrency: [] }, 'concurrency', /at least one level/],
    ['a fractional concurrency', { concurrency: [1.5] }, 'concurrency.0', /integer|int/i],
    ['a level listed twice', { concurrency: [2, 4, 2] }, 'concurrency.2', /lists level 2 twice/],
    ['requests_per_level below the largest level', { concurrency: [1, 8], requests_per_level: 4 }, 'requests_per_level', /at least the largest concurrency level: level 8 keeps 8 requests in flight/],
    ['requests_per_level below the default levels', { requests_per_level: 7 }, 'requests_per_level', /level 8/],
    ['zero output tokens', { output_tokens: 0 }, 'output_tokens', />=1/],
    ['output tokens as text', { output_tokens: '128' }, 'output_tokens', /number/],
    ['zero prompt tokens', { prompt_tokens: 0 }, 'prompt_tokens', /1/],
    ['negative warm-up requests', { warmup_requests: -1 }, 'warmup_requests', /0/],
    ['no model', { model: undefined }, 'model', /./],
    ['an unknown field', { rate: 4 }, '', /rate/],
  ])('%s', async (_what, over, path, message) => {
    const res = await h.post('/v1/jobs/serving-benchmark', body(over));
    if (path === '') {
      expect(res.status).toBe(422);
      expect(String(res.body.detail)).toMatch(message);
    } else {
      expect(expect422(res, path)).toMatch(message);
    }
  });

  it('marketplace: true needs template_hash and max_dph, and a model of the catalog', async () => {
    const res = await h.post('/v1/jobs/serving-benchmark', { marketplace: true, model: 'nope:1b' });
    expect422(res, 'template_hash');
    expect422(res, 'max_dph');
    const unknown = await h.post('/v1/jobs/serving-benchmark', { marketplace: true, model: 'nope:1b', template_hash: OLLAMA_TEMPLATE_HASH, max_dph: 1 });
    expect(expect422(unknown, 'model')).toContain("'nope:1b'");
    expect(mustVast(h).callsTo('asks')).toEqual([]);
  });

  it('stored nothing for any refused request', async () => {
    expect((await h.get('/v1/jobs')).body.jobs).toEqual([]);
  });
});
