/**
 * Fake Kubernetes API server (reference external-apis.md §D and §E.D) for the built-in agent's
 * tests. Plain node:http on 127.0.0.1:0, with a generated kubeconfig (http:// server +
 * `insecure-skip-tls-verify: true`, which @kubernetes/client-node 2.x accepts, and a bearer token).
 *
 *   const k8s = await startFakeKubernetes();
 *   ... loadKubeReader(k8s.kubeconfigPath) ...
 *   k8s.calls  // every request: method, path, query, headers
 *   await k8s.close();
 *
 * The seeded scenario cluster (SCENARIO) has a CrashLoopBackOff pod, an ImagePullBackOff pod, an
 * OOMKilled pod, an unschedulable Pending pod, healthy pods (one with two containers), a
 * Succeeded pod, deployments with omitted counts, a NotReady node and a cordoned one, and
 * Warning events about them (one with lastTimestamp null + eventTime), and the other resources a
 * snapshot records (replica sets, a stateful set, a daemon set, a job and a cron job, services
 * and endpoints, volumes and claims, a storage class, an ingress, config maps) plus a Secret. A
 * secret-looking value (SCENARIO.plantedSecret) is planted in env values, a last-applied
 * annotation, a config map and the Secret: a recording must never hold it. Options:
 * - `token`: the bearer token the server wants (a wrong or missing one gets 401 Status).
 * - `forbidden`: resources answering 403 Status, e.g. ['pods'], ['events'], ['pods/log'].
 * - `latencyMs`: delay before every answer.
 * - `kubeconfigToken`: token written into the kubeconfig (default: `token`), to test 401.
 * - `tls`: HTTPS with a self-signed CA in the kubeconfig, for the real kubectl (it never sends a
 *   bearer token over http://).
 * Lists come in the API server's order (namespace, then name) and honour `fieldSelector` (=, ==,
 * != on dotted fields), `labelSelector` (equality and set-based), `limit` and `continue`. Logs are text/plain and honour `container`, `tailLines`,
 * `previous`, `limitBytes`, with the API's 400s for multi-container pods without `container` and
 * waiting containers. kubectl's Table form (Accept: …;as=Table;g=meta.k8s.io) is answered with the
 * columns of src-main/snapshots/table.ts, the code the snapshot replay uses, ages counted from
 * now; discovery lists every resource served. Writes are 405.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RESOURCES, apiVersionOf, groupVersions, type ResourceInfo } from '../../src-main/snapshots/resources';
import { parseLabelSelector, SelectorError } from '../../src-main/snapshots/selectors';
import { acceptedForm, tableRow, toTable } from '../../src-main/snapshots/table';
import { replayCertificate } from '../../src-main/snapshots/replay/tls';
import { NAMESPACES, addBulkPods, meta, seedDeployments, seedEvents, seedNodes, seedOthers, seedPods, seedSecrets, storyTime, withLiveClock } from './kubernetes-seed';

export { SCENARIO } from './kubernetes-seed';

type Json = Record<string, unknown>;

export interface RecordedKubeCall {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** The client's port: calls that share one connection share it. */
  clientPort: number | undefined;
  status?: number;
}

export interface FakeKubernetesOptions {
  token?: string;
  kubeconfigToken?: string;
  forbidden?: string[];
  latencyMs?: number;
  /** The kubeconfig context's namespace (none by default). */
  contextNamespace?: string;
  /** Adds `count` running pods in the namespace `bulk`, each with a current log of `logBytes` (a large cluster). */
  bulkPods?: { count: number; logBytes: number };
  /**
   * Serve HTTPS with a self-signed certificate (in the kubeconfig's certificate-authority-data):
   * the real kubectl sends its bearer token only over TLS.
   */
  tls?: boolean;
  /**
   * The seeded story ends a minute before the fake starts instead of on its fixed date, so a
   * recording made now sees fresh heartbeats, as from a live cluster (browser tests record "now").
   */
  liveClock?: boolean;
}

export interface FakeKubernetes {
  url: string;
  kubeconfigPath: string;
  token: string;
  calls: RecordedKubeCall[];
  /** Calls whose path starts with this prefix. */
  callsTo(prefix: string): RecordedKubeCall[];
  setForbidden(resources: string[]): void;
  /** The stamp `minutes` into the seeded story, on this fake's clock (fixed, or live). */
  storyAt(minutes: number): string;
  close(): Promise<void>;
}

function getField(obj: unknown, dotted: string): string | undefined {
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

function status(code: number, reason: string, message: string, details?: Json): Json {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}

function kubeconfigYaml(server: string, token: string, caPem?: string, namespace?: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'current-context: fake',
    'clusters:',
    '- name: fake-cluster',
    '  cluster:',
    `    server: ${server}`,
    caPem ? `    certificate-authority-data: ${Buffer.from(caPem).toString('base64')}` : '    insecure-skip-tls-verify: true',
    'users:',
    '- name: fake-user',
    '  user:',
    `    token: ${token}`,
    'contexts:',
    '- name: fake',
    '  context:',
    '    cluster: fake-cluster',
    '    user: fake-user',
    ...(namespace ? [`    namespace: ${namespace}`] : []),
    '',
  ].join('\n');
}

