import type { IncomingMessage, ServerResponse } from 'node:http';
import { RESOURCES, apiVersionOf, groupVersions, type ResourceInfo } from '../../src-main/snapshots/resources';
import { parseLabelSelector, SelectorError } from '../../src-main/snapshots/selectors';
import { acceptedForm, tableRow, toTable } from '../../src-main/snapshots/table';
import type { ContainerLogs, Json } from './kubernetes-seed';

/**
 * How the fake Kubernetes API (kubernetes.ts) answers a request: discovery, lists and single
 * objects (JSON or kubectl's Table form), pod logs, and the API server's Status errors.
 */

/** The cluster a fake serves, and what the test set on it. */
export type ServedCluster = {
  token: string;
  objects: Map<string, Json[]>;
  /** Pods by `namespace/name`: log reads find theirs by key (thousands against thousands of pods). */
  podsByKey: Map<string, Json>;
  logs: Map<string, ContainerLogs>;
  forbidden: Set<string>;
  port: number;
};

export function getField(obj: unknown, dotted: string): string | undefined {
  let cur: unknown = obj;
  for (const part of dotted.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Json)[part];
  }
  return cur === undefined || cur === null ? undefined : String(cur);
}

/** fieldSelector: terms joined by ",", each k=v, k==v or k!=v over a dotted field. */
function matches(selector: string | undefined, read: (key: string) => string | undefined): boolean {
  if (!selector) return true;
  for (const term of selector.split(',')) {
    const m = /^([^!=]+)(!=|==|=)(.*)$/.exec(term.trim());
    if (!m) continue;
    const [, key = '', op, value = ''] = m;
    const actual = read(key.trim()) ?? '';
    if (op === '!=' ? actual === value : actual !== value) return false;
  }
  return true;
}

export function status(code: number, reason: string, message: string, details?: Json): Json {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}

/** Secrets are served (so a read would show in `calls`) but are no snapshot resource: no Table for them. */
const SECRETS = { resource: 'secrets', group: '', version: 'v1', kind: 'Secret', singular: 'secret', namespaced: true, shortNames: [] } as unknown as ResourceInfo;
const INFO_BY_PATH = new Map<string, ResourceInfo>(RESOURCES.map((r) => [`${r.group}/${r.version}/${r.resource}`, r]));

