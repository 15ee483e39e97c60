import { describe, expect, it } from 'vitest';
import { pathOfHash, searchOfHash } from './hash-location';

describe('hash location', () => {
  it('routes on the path part of the hash and keeps the page query apart', () => {
    expect(pathOfHash('')).toBe('/');
    expect(pathOfHash('#/')).toBe('/');
    expect(pathOfHash('#/jobs')).toBe('/jobs');
    expect(pathOfHash('#/jobs?status=failed&q=llama')).toBe('/jobs');
    expect(pathOfHash('#jobs/abc')).toBe('/jobs/abc');
    expect(searchOfHash('#/jobs?status=failed&q=llama')).toBe('status=failed&q=llama');
    expect(searchOfHash('#/jobs')).toBe('');
  });
});
