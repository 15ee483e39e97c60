import type { ServerResponse } from 'node:http';
import type { SnapshotResource } from '../../../shared/snapshots';
import { apiVersionOf, type ResourceInfo } from '../resources';
import { SelectorError, matchesFields, parseFieldSelector, parseLabelSelector } from '../selectors';
import { acceptedForm, partialObjectMetadata, type IncludeObject } from '../table';
import type { ReplayEntry, ReplayIndex } from './replay-index';
import { send, sendJson, sendPieces, sendStatus } from './respond';
import { openWatch, type WatchRegistry } from './watch';

/** List (with selectors, paging, the Table and metadata forms, or a watch) and get on the replay. */

type Query = URLSearchParams;

const RESOURCE_VERSION = '1';

/** `pods` or `deployments.apps`, as the API server names a resource in its messages. */
export function qualified(info: ResourceInfo): string {
  return info.group ? `${info.resource}.${info.group}` : info.resource;
}

function notFound(res: ServerResponse, info: ResourceInfo, name: string): void {
  sendStatus(res, 404, 'NotFound', `${qualified(info)} "${name}" not found`, { name, ...(info.group ? { group: info.group } : {}), kind: info.resource });
}

function decodeContinue(token: string | null): number | null {
  if (!token) return 0;
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { o?: unknown };
    return typeof parsed.o === 'number' && Number.isInteger(parsed.o) && parsed.o >= 0 ? parsed.o : null;
  } catch {
    return null;
  }
}

function encodeContinue(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset, rv: RESOURCE_VERSION })).toString('base64url');
}

function flag(query: Query, name: string): boolean {
  const value = query.get(name);
  return value === 'true' || value === '1';
}

function includeObjectOf(query: Query): IncludeObject {
  const value = query.get('includeObject');
  return value === 'None' || value === 'Object' ? value : 'Metadata';
}

function selectEntries(index: ReplayIndex, res: ServerResponse, resource: SnapshotResource, namespace: string | null, query: Query): ReplayEntry[] | null {
  try {
    const labels = parseLabelSelector(query.get('labelSelector') ?? undefined);
    const fields = parseFieldSelector(query.get('fieldSelector') ?? undefined);
    const read = index.fieldReader(resource, fields);
    const out: ReplayEntry[] = [];
    for (const entry of index.entries(resource)) {
      if (namespace !== null && entry.namespace !== namespace) continue;
      if (!labels(entry.labels)) continue;
      if (fields.length > 0 && !matchesFields(fields, (field) => read(entry, field))) continue;
      out.push(entry);
    }
    return out;
  } catch (err) {
    if (err instanceof SelectorError) {
      sendStatus(res, 400, 'BadRequest', err.message);
      return null;
    }
    throw err;
  }
}

export function listObjects(index: ReplayIndex, watches: WatchRegistry, res: ServerResponse, info: ResourceInfo, namespace: string | null, query: Query, accept: string | undefined): void {
  const selected = selectEntries(index, res, info.resource, namespace, query);
  if (selected === null) return;
  if (flag(query, 'watch')) return openWatch(res, selected, query, watches);
  const limitText = query.get('limit');
  const limit = limitText === null || limitText === '' ? 0 : Number(limitText);
  if (!Number.isInteger(limit) || limit < 0) return sendStatus(res, 400, 'BadRequest', `limit: Invalid value: "${limitText}": must be a non-negative integer`);
  const offset = decodeContinue(query.get('continue'));
  if (offset === null) return sendStatus(res, 400, 'BadRequest', 'continue key is not valid: the token was not issued by this server');
  let page = selected.slice(offset);
  let metadata = `{"resourceVersion":"${RESOURCE_VERSION}"}`;
  if (limit > 0 && page.length > limit) {
    const remaining = page.length - limit;
    page = page.slice(0, limit);
    metadata = `{"resourceVersion":"${RESOURCE_VERSION}","continue":"${encodeContinue(offset + limit)}","remainingItemCount":${remaining}}`;
  }
  const form = acceptedForm(accept);
  if (form.form === 'table') {
    const include = includeObjectOf(query);
    const rows = page.map((entry) => index.rowBytes(info.resource, entry, include, form.version));
    return sendPieces(res, 200, { head: `{"kind":"Table","apiVersion":"meta.k8s.io/${form.version}","metadata":${metadata},"columnDefinitions":${index.columnDefinitionsJson(info.resource)},"rows":[`, items: rows, tail: ']}' });
  }
  if (form.form === 'metadata') {
    const items = page.map((entry) => Buffer.from(JSON.stringify(partialObjectMetadata(entry.object, form.version))));
    return sendPieces(res, 200, { head: `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/${form.version}","metadata":${metadata},"items":[`, items, tail: ']}' });
  }
  sendPieces(res, 200, { head: `{"kind":"${info.kind}List","apiVersion":"${apiVersionOf(info)}","metadata":${metadata},"items":[`, items: page.map((entry) => entry.bytes), tail: ']}' });
}

export function getObject(index: ReplayIndex, res: ServerResponse, info: ResourceInfo, namespace: string, name: string, query: Query, accept: string | undefined): void {
  const entry = index.find(info.resource, namespace, name);
  if (!entry) return notFound(res, info, name);
  const form = acceptedForm(accept);
  if (form.form === 'table') {
    const row = index.rowBytes(info.resource, entry, includeObjectOf(query), form.version);
    return sendPieces(res, 200, { head: `{"kind":"Table","apiVersion":"meta.k8s.io/${form.version}","metadata":{"resourceVersion":"${RESOURCE_VERSION}"},"columnDefinitions":${index.columnDefinitionsJson(info.resource)},"rows":[`, items: [row], tail: ']}' });
  }
  if (form.form === 'metadata') return sendJson(res, 200, partialObjectMetadata(entry.object, form.version));
  send(res, 200, entry.bytes);
}