export function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendText(res: ServerResponse, code: number, body: string): void {
  res.writeHead(code, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** A list in the API server's order, filtered by field and label selectors, paged by limit and continue; a Table when asked. */
function list(req: IncomingMessage, res: ServerResponse, info: ResourceInfo, items: Json[], query: Record<string, string>): void {
  let labels: ReturnType<typeof parseLabelSelector>;
  try {
    labels = parseLabelSelector(query.labelSelector);
  } catch (err) {
    if (err instanceof SelectorError) return sendJson(res, 400, status(400, 'BadRequest', err.message));
    throw err;
  }
  // In the API server's order (etcd keys: namespace, then name), as a real list comes.
  const ordered = [...items].sort((a, b) => {
    const ka = `${getField(a, 'metadata.namespace') ?? ''}/${getField(a, 'metadata.name') ?? ''}`;
    const kb = `${getField(b, 'metadata.namespace') ?? ''}/${getField(b, 'metadata.name') ?? ''}`;
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
  let filtered = ordered.filter((it) => matches(query.fieldSelector, (k) => getField(it, k)) && labels((it.metadata as Json).labels as Record<string, string> | undefined));
  const offset = query.continue ? Number(Buffer.from(query.continue, 'base64url').toString('utf8')) : 0;
  const limit = query.limit ? Number(query.limit) : 0;
  let cont: string | undefined;
  filtered = filtered.slice(offset);
  if (limit > 0 && filtered.length > limit) {
    filtered = filtered.slice(0, limit);
    cont = Buffer.from(String(offset + limit)).toString('base64url');
  }
  const form = acceptedForm(req.headers.accept);
  if (form.form === 'table' && info.kind !== 'Secret') {
    return sendJson(res, 200, toTable(info.resource, filtered, Date.now(), { resourceVersion: '2000', ...(cont ? { continueToken: cont } : {}), tableVersion: form.version }));
  }
  sendJson(res, 200, {
    kind: `${info.kind}List`,
    apiVersion: apiVersionOf(info),
    metadata: { resourceVersion: '2000', ...(cont ? { continue: cont } : {}) },
    items: filtered,
  });
}

/** Answers 403 Status when `resource` is one the test forbids. */
function forbid(cluster: ServedCluster, res: ServerResponse, resource: string, namespace?: string): boolean {
  if (!cluster.forbidden.has(resource)) return false;
  const [plural = resource, sub] = resource.split('/');
  const scope = namespace ? `in the namespace "${namespace}"` : 'at the cluster scope';
  const verb = sub === 'log' ? 'get' : 'list';
  const group = RESOURCES.find((r) => r.resource === plural)?.group ?? '';
  sendJson(
    res,
    403,
    status(403, 'Forbidden', `${resource} is forbidden: User "system:serviceaccount:ro:agent" cannot ${verb} resource "${plural}"${sub ? ` subresource "${sub}"` : ''} in API group "${group}" ${scope}`, { kind: plural }),
  );
  return true;
}

/** A container's log as text, with the API server's 400s (no container named in a multi-container pod, a waiting container, no previous one). */
function podLog(cluster: ServedCluster, res: ServerResponse, ns: string, name: string, query: Record<string, string>): void {
  const p = cluster.podsByKey.get(`${ns}/${name}`);
  if (!p) return sendJson(res, 404, status(404, 'NotFound', `pods "${name}" not found`, { name, kind: 'pods' }));
  const containers = ((p.spec as Json).containers as Json[]).map((c) => String(c.name));
  let container = query.container;
  if (!container) {
    if (containers.length > 1) {
      return sendJson(res, 400, status(400, 'BadRequest', `a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`));
    }
    container = containers[0] ?? '';
  }
  if (!containers.includes(container)) {
    return sendJson(res, 400, status(400, 'BadRequest', `container ${container} is not valid for pod ${name}`));
  }
  const entry = cluster.logs.get(`${ns}/${name}/${container}`) ?? { current: '' };
  if (entry.waiting) return sendJson(res, 400, status(400, 'BadRequest', entry.waiting));
  let text: string;
  if (query.previous === 'true') {
    if (entry.previous === undefined) {
      return sendJson(res, 400, status(400, 'BadRequest', `previous terminated container "${container}" in pod "${name}" not found`));
    }
    text = entry.previous;
  } else {
    text = entry.current;
  }
  if (query.tailLines) {
    const lines = text.split('\n');
    const trailing = lines[lines.length - 1] === '' ? lines.pop() : undefined;
    text = lines.slice(-Number(query.tailLines)).join('\n') + (trailing === '' ? '\n' : '');
  }
  if (query.limitBytes) text = Buffer.from(text).subarray(0, Number(query.limitBytes)).toString('utf8');
  sendText(res, 200, text);
}

function notFound(res: ServerResponse, info: ResourceInfo, name: string): void {
  sendJson(res, 404, status(404, 'NotFound', `${info.group ? `${info.resource}.${info.group}` : info.resource} "${name}" not found`, { name, kind: info.resource }));
}

/** Discovery as the real API server answers it: every resource this fake serves, with its verbs and short names. */
function discovery(pathname: string, port: number): Json | undefined {
  if (pathname === '/api') return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${port}` }] };
  const gvs = groupVersions();
  if (pathname === '/apis') {
    const groups = [...new Set(gvs.map((g) => g.group).filter(Boolean))];
    return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map((name) => ({ name, versions: [{ groupVersion: `${name}/v1`, version: 'v1' }], preferredVersion: { groupVersion: `${name}/v1`, version: 'v1' } })) };
  }
  const gv = gvs.find((g) => (g.group ? `/apis/${g.group}/${g.version}` : `/api/${g.version}`) === pathname);
  if (!gv) return undefined;
  const resources: Json[] = gv.resources.map((r) => ({ name: r.resource, singularName: r.singular, namespaced: r.namespaced, kind: r.kind, verbs: ['get', 'list'], ...(r.shortNames.length ? { shortNames: r.shortNames } : {}) }));
  if (!gv.group) resources.push({ name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] }, { name: 'secrets', singularName: 'secret', namespaced: true, kind: 'Secret', verbs: ['get', 'list'] });
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: gv.group ? `${gv.group}/${gv.version}` : gv.version, resources };
}

/** Answers one GET of the Kubernetes API from the served cluster (anything else is 405). */
export function route(cluster: ServedCluster, req: IncomingMessage, res: ServerResponse, pathname: string, query: Record<string, string>): void {
  if (req.method !== 'GET') return sendJson(res, 405, status(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'));
  if (req.headers.authorization !== `Bearer ${cluster.token}`) return sendJson(res, 401, status(401, 'Unauthorized', 'Unauthorized'));

  if (pathname === '/version') {
    return sendJson(res, 200, { major: '1', minor: '31', gitVersion: 'v1.31.0', platform: 'linux/amd64', goVersion: 'go1.22.5' });
  }
  const found = discovery(pathname, cluster.port);
  if (found) return sendJson(res, 200, found);

  // /api/v1/[namespaces/{ns}/]{resource}[/{name}[/log]] and /apis/{group}/{version}/…
  const m = /^\/(?:api\/(v1)|apis\/([^/]+)\/([^/]+))\/(.+)$/.exec(pathname);
  if (m) {
    const group = m[2] ?? '';
    const version = m[1] ?? m[3] ?? '';
    let rest = (m[4] ?? '').split('/');
    let ns: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      ns = rest[1];
      rest = rest.slice(2);
    }
    const [resource = '', name, sub] = rest;
    const info = resource === 'secrets' && !group ? SECRETS : INFO_BY_PATH.get(`${group}/${version}/${resource}`);
    if (info && rest.length <= 3 && (ns === undefined || info.namespaced)) {
      if (sub === 'log' && resource === 'pods' && ns && name) return forbid(cluster, res, 'pods/log', ns) ? undefined : podLog(cluster, res, ns, name, query);
      if (sub) return sendJson(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
      if (forbid(cluster, res, resource, ns)) return;
      const all = cluster.objects.get(resource) ?? [];
      const items = ns === undefined ? all : all.filter((it) => getField(it, 'metadata.namespace') === ns);
      if (!name) return list(req, res, info, items, query);
      if (info.namespaced && ns === undefined) return sendJson(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
      const item = items.find((it) => getField(it, 'metadata.name') === name);
      if (!item) return notFound(res, info, name);
      const form = acceptedForm(req.headers.accept);
      if (form.form === 'table' && info.kind !== 'Secret') return sendJson(res, 200, { ...toTable(info.resource, [], Date.now(), { tableVersion: form.version }), rows: [tableRow(info.resource, item, Date.now())] });
      return sendJson(res, 200, { kind: info.kind, apiVersion: apiVersionOf(info), ...item });
    }
  }
  sendJson(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
}
