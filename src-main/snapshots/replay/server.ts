import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { SnapshotResource } from '../../../shared/snapshots';
import { RESOURCES, apiVersionOf, groupVersions, type ResourceInfo } from '../resources';
import { SelectorError, matchesFields, parseFieldSelector, parseLabelSelector } from '../selectors';
import { acceptedForm, partialObjectMetadata, type IncludeObject } from '../table';
import { replayKubeconfig } from './kubeconfig';
import { replayCertificate } from './tls';
import type { ReplayEntry, ReplayIndex } from './replay-index';

/**
 * A read-only Kubernetes API server for one snapshot, on https://127.0.0.1 (design §11): discovery, list
 * and get (cluster-wide and per namespace) with label and field selectors and limit/continue
 * paging, the Table form kubectl asks for, pod logs (container, previous, tailLines,
 * limitBytes), a watch that lists once and then stays quiet, and a 403 Status for every write.
 * Requests need the bearer token of the kubeconfig it writes (0600, in a temp dir removed on close).
 */

type Json = Record<string, unknown>;
type Query = URLSearchParams;

const RESOURCE_VERSION = '1';
const MAX_WATCH_MS = 30 * 60_000;

export type ReplayServer = {
  /** https://127.0.0.1:<port> */
  readonly url: string;
  /** The replay's certificate (PEM), for clients that do not read the kubeconfig. */
  readonly caPem: string;
  readonly kubeconfigPath: string;
  readonly token: string;
  readonly index: ReplayIndex;
  close(): Promise<void>;
};

export type StartReplayOptions = {
  /** A name for the kubeconfig's context and cluster. */
  contextName?: string;
  /** Where the temp dir of the kubeconfig goes (default: the OS temp dir). */
  tempRoot?: string;
  host?: string;
  port?: number;
};

function status(code: number, reason: string, message: string, details?: Json): Json {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}

function send(res: ServerResponse, code: number, body: string | Buffer, contentType = 'application/json'): void {
  res.writeHead(code, { 'content-type': contentType, 'content-length': typeof body === 'string' ? Buffer.byteLength(body) : body.length, 'cache-control': 'no-cache, private' });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

const COMMA = Buffer.from(',');

/** A JSON answer in pieces: `head`, the items joined by commas, `tail`. */
type Pieces = { head: string; items: readonly Buffer[]; tail: string };

/**
 * Sends the pieces as they are (corked: one write to the socket), never copied into one large
 * Buffer: a list of 1,000 pods is 1.6 MB, and a fresh buffer of that size per answer made
 * garbage collection most of a list's cost.
 */
function sendPieces(res: ServerResponse, code: number, pieces: Pieces): void {
  const head = Buffer.from(pieces.head);
  const tail = Buffer.from(pieces.tail);
  let length = head.length + tail.length + Math.max(0, pieces.items.length - 1);
  for (const item of pieces.items) length += item.length;
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': length, 'cache-control': 'no-cache, private' });
  if (res.req.method === 'HEAD') {
    res.end();
    return;
  }
  res.cork();
  res.write(head);
  pieces.items.forEach((item, i) => {
    if (i > 0) res.write(COMMA);
    res.write(item);
  });
  res.end(tail);
  res.uncork();
}

function sendJson(res: ServerResponse, code: number, body: unknown): void {
  send(res, code, JSON.stringify(body));
}

function sendStatus(res: ServerResponse, code: number, reason: string, message: string, details?: Json): void {
  sendJson(res, code, status(code, reason, message, details));
}

/** `pods` or `deployments.apps`, as the API server names a resource in its messages. */
function qualified(info: ResourceInfo): string {
  return info.group ? `${info.resource}.${info.group}` : info.resource;
}

function notFound(res: ServerResponse, info: ResourceInfo, name: string): void {
  sendStatus(res, 404, 'NotFound', `${qualified(info)} "${name}" not found`, { name, ...(info.group ? { group: info.group } : {}), kind: info.resource });
}

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

function apiResourceList(group: string, version: string): Json | null {
  const gv = groupVersions().find((g) => g.group === group && g.version === version);
  if (!gv) return null;
  const resources: Json[] = [];
  for (const info of gv.resources) {
    resources.push(resourceDiscovery(info));
    if (info.resource === 'pods') resources.push({ name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] });
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources };
}

function apiGroup(name: string): Json | null {
  const versions = groupVersions().filter((g) => g.group === name);
  if (versions.length === 0) return null;
  const list = versions.map((g) => ({ groupVersion: `${g.group}/${g.version}`, version: g.version }));
  return { kind: 'APIGroup', apiVersion: 'v1', name, versions: list, preferredVersion: list[0] };
}

function apiGroupList(): Json {
  const names = [...new Set(groupVersions().map((g) => g.group).filter(Boolean))];
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: names.map((n) => apiGroup(n)) };
}

