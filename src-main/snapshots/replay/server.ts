import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { answerReview } from './access-review';
import { getObject, listObjects, qualified } from './objects';
import { routeOf, versionInfo, type Route } from './discovery';
import { replayKubeconfig } from './kubeconfig';
import { openApiV2, openApiV3, openApiV3Index } from './openapi';
import { podLog } from './pod-log';
import type { ReplayIndex } from './replay-index';
import { send, sendJson, sendStatus } from './respond';
import { replayCertificate } from './tls';
import { DEFAULT_WATCH_LIMITS, WatchRegistry, type WatchLimits } from './watch';

/**
 * A read-only Kubernetes API server for one snapshot, on https://127.0.0.1 (design §11): discovery, list
 * and get (cluster-wide and per namespace) with label and field selectors and limit/continue
 * paging, the Table form kubectl asks for, pod logs (pod-log.ts), a watch that lists once and
 * then stays quiet (watch.ts, bounded), the OpenAPI documents kubectl reads before a write
 * (openapi.ts), `kubectl auth can-i` (access-review.ts), and a 403 Status for every write.
 * Requests need the bearer token of the kubeconfig it writes (0600, in a temp dir removed on close).
 */

export type ReplayServer = {
  /** https://127.0.0.1:<port> */
  readonly url: string;
  /** The replay's certificate (PEM), for clients that do not read the kubeconfig. */
  readonly caPem: string;
  readonly kubeconfigPath: string;
  readonly token: string;
  readonly index: ReplayIndex;
  /** The open watches and what they hold (bounded: watch.ts). */
  readonly watches: WatchRegistry;
  close(): Promise<void>;
};

export type StartReplayOptions = {
  /** A name for the kubeconfig's context and cluster. */
  contextName?: string;
  /** The kubeconfig context's namespace (default: the one the snapshot was recorded in, else `default`). */
  namespace?: string;
  /** Where the temp dir of the kubeconfig goes (default: the OS temp dir). */
  tempRoot?: string;
  host?: string;
  port?: number;
  /** Overrides of the watch bounds (tests). */
  watchLimits?: Partial<WatchLimits>;
};

function forbidWrite(res: ServerResponse, method: string, route: Route): void {
  const what = route.type === 'resource' ? `${qualified(route.info)}${route.name ? ` "${route.name}"` : ''}` : 'this resource';
  sendStatus(res, 403, 'Forbidden', `${what} is forbidden: this cluster is a read-only snapshot (benchdesk replay); ${method} is not allowed`, route.type === 'resource' ? { kind: route.info.resource, ...(route.name ? { name: route.name } : {}) } : undefined);
}

/** /version, health, and the OpenAPI documents; false when the path is none of them. */
function fixedPath(index: ReplayIndex, res: ServerResponse, pathname: string): boolean {
  if (pathname === '/version' || pathname === '/version/') sendJson(res, 200, versionInfo(index.kubernetesVersion));
  else if (pathname === '/healthz' || pathname === '/livez' || pathname === '/readyz') send(res, 200, 'ok', 'text/plain');
  else if (pathname === '/openapi/v2') sendJson(res, 200, openApiV2(index.kubernetesVersion));
  else if (pathname === '/openapi/v3') sendJson(res, 200, openApiV3Index(index.kubernetesVersion));
  else if (pathname.startsWith('/openapi/v3/')) {
    const doc = openApiV3(pathname.slice('/openapi/v3/'.length), index.kubernetesVersion);
    if (doc) sendJson(res, 200, doc);
    else sendStatus(res, 404, 'NotFound', 'the server could not find the requested resource', {});
  } else return false;
  return true;
}

/** The request handler over one index (exported for tests that drive it without a socket). */
export function createReplayHandler(index: ReplayIndex, token: string, watches: WatchRegistry) {
  const expected = Buffer.from(`Bearer ${token}`);

  function authorised(req: IncomingMessage): boolean {
    const given = Buffer.from(req.headers.authorization ?? '');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  return function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://replay');
    const method = req.method ?? 'GET';
    let segments: string[] = [];
    let malformed = false;
    try {
      segments = url.pathname.split('/').filter((s) => s.length > 0).map(decodeURIComponent);
    } catch {
      malformed = true;
    }
    const route = malformed ? ({ type: 'unknown' } as const) : routeOf(segments);
    // Only an access review's body is read; every other body is drained unread.
    if (!(route.type === 'review' && method === 'POST' && authorised(req))) req.resume();
    if (!authorised(req)) return sendStatus(res, 401, 'Unauthorized', 'Unauthorized');
    if (malformed) return sendStatus(res, 400, 'BadRequest', 'the request path is malformed');
    if (route.type === 'review' && method === 'POST') return answerReview(req, res, route.kind);
    if (method !== 'GET' && method !== 'HEAD') return forbidWrite(res, method, route);
    const pathname = url.pathname;
    if (fixedPath(index, res, pathname)) return;
    if (pathname === '/api' || pathname === '/api/') {
      const address = req.socket.localAddress && req.socket.localPort ? `${req.socket.localAddress}:${req.socket.localPort}` : '127.0.0.1';
      return sendJson(res, 200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: address }] });
    }
    if (route.type === 'discovery') return sendJson(res, 200, route.body);
    if (route.type !== 'resource') return sendStatus(res, 404, 'NotFound', 'the server could not find the requested resource', {});
    const { info, namespace, name, sub } = route;
    const accept = req.headers.accept;
    if (name === null) return listObjects(index, watches, res, info, namespace, url.searchParams, accept);
    if (sub !== null) {
      if (info.resource === 'pods' && sub === 'log' && namespace !== null) return podLog(index, res, namespace, name, url.searchParams);
      // exec, attach and port-forward act on a running container: there is none to act on.
      if (info.resource === 'pods' && (sub === 'exec' || sub === 'attach' || sub === 'portforward')) return forbidWrite(res, sub, route);
      return sendStatus(res, 404, 'NotFound', 'the server could not find the requested resource', {});
    }
    if (info.namespaced && namespace === null) return sendStatus(res, 404, 'NotFound', 'the server could not find the requested resource', {});
    getObject(index, res, info, namespace ?? '', name, url.searchParams, accept);
  };
}

/** Serves `index` on 127.0.0.1 (an ephemeral port) and writes its kubeconfig; close() stops both. */
export async function startReplay(index: ReplayIndex, options: StartReplayOptions = {}): Promise<ReplayServer> {
  const token = randomBytes(24).toString('base64url');
  const watches = new WatchRegistry({ ...DEFAULT_WATCH_LIMITS, ...options.watchLimits });
  const handle = createReplayHandler(index, token, watches);
  const sockets = new Set<Socket>();
  const certificate = await replayCertificate();
  const server = https.createServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
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
    watches.endAll();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
    if (dir) await rm(dir, { recursive: true, force: true });
  };
  try {
    dir = await mkdtemp(path.join(options.tempRoot ?? tmpdir(), 'benchdesk-replay-'));
    const kubeconfigPath = path.join(dir, 'kubeconfig');
    // The namespace of the context it was recorded from, as kubectl would start there on the cluster itself.
    const namespace = options.namespace ?? index.snapshot.source.namespace ?? 'default';
    await writeFile(kubeconfigPath, replayKubeconfig({ server: url, token, contextName: options.contextName ?? 'benchdesk-snapshot', caPem: certificate.cert, namespace }), { mode: 0o600 });
    let closed: Promise<void> | undefined;
    return { url, kubeconfigPath, token, index, caPem: certificate.cert, watches, close: () => (closed ??= stop()) };
  } catch (err) {
    await stop();
    throw err;
  }
}
