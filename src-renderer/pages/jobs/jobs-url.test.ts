import { describe, expect, it } from 'vitest';
import { DEFAULT_VIEW, ariaSortOf, paramsFromView, toggleSort, viewFromParams } from './jobs-url';

describe('the Jobs page view in the URL', () => {
  it('round-trips filters, search and sort, leaving defaults out', () => {
    const view = { status: 'failed', kind: 'benchmark', q: 'llama 3090', sort: '-cost' } as const;
    const params = paramsFromView(view);
    expect(params.toString()).toBe('status=failed&kind=benchmark&q=llama+3090&sort=-cost');
    expect(viewFromParams(params)).toEqual(view);
    expect(paramsFromView(DEFAULT_VIEW).toString()).toBe('');
    expect(paramsFromView({ ...DEFAULT_VIEW, q: '   ' }).toString()).toBe('');
  });

  it('ignores what it does not know', () => {
    expect(viewFromParams(new URLSearchParams('status=weird&kind=x&sort=price&q=ok'))).toEqual({ ...DEFAULT_VIEW, q: 'ok' });
  });

  it('sorts a column descending first, then ascending, and says so to screen readers', () => {
    expect(toggleSort('-created', 'cost')).toBe('-cost');
    expect(toggleSort('-cost', 'cost')).toBe('cost');
    expect(toggleSort('cost', 'cost')).toBe('-cost');
    expect(toggleSort('-created', 'created')).toBe('created');
    expect(ariaSortOf('-cost', 'cost')).toBe('descending');
    expect(ariaSortOf('duration', 'duration')).toBe('ascending');
    expect(ariaSortOf('-cost', 'created')).toBe('none');
  });
});
