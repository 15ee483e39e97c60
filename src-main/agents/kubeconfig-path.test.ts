import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveKubeconfigPath } from './kubeconfig-path';

describe('resolveKubeconfigPath', () => {
  const home = '/home/u';
  it('prefers the request, then the first KUBECONFIG entry, then ~/.kube/config', () => {
    expect(resolveKubeconfigPath('/a/kc', { KUBECONFIG: '/b' }, home)).toBe('/a/kc');
    expect(resolveKubeconfigPath(null, { KUBECONFIG: `${path.delimiter}/b${path.delimiter}/c` }, home)).toBe('/b');
    expect(resolveKubeconfigPath('  ', {}, home)).toBe('/home/u/.kube/config');
  });
  it('expands ~ and makes relative paths absolute', () => {
    expect(resolveKubeconfigPath('~/kc', {}, home)).toBe('/home/u/kc');
    expect(resolveKubeconfigPath('rel/kc', {}, home)).toBe(path.resolve('rel/kc'));
  });
});
