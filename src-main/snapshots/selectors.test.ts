import { describe, expect, it } from 'vitest';
import { matchesFields, parseFieldSelector, parseLabelSelector, SelectorError } from './selectors';

describe('label selectors (apimachinery labels.Parse)', () => {
  const web = { app: 'web', tier: 'frontend', 'app.kubernetes.io/part-of': 'shop' };
  const api = { app: 'api', tier: 'backend' };
  const bare = undefined;
  it.each([
    ['', [true, true, true]],
    ['app=web', [true, false, false]],
    ['app==web', [true, false, false]],
    ['app!=web', [false, true, true]],
    ['app in (web,api)', [true, true, false]],
    ['app notin (web)', [false, true, true]],
    ['tier', [true, true, false]],
    ['!tier', [false, false, true]],
    ['app in (web, api),tier=backend', [false, true, false]],
    ['app.kubernetes.io/part-of=shop', [true, false, false]],
  ])('%s', (selector, expected) => {
    const match = parseLabelSelector(selector);
    expect([match(web), match(api), match(bare)]).toEqual(expected);
  });

  it('a malformed selector is a SelectorError naming it', () => {
    for (const bad of ['app=web,', 'app in web', '=web', 'app=we b', 'a b c']) {
      expect(() => parseLabelSelector(bad), bad).toThrow(SelectorError);
    }
  });
});

describe('field selectors', () => {
  it('=, == and !=, joined by commas; escaped commas stay in the value', () => {
    expect(parseFieldSelector('status.phase=Running,spec.nodeName!=node-3,metadata.name==a')).toEqual([
      { field: 'status.phase', op: '=', value: 'Running' },
      { field: 'spec.nodeName', op: '!=', value: 'node-3' },
      { field: 'metadata.name', op: '=', value: 'a' },
    ]);
    expect(parseFieldSelector('involvedObject.name=a\\,b')).toEqual([{ field: 'involvedObject.name', op: '=', value: 'a,b' }]);
    expect(parseFieldSelector('spec.nodeName=')).toEqual([{ field: 'spec.nodeName', op: '=', value: '' }]);
  });
  it('matches against the values the reader gives', () => {
    const fields: Record<string, string> = { 'status.phase': 'Pending', 'spec.nodeName': '' };
    const read = (f: string) => fields[f] ?? '';
    expect(matchesFields(parseFieldSelector('status.phase=Pending,spec.nodeName='), read)).toBe(true);
    expect(matchesFields(parseFieldSelector('status.phase!=Pending'), read)).toBe(false);
  });
  it('a term without an operator is a SelectorError', () => {
    expect(() => parseFieldSelector('status.phase')).toThrow(SelectorError);
  });
});