/** Secrets are served (so a read would show in `calls`) but are no snapshot resource: no Table for them. */
const SECRETS = { resource: 'secrets', group: '', version: 'v1', kind: 'Secret', singular: 'secret', namespaced: true, shortNames: [] } as unknown as ResourceInfo;
const INFO_BY_PATH = new Map<string, ResourceInfo>(RESOURCES.map((r) => [`${r.group}/${r.version}/${r.resource}`, r]));

export async function startFakeKubernetes(options: FakeKubernetesOptions = {}): Promise<FakeKubernetes> {
  const token = options.token ?? randomBytes(16).toString('hex');
  let forbidden = new Set(options.forbidden ?? []);
  const seed = (): { pods: Json[]; objects: Map<string, Json[]>; logs: ReturnType<typeof seedPods>['logs'] } => {
    const { pods, logs } = seedPods();
    const namespaces = [...NAMESPACES];
    if (options.bulkPods) {
      namespaces.push('bulk');
      addBulkPods(pods, logs, options.bulkPods);
    }
    const objects = new Map<string, Json[]>([
      ['namespaces', namespaces.map((n) => ({ metadata: meta(n, null, 0), spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } }))],
      ['nodes', seedNodes()],
      ['pods', pods],
      ['deployments', seedDeployments()],
      ['events', seedEvents()],
      ...Object.entries(seedOthers()),
      ['secrets', seedSecrets()],
    ]);
    return { pods, objects, logs };
  };
  const story = options.liveClock ? withLiveClock(seed) : { value: seed(), t0: undefined };
  const { pods, objects, logs } = story.value;
  const calls: RecordedKubeCall[] = [];
  // Log reads find their pod by key: thousands of them against thousands of pods (bulkPods).
  const podsByKey = new Map(pods.map((p) => [`${getField(p, 'metadata.namespace') ?? ''}/${getField(p, 'metadata.name') ?? ''}`, p]));
  let port = 0;

  const sendJson = (res: ServerResponse, code: number, body: unknown): void => {
    const text = JSON.stringify(body);
    res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  };
  const sendText = (res: ServerResponse, code: number, body: string): void => {
    res.writeHead(code, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };

  const list = (req: IncomingMessage, res: ServerResponse, info: ResourceInfo, items: Json[], query: Record<string, string>): void => {
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
  };

  const forbid = (res: ServerResponse, resource: string, namespace?: string): boolean => {
    if (!forbidden.has(resource)) return false;
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
  };

  const podLog = (res: ServerResponse, ns: string, name: string, query: Record<string, string>): void => {
    const p = podsByKey.get(`${ns}/${name}`);
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
    const entry = logs.get(`${ns}/${name}/${container}`) ?? { current: '' };
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
  };

  const notFound = (res: ServerResponse, info: ResourceInfo, name: string): void =>
    sendJson(res, 404, status(404, 'NotFound', `${info.group ? `${info.resource}.${info.group}` : info.resource} "${name}" not found`, { name, kind: info.resource }));

  /** Discovery as the real API server answers it: every resource this fake serves, with its verbs and short names. */
  const discovery = (pathname: string): Json | undefined => {
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
  };

  const route = (req: IncomingMessage, res: ServerResponse, pathname: string, query: Record<string, string>): void => {
    if (req.method !== 'GET') return sendJson(res, 405, status(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'));
    if (req.headers.authorization !== `Bearer ${token}`) return sendJson(res, 401, status(401, 'Unauthorized', 'Unauthorized'));

    if (pathname === '/version') {
      return sendJson(res, 200, { major: '1', minor: '31', gitVersion: 'v1.31.0', platform: 'linux/amd64', goVersion: 'go1.22.5' });
    }
    const found = discovery(pathname);
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
        if (sub === 'log' && resource === 'pods' && ns && name) return forbid(res, 'pods/log', ns) ? undefined : podLog(res, ns, name, query);
        if (sub) return sendJson(res, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
        if (forbid(res, resource, ns)) return;
        const all = objects.get(resource) ?? [];
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
  };

  const certificate = options.tls ? await replayCertificate() : undefined;
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const query = Object.fromEntries(url.searchParams.entries());
    const call: RecordedKubeCall = { method: req.method ?? 'GET', path: url.pathname, query, headers: req.headers, clientPort: req.socket.remotePort };
    calls.push(call);
    res.on('finish', () => {
      call.status = res.statusCode;
    });
    req.resume();
    const answer = (): void => {
      try {
        route(req, res, url.pathname, query);
      } catch (err) {
        sendJson(res, 500, status(500, 'InternalError', `fake kubernetes: ${String(err)}`));
      }
    };
    if (options.latencyMs) setTimeout(answer, options.latencyMs);
    else answer();
  };
  const server = certificate ? https.createServer({ key: certificate.key, cert: certificate.cert }, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  const url = `${certificate ? 'https' : 'http'}://127.0.0.1:${port}`;
  const dir = await mkdtemp(path.join(tmpdir(), 'benchdesk-fake-k8s-'));
  const kubeconfigPath = path.join(dir, 'kubeconfig');
  await writeFile(kubeconfigPath, kubeconfigYaml(url, options.kubeconfigToken ?? token, certificate?.cert, options.contextNamespace), { mode: 0o600 });

  return {
    url,
    kubeconfigPath,
    token,
    calls,
    callsTo: (prefix) => calls.filter((c) => c.path.startsWith(prefix)),
    setForbidden: (resources) => {
      forbidden = new Set(resources);
    },
    storyAt: (minutes) => storyTime(minutes, story.t0),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
