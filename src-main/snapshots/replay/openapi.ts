import { createHash } from 'node:crypto';
import { groupVersionPath, groupVersions, type ResourceInfo } from '../resources';
import type { Json } from './respond';

/**
 * The OpenAPI documents kubectl downloads before a write (`kubectl apply`): without them it stops
 * at "failed to download openapi" and never reaches the replay's read-only 403. Minimal but
 * valid: for each resource its paths with the `x-kubernetes-group-version-kind` of its kind and
 * the `fieldValidation` query parameter, so kubectl leaves validation to the server and sends the
 * write, which the replay refuses. No schemas: nothing is validated against them.
 */

function gvk(info: ResourceInfo): Json {
  return { group: info.group, version: info.version, kind: info.kind };
}

const FIELD_VALIDATION = { name: 'fieldValidation', in: 'query', description: 'how the server treats unknown or duplicate fields (Ignore, Warn, Strict)' };

function operation(info: ResourceInfo, action: string, v3: boolean): Json {
  // OpenAPI 3 gives a parameter's type as a schema, Swagger 2 inline.
  const parameter = v3 ? { ...FIELD_VALIDATION, schema: { type: 'string' } } : { ...FIELD_VALIDATION, type: 'string', uniqueItems: true };
  return {
    operationId: `${action}${info.kind}`,
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk(info),
    parameters: [parameter],
    responses: { '403': { description: 'Forbidden: this cluster is a read-only snapshot' } },
  };
}

/** The collection and item paths of each resource of `resources`, with their write operations. */
function pathsOf(resources: readonly ResourceInfo[], v3: boolean): Json {
  const paths: Json = {};
  for (const info of resources) {
    const base = groupVersionPath(info);
    const collection = info.namespaced ? `${base}/namespaces/{namespace}/${info.resource}` : `${base}/${info.resource}`;
    paths[collection] = { post: operation(info, 'post', v3) };
    paths[`${collection}/{name}`] = { put: operation(info, 'put', v3), patch: operation(info, 'patch', v3), delete: operation(info, 'delete', v3) };
  }
  return paths;
}

/** `/openapi/v2`: Swagger 2.0. */
export function openApiV2(gitVersion: string): Json {
  return { swagger: '2.0', info: { title: 'Kubernetes', version: gitVersion }, paths: pathsOf(groupVersions().flatMap((g) => g.resources), false), definitions: {} };
}

/** `/openapi/v3/<api/v1 | apis/group/version>`: OpenAPI 3.0 of one group/version, or null. */
export function openApiV3(groupVersion: string, gitVersion: string): Json | null {
  const gv = groupVersions().find((g) => groupVersionPath(g).slice(1) === groupVersion);
  if (!gv) return null;
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: gitVersion }, paths: pathsOf(gv.resources, true), components: { schemas: {} } };
}

/** `/openapi/v3`: where each group/version's document is, with a hash of it (kubectl caches by it). */
export function openApiV3Index(gitVersion: string): Json {
  const paths: Json = {};
  for (const gv of groupVersions()) {
    const key = groupVersionPath(gv).slice(1);
    const hash = createHash('sha256').update(JSON.stringify(openApiV3(key, gitVersion))).digest('hex').slice(0, 32).toUpperCase();
    paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${hash}` };
  }
  return { paths };
}

