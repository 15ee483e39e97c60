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
 * now; discovery lists every resource served. Writes are 405. The answers are in kubernetes-routes.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { replayCertificate } from '../../src-main/snapshots/replay/tls';
import { getField, route, sendJson, status, type ServedCluster } from './kubernetes-routes';
import {
  NAMESPACES,
  addBulkPods,
  meta,
  seedDeployments,
  seedEvents,
  seedNodes,
  seedOthers,
  seedPods,
  seedSecrets,
  storyTime,
  withLiveClock,
  type ContainerLogs,
  type Json,
} from './kubernetes-seed';

export { SCENARIO } from './kubernetes-seed';

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

/** The seeded scenario cluster, with the bulk pods when asked. */
function seedCluster(bulkPods: FakeKubernetesOptions['bulkPods']): { pods: Json[]; objects: Map<string, Json[]>; logs: Map<string, ContainerLogs> } {
  const { pods, logs } = seedPods();
  const namespaces = [...NAMESPACES];
  if (bulkPods) {
    namespaces.push('bulk');
    addBulkPods(pods, logs, bulkPods);
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
}

export async function startFakeKubernetes(options: FakeKubernetesOptions = {}): Promise<FakeKubernetes> {
  const token = options.token ?? randomBytes(16).toString('hex');
  const seed = () => seedCluster(options.bulkPods);
  const story = options.liveClock ? withLiveClock(seed) : { value: seed(), t0: undefined };
  const { pods, objects, logs } = story.value;
  const calls: RecordedKubeCall[] = [];
  const cluster: ServedCluster = {
    token,
    objects,
    podsByKey: new Map(pods.map((p) => [`${getField(p, 'metadata.namespace') ?? ''}/${getField(p, 'metadata.name') ?? ''}`, p])),
    logs,
    forbidden: new Set(options.forbidden ?? []),
    port: 0,
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
        route(cluster, req, res, url.pathname, query);
      } catch (err) {
        sendJson(res, 500, status(500, 'InternalError', `fake kubernetes: ${String(err)}`));
      }
    };
    if (options.latencyMs) setTimeout(answer, options.latencyMs);
    else answer();
  };
  const server = certificate ? https.createServer({ key: certificate.key, cert: certificate.cert }, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cluster.port = (server.address() as AddressInfo).port;
  const url = `${certificate ? 'https' : 'http'}://127.0.0.1:${cluster.port}`;
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
      cluster.forbidden = new Set(resources);
    },
    storyAt: (minutes) => storyTime(minutes, story.t0),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