function versionInfo(gitVersion: string): Json {
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

type Route =
  | { type: 'discovery'; body: Json }
  | { type: 'resource'; info: ResourceInfo; namespace: string | null; name: string | null; sub: string | null }
  | { type: 'unknown' };

const INFO_BY_GVR = new Map(RESOURCES.map((r) => [`${r.group}/${r.version}/${r.resource}`, r]));

function routeOf(segments: string[]): Route {
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

/** The request handler over one index (exported for tests that drive it without a socket). */
export function createReplayHandler(index: ReplayIndex, token: string, openWatches: Set<() => void>) {
  const expected = Buffer.from(`Bearer ${token}`);

  function authorised(req: IncomingMessage): boolean {
    const given = Buffer.from(req.headers.authorization ?? '');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  function selectEntries(res: ServerResponse, resource: SnapshotResource, namespace: string | null, query: Query): ReplayEntry[] | null {
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

  function list(res: ServerResponse, info: ResourceInfo, namespace: string | null, query: Query, accept: string | undefined): void {
    const selected = selectEntries(res, info.resource, namespace, query);
    if (selected === null) return;
    if (flag(query, 'watch')) return watch(res, selected, query);
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

  /** A snapshot never changes: a watch sends the current objects (unless resuming), then stays quiet until its timeout. */
  function watch(res: ServerResponse, selected: ReplayEntry[], query: Query): void {
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked', 'cache-control': 'no-cache, private' });
    const resume = query.get('resourceVersion');
    if (!resume || resume === '0') {
      for (const entry of selected) {
        res.write('{"type":"ADDED","object":');
        res.write(entry.bytes);
        res.write('}\n');
      }
    }
    const seconds = Number(query.get('timeoutSeconds'));
    const ms = Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, MAX_WATCH_MS) : MAX_WATCH_MS;
    const end = () => {
      clearTimeout(timer);
      openWatches.delete(end);
      if (!res.writableEnded) res.end();
    };
    const timer = setTimeout(end, ms);
    openWatches.add(end);
    res.on('close', end);
  }

  function get(res: ServerResponse, info: ResourceInfo, namespace: string, name: string, query: Query, accept: string | undefined): void {
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

  /** kubelet's rules (validateContainerLogStatus) over the recorded states, with the recorded text. */
  function podLog(res: ServerResponse, namespace: string, name: string, query: Query): void {
    const podsInfo = RESOURCES.find((r) => r.resource === 'pods') as ResourceInfo;
    const entry = index.find('pods', namespace, name);
    if (!entry) return notFound(res, podsInfo, name);
    const spec = (entry.object.spec ?? {}) as Json;
    const names = (key: string) => (Array.isArray(spec[key]) ? (spec[key] as Json[]).map((c) => String(c.name)) : []);
    const containers = names('containers');
    const inits = names('initContainers');
    const ephemeral = names('ephemeralContainers');
    let container = query.get('container') ?? '';
    if (!container) {
      const defaulted = ((entry.object.metadata as Json).annotations as Record<string, string> | undefined)?.['kubectl.kubernetes.io/default-container'];
      if (containers.length === 1) container = containers[0] as string;
      else if (defaulted && containers.includes(defaulted)) container = defaulted;
      else {
        const initText = inits.length > 0 ? ` or one of the init containers: [${inits.join(' ')}]` : '';
        return sendStatus(res, 400, 'BadRequest', `a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]${initText}`);
      }
    }
    if (![...containers, ...inits, ...ephemeral].includes(container)) {
      return sendStatus(res, 400, 'BadRequest', `container ${container} is not valid for pod ${name}`);
    }
    const status = (entry.object.status ?? {}) as Json;
    const statuses = [status.containerStatuses, status.initContainerStatuses, status.ephemeralContainerStatuses].flatMap((s) => (Array.isArray(s) ? (s as Json[]) : []));
    const cs = statuses.find((s) => s.name === container);
    const state = (cs?.state ?? {}) as Json;
    const lastTerminated = ((cs?.lastState ?? {}) as Json).terminated;
    const recorded = index.log(namespace, name, container);
    let text: string;
    if (flag(query, 'previous')) {
      if (lastTerminated === undefined || lastTerminated === null) {
        return sendStatus(res, 400, 'BadRequest', `previous terminated container "${container}" in pod "${name}" not found`);
      }
      text = recorded?.previous ?? '';
    } else if (!spec.nodeName) {
      // The API server has no node to ask: an empty log, as for a pod that was never scheduled.
      text = '';
    } else if (state.waiting !== undefined && !recorded?.current && (lastTerminated === undefined || lastTerminated === null)) {
      const reason = String((state.waiting as Json).reason ?? '');
      const why = reason === 'ErrImagePull' ? "image can't be pulled" : reason === 'ImagePullBackOff' ? 'trying and failing to pull image' : reason;
      return sendStatus(res, 400, 'BadRequest', `container "${container}" in pod "${name}" is waiting to start: ${why}`);
    } else if (cs === undefined && !recorded?.current) {
      return sendStatus(res, 400, 'BadRequest', `container "${container}" in pod "${name}" is waiting to start - no logs yet`);
    } else {
      // A waiting container that ran before (CrashLoopBackOff) shows its last instance's log.
      text = recorded?.current ?? (state.running === undefined ? (recorded?.previous ?? '') : '');
    }
    const tail = query.get('tailLines');
    if (tail !== null && tail !== '') {
      const n = Number(tail);
      if (!Number.isInteger(n) || n < 0) return sendStatus(res, 400, 'BadRequest', `tailLines: Invalid value: "${tail}": must be a non-negative integer`);
      const lines = text.split('\n');
      if (lines[lines.length - 1] === '') lines.pop();
      const kept = n === 0 ? [] : lines.slice(-n);
      text = kept.length === 0 ? '' : `${kept.join('\n')}\n`;
    }
    const limitBytes = query.get('limitBytes');
    if (limitBytes !== null && limitBytes !== '') {
      const n = Number(limitBytes);
      if (!Number.isInteger(n) || n < 1) return sendStatus(res, 400, 'BadRequest', `limitBytes: Invalid value: "${limitBytes}": must be greater than 0`);
      text = Buffer.from(text).subarray(0, n).toString('utf8');
    }
    send(res, 200, text, 'text/plain');
  }

  function forbidWrite(res: ServerResponse, method: string, route: Route): void {
    const what = route.type === 'resource' ? `${qualified(route.info)}${route.name ? ` "${route.name}"` : ''}` : 'this resource';
    sendStatus(res, 403, 'Forbidden', `${what} is forbidden: this cluster is a read-only snapshot (benchdesk replay); ${method} is not allowed`, route.type === 'resource' ? { kind: route.info.resource, ...(route.name ? { name: route.name } : {}) } : undefined);
  }

  return function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://replay');
    const method = req.method ?? 'GET';
    if (!authorised(req)) return sendStatus(res, 401, 'Unauthorized', 'Unauthorized');
    let segments: string[];
    try {
      segments = url.pathname.split('/').filter((s) => s.length > 0).map(decodeURIComponent);
    } catch {
      return sendStatus(res, 400, 'BadRequest', 'the request path is malformed');
    }
    const route = routeOf(segments);
    if (method !== 'GET' && method !== 'HEAD') return forbidWrite(res, method, route);
    const pathname = url.pathname;
    if (pathname === '/version' || pathname === '/version/') return sendJson(res, 200, versionInfo(index.kubernetesVersion));
    if (pathname === '/healthz' || pathname === '/livez' || pathname === '/readyz') return send(res, 200, 'ok', 'text/plain');
    if (pathname === '/api' || pathname === '/api/') {
      const address = req.socket.localAddress && req.socket.localPort ? `${req.socket.localAddress}:${req.socket.localPort}` : '127.0.0.1';
      return sendJson(res, 200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: address }] });
    }
    if (route.type === 'discovery') return sendJson(res, 200, route.body);
    if (route.type === 'unknown') return sendStatus(res, 404, 'NotFound', 'the server could not find the requested resource', {});
    const { info, namespace, name, sub } = route;
    const accept = req.headers.accept;
    if (name === null) return list(res, info, namespace, url.searchParams, accept);
    if (sub !== null) {
      if (info.resource === 'pods' && sub === 'log' && namespace !== null) return podLog(res, namespace, name, url.searchParams);
      // exec, attach and port-forward act on a running container: there is none to act on.
      if (info.resource === 'pods' && (sub === 'exec' || sub === 'attach' || sub === 'portforward')) return forbidWrite(res, sub, route);
      return sendStatus(res, 404, 'NotFound', 'the server could not find the requested resource', {});
    }
    if (info.namespaced && namespace === null) return sendStatus(res, 404, 'NotFound', 'the server could not find the requested resource', {});
    get(res, info, namespace ?? '', name, url.searchParams, accept);
  };
}

/** Serves `index` on 127.0.0.1 (an ephemeral port) and writes its kubeconfig; close() stops both. */
export async function startReplay(index: ReplayIndex, options: StartReplayOptions = {}): Promise<ReplayServer> {
  const token = randomBytes(24).toString('base64url');
  const watches = new Set<() => void>();
  const handle = createReplayHandler(index, token, watches);
  const sockets = new Set<Socket>();
  const certificate = await replayCertificate();
  const server = https.createServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
    req.resume();
    try {
      handle(req, res);
    } catch (err) {
      if (!res.headersSent) sendStatus(res, 500, 'InternalError', `the replay could not answer: ${err instanceof Error ? err.message : String(err)}`);
      else res.destroy();
    }
  });
  server.keepAliveTimeout = 30_000;
  server.on('secureConnection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const url = `https://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;
  let dir: string | undefined;
  const stop = async () => {
    for (const end of [...watches]) end();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
    if (dir) await rm(dir, { recursive: true, force: true });
  };
  try {
    dir = await mkdtemp(path.join(options.tempRoot ?? tmpdir(), 'benchdesk-replay-'));
    const kubeconfigPath = path.join(dir, 'kubeconfig');
    await writeFile(kubeconfigPath, replayKubeconfig({ server: url, token, contextName: options.contextName ?? 'benchdesk-snapshot', caPem: certificate.cert }), { mode: 0o600 });
    let closed: Promise<void> | undefined;
    return { url, kubeconfigPath, token, index, caPem: certificate.cert, close: () => (closed ??= stop()) };
  } catch (err) {
    await stop();
    throw err;
  }
}
