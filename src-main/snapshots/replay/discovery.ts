import { RESOURCES, groupVersions, type ResourceInfo } from '../resources';
import type { Json } from './respond';

/**
 * Discovery as kubectl reads it (/api, /apis, each group and group/version's resource list), the
 * version, and the route of a request path. Besides the snapshot's resources, the replay lists
 * the SelfSubjectAccessReview and SelfSubjectRulesReview of `authorization.k8s.io/v1`, which
 * `kubectl auth can-i` creates (access-review.ts answers them).
 */

export const AUTHORIZATION_GROUP = 'authorization.k8s.io';
const ACCESS_REVIEWS: Json[] = [
  { name: 'selfsubjectaccessreviews', singularName: 'selfsubjectaccessreview', namespaced: false, kind: 'SelfSubjectAccessReview', verbs: ['create'] },
  { name: 'selfsubjectrulesreviews', singularName: 'selfsubjectrulesreview', namespaced: false, kind: 'SelfSubjectRulesReview', verbs: ['create'] },
];

function resourceDiscovery(info: ResourceInfo): Json {
  return {
    name: info.resource,
    singularName: info.singular,
    namespaced: info.namespaced,
    kind: info.kind,
    verbs: ['get', 'list', 'watch'],
    ...(info.shortNames.length > 0 ? { shortNames: info.shortNames } : {}),
    ...(info.categories ? { categories: info.categories } : {}),
  };
}

export function apiResourceList(group: string, version: string): Json | null {
  if (group === AUTHORIZATION_GROUP && version === 'v1') return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/v1`, resources: ACCESS_REVIEWS };
  const gv = groupVersions().find((g) => g.group === group && g.version === version);
  if (!gv) return null;
  const resources: Json[] = [];
  for (const info of gv.resources) {
    resources.push(resourceDiscovery(info));
    if (info.resource === 'pods') resources.push({ name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] });
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources };
}

function groupNames(): string[] {
  return [...new Set(groupVersions().map((g) => g.group).filter(Boolean)), AUTHORIZATION_GROUP];
}

export function apiGroup(name: string): Json | null {
  const versions = name === AUTHORIZATION_GROUP ? ['v1'] : groupVersions().filter((g) => g.group === name).map((g) => g.version);
  if (versions.length === 0) return null;
  const list = versions.map((version) => ({ groupVersion: `${name}/${version}`, version }));
  return { kind: 'APIGroup', apiVersion: 'v1', name, versions: list, preferredVersion: list[0] };
}

export function apiGroupList(): Json {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groupNames().map((n) => apiGroup(n)) };
}

export function versionInfo(gitVersion: string): Json {
  const m = /^v?(\d+)\.(\d+)/.exec(gitVersion);
  return {
    major: m?.[1] ?? '1',
    minor: m?.[2] ?? '31',
    gitVersion,
    gitCommit: '',
    gitTreeState: 'clean',
    buildDate: '1970-01-01T00:00:00Z',
    goVersion: 'go1.22',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

export type Route =
  | { type: 'discovery'; body: Json }
  | { type: 'resource'; info: ResourceInfo; namespace: string | null; name: string | null; sub: string | null }
  | { type: 'review'; kind: 'SelfSubjectAccessReview' | 'SelfSubjectRulesReview' }
  | { type: 'unknown' };

const INFO_BY_GVR = new Map(RESOURCES.map((r) => [`${r.group}/${r.version}/${r.resource}`, r]));

/** Where a path leads: `/api/v1/...`, `/apis/<group>/<version>/...`. */
export function routeOf(segments: string[]): Route {
  let group: string;
  let version: string | undefined;
  let rest: string[];
  if (segments[0] === 'api') {
    if (segments.length === 1) return { type: 'unknown' };
    group = '';
    version = segments[1];
    rest = segments.slice(2);
  } else if (segments[0] === 'apis') {
    if (segments.length === 1) return { type: 'discovery', body: apiGroupList() };
    group = segments[1] ?? '';
    if (segments.length === 2) {
      const body = apiGroup(group);
      return body ? { type: 'discovery', body } : { type: 'unknown' };
    }
    version = segments[2];
    rest = segments.slice(3);
  } else {
    return { type: 'unknown' };
  }
  if (rest.length === 0) {
    const body = apiResourceList(group, version ?? '');
    return body ? { type: 'discovery', body } : { type: 'unknown' };
  }
  if (group === AUTHORIZATION_GROUP && version === 'v1' && rest.length === 1) {
    if (rest[0] === 'selfsubjectaccessreviews') return { type: 'review', kind: 'SelfSubjectAccessReview' };
    if (rest[0] === 'selfsubjectrulesreviews') return { type: 'review', kind: 'SelfSubjectRulesReview' };
  }
  let namespace: string | null = null;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1] ?? '';
    rest = rest.slice(2);
  }
  if (rest.length > 3) return { type: 'unknown' };
  const info = INFO_BY_GVR.get(`${group}/${version}/${rest[0]}`);
  if (!info || (namespace !== null && !info.namespaced)) return { type: 'unknown' };
  return { type: 'resource', info, namespace, name: rest[1] ?? null, sub: rest[2] ?? null };
}
