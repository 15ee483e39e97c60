import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MAX_LISTED_ISSUES, type Problem } from '../../shared';
import { ProblemError } from '../../src-main/app/problem-error';
import { TOKENS, makeBench, removeDir, type TestBench } from '../helpers/bench';
import { portOf } from './raw-http';

/** Issue 14 item 6: error bodies are bounded whatever the request body holds. */

let t: TestBench;
let base: string;
beforeAll(async () => {
  t = await makeBench({ start: true });
  base = `http://127.0.0.1:${portOf(t.bd.app)}`;
});
afterAll(async () => {
  await t.close();
  await removeDir(t.dir);
});

async function post(path: string, body: string): Promise<{ status: number; text: string; problem: Problem }> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: `Bearer ${TOKENS.default}`, 'content-type': 'application/json' }, body });
  const text = await res.text();
  return { status: res.status, text, problem: JSON.parse(text) as Problem };
}

describe('bounded validation errors', () => {
  it('80,000 unknown keys in a ~1 MB body give a small 422 that counts what it does not list', async () => {
    const keys = Array.from({ length: 80_000 }, (_, i) => `k${String(i).padStart(5, '0')}`);
    const body = `{"backend_url":"http://ok",${keys.map((k) => `"${k}":1`).join(',')}}`;
    expect(body.length).toBeGreaterThan(800_000);
    expect(body.length).toBeLessThan(1024 * 1024);
    const { status, text, problem } = await post('/v1/jobs/llm-instance', body);
    expect(status).toBe(422);
    expect(problem.code).toBe('validation_failed');
    expect(text.length).toBeLessThan(8 * 1024);
    const unknown = problem.errors?.find((e) => e.message.startsWith('unknown field(s)'));
    expect(unknown?.message).toContain('k00000');
    expect(unknown?.message).toContain('and 79980 more');
    // The key list appears in the errors once, not repeated over detail and error.
    expect(text.split('k00019').length - 1).toBeLessThanOrEqual(1);
    expect(t.bd.store.count()).toBe(0);
  });

  it('many distinct issues are capped at MAX_LISTED_ISSUES, with how many more there are', () => {
    // No job request has 200 fields; the cap itself is checked on a schema that yields 200 issues.
    const parsed = z.array(z.string()).safeParse(Array.from({ length: 200 }, () => 1));
    expect(parsed.success).toBe(false);
    const problem = ProblemError.validation(parsed.error?.issues ?? [], 'list').toProblem();
    const errors = problem.errors ?? [];
    expect(errors).toHaveLength(MAX_LISTED_ISSUES + 1);
    expect(errors.at(-1)).toEqual({ path: '', message: `${200 - MAX_LISTED_ISSUES} more issue(s) not listed` });
    expect(problem.detail).toMatch(/197 more issue\(s\)/);
    expect(JSON.stringify(problem).length).toBeLessThan(8 * 1024);
  });

  it('one huge unknown key is clipped', async () => {
    const key = 'x'.repeat(500_000);
    const { status, text } = await post('/v1/jobs/llm-instance', JSON.stringify({ backend_url: 'http://ok', [key]: 1 }));
    expect(status).toBe(422);
    expect(text.length).toBeLessThan(8 * 1024);
  });
});
