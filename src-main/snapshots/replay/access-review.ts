import type { IncomingMessage, ServerResponse } from 'node:http';
import { RESOURCES } from '../resources';
import { AUTHORIZATION_GROUP } from './discovery';
import { sendJson, sendStatus, type Json } from './respond';

/**
 * `kubectl auth can-i` against the replay: it creates a SelfSubjectAccessReview (or, with
 * `--list`, a SelfSubjectRulesReview) and prints yes or no. The replay answers as a cluster whose
 * only rights are reading what the snapshot holds: get, list and watch of its resources (and
 * `pods/log`) are allowed; every write, and anything it does not serve (Secrets), is not.
 */

const READ_VERBS = new Set(['get', 'list', 'watch']);
const READ_ONLY_REASON = 'this cluster is a read-only snapshot (benchdesk replay): only get, list and watch of what it recorded are allowed';
const MAX_REVIEW_BYTES = 64 * 1024;
const NON_RESOURCE_URLS = ['/api', '/api/*', '/apis', '/apis/*', '/version', '/healthz', '/livez', '/readyz', '/openapi', '/openapi/*'];

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Whether a read-only snapshot allows these attributes (SelfSubjectAccessReview's spec). */
export function allows(spec: Json): boolean {
  const resource = spec.resourceAttributes as Json | undefined;
  if (resource && typeof resource === 'object') {
    const verb = str(resource.verb);
    const name = str(resource.resource);
    const sub = str(resource.subresource);
    const served = RESOURCES.some((r) => r.group === str(resource.group) && (r.resource === name || name === '*'));
    if (sub) return verb === 'get' && name === 'pods' && sub === 'log' && str(resource.group) === '';
    return READ_VERBS.has(verb) && served && name !== '*';
  }
  const nonResource = spec.nonResourceAttributes as Json | undefined;
  if (nonResource && typeof nonResource === 'object') {
    const path = str(nonResource.path);
    return str(nonResource.verb) === 'get' && NON_RESOURCE_URLS.some((u) => (u.endsWith('*') ? path.startsWith(u.slice(0, -1)) : path === u));
  }
  return false;
}

function rulesReview(namespace: string): Json {
  const groups = [...new Set(RESOURCES.map((r) => r.group))];
  return {
    resourceRules: [
      ...groups.map((group) => ({ verbs: ['get', 'list', 'watch'], apiGroups: [group], resources: RESOURCES.filter((r) => r.group === group && (r.namespaced || namespace === '')).map((r) => r.resource) })),
      { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] },
      { verbs: ['create'], apiGroups: [AUTHORIZATION_GROUP], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] },
    ],
    nonResourceRules: [{ verbs: ['get'], nonResourceURLs: NON_RESOURCE_URLS }],
    incomplete: false,
  };
}

/** Reads the review's JSON body (at most 64 KiB) and answers 201 with its status, as the API server does. */
export function answerReview(req: IncomingMessage, res: ServerResponse, kind: 'SelfSubjectAccessReview' | 'SelfSubjectRulesReview'): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_REVIEW_BYTES) chunks.push(chunk);
  });
  req.on('end', () => {
    if (size > MAX_REVIEW_BYTES) return sendStatus(res, 413, 'RequestEntityTooLarge', 'the review is larger than 64 KiB');
    let body: Json;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
    } catch {
      return sendStatus(res, 400, 'BadRequest', `the ${kind} is not valid JSON`);
    }
    if (typeof body !== 'object' || body === null || typeof body.spec !== 'object' || body.spec === null) return sendStatus(res, 400, 'BadRequest', `the ${kind} has no spec`);
    const spec = body.spec as Json;
    const verdict =
      kind === 'SelfSubjectAccessReview'
        ? allows(spec)
          ? { allowed: true, reason: 'a read of what the snapshot recorded' }
          : { allowed: false, denied: true, reason: READ_ONLY_REASON }
        : rulesReview(str(spec.namespace));
    sendJson(res, 201, { kind, apiVersion: `${AUTHORIZATION_GROUP}/v1`, metadata: { creationTimestamp: null }, spec, status: verdict });
  });
}
