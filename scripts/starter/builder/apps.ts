import { logStamp, stamp } from './clock';
import type { Cluster, Json, KubeObject, Lines } from './cluster';
import type { NodeRef } from './nodes';
import { service, type ServicePort } from './network';
import type { ContainerSpec } from './pods';
import { deployment, replica, type DeploymentRef, type PodExtras } from './workloads';

/**
 * Shortcuts for the applications around a scenario's fault: probes, healthy web services with a
 * few lines of log, and log lines stamped relative to the recording.
 */

export function httpProbe(path: string, port: number | string, o: { period?: number; timeout?: number; failure?: number; delay?: number } = {}): Json {
  return { httpGet: { path, port, scheme: 'HTTP' }, ...(o.delay ? { initialDelaySeconds: o.delay } : {}), timeoutSeconds: o.timeout ?? 1, periodSeconds: o.period ?? 10, successThreshold: 1, failureThreshold: o.failure ?? 3 };
}

export type LogStyle = keyof typeof logStamp;

/** Log lines at given times before the recording: [ago, text] (ago '' = continuation line, no stamp). */
export function lines(c: Cluster, style: LogStyle, entries: [string, string][]): Lines {
  return entries.map(([ago, text]) => (ago === '' ? text : `${logStamp[style](c.clock.ago(ago))} ${text}`));
}

/** Log lines at offsets after a moment (ms): [offset ms, text]; offset null = continuation line. */
export function linesAfter(style: LogStyle, startMs: number, entries: [number | null, string][]): Lines {
  return entries.map(([offset, text]) => (offset === null ? text : `${logStamp[style](startMs + offset)} ${text}`));
}

/** When the named container (default: the first) of a pod last started or, waiting to restart, its last instance did (ms). */
export function startedAt(p: KubeObject, container?: string): number {
  const statuses = ((p.status as Json).containerStatuses as Json[] | undefined) ?? [];
  const cs = (container ? statuses.find((s) => s.name === container) : statuses[0]) as { state?: Json; lastState?: Json } | undefined;
  const running = (cs?.state?.running as Json | undefined)?.startedAt ?? (cs?.state?.terminated as Json | undefined)?.startedAt ?? (cs?.lastState?.terminated as Json | undefined)?.startedAt;
  if (typeof running !== 'string') throw new Error(`${p.metadata.name}: no started container ${container ?? ''}`);
  return Date.parse(running);
}

export type WebApp = {
  namespace: string;
  name: string;
  image: string;
  replicas: number;
  port?: number;
  created: string;
  rolled?: string;
  revision?: number;
  resources?: ContainerSpec['resources'];
  env?: Json[];
  extras?: PodExtras;
  /** When it was created and when its current revision rolled out: durations before the recording ('120d', '6d'). */
  /** Service port (default 80 → port). No service when false. */
  service?: boolean | ServicePort[];
  /** The first lines each pod logged after starting (default: "listening on :port"). */
  startLog?: string;
  /** A request line each pod logs, a few times before the recording. */
  requestLog?: string;
};

/** A deployment whose pods all run and are ready, with a service and a few log lines per pod. */
export function webApp(c: Cluster, o: WebApp, nodes: NodeRef[]): DeploymentRef & { service?: KubeObject } {
  const port = o.port ?? 8080;
  const d = deployment(c, {
    namespace: o.namespace,
    name: o.name,
    replicas: o.replicas,
    created: c.ago(o.created),
    ...(o.rolled ? { rolled: c.ago(o.rolled) } : {}),
    ...(o.revision ? { revision: o.revision } : {}),
    ...(o.extras ? { extras: o.extras } : {}),
    containers: [
      {
        name: o.name,
        image: o.image,
        ports: [{ name: 'http', containerPort: port, protocol: 'TCP' }],
        ...(o.env ? { env: o.env } : {}),
        resources: o.resources ?? { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
        readinessProbe: httpProbe('/healthz', 'http'),
      },
    ],
  });
  for (let i = 0; i < o.replicas; i++) {
    const node = nodes[i % nodes.length] as NodeRef;
    // A pod older than its node was rescheduled when the node replaced an older one.
    const wanted = c.clock.ago(o.rolled ?? o.created);
    const nodeBorn = Date.parse(String(node.object.metadata.creationTimestamp)) + 4 * 60_000 + i * 20_000;
    const p = replica(c, d.current, { node, created: stamp(Math.max(wanted, nodeBorn)) });
    const started = startedAt(p);
    const req = o.requestLog ?? 'GET /healthz 200 0.4ms kube-probe/1.32';
    const recent = c.clock.rec - c.int(`req/${p.metadata.name}`, 4, 40) * 1000;
    c.log(o.namespace, p.metadata.name, o.name, {
      current: [
        ...linesAfter('iso', started, [[c.int(`boot/${p.metadata.name}`, 300, 900), o.startLog ?? `${o.name} listening on :${port}`]]),
        ...linesAfter('iso', recent, [[0, req], [1_000 + c.int(`r2/${p.metadata.name}`, 0, 900), req]]),
      ],
    });
  }
  if (o.service === false) return d;
  const ports = Array.isArray(o.service) ? o.service : [{ name: 'http', port: 80, targetPort: 'http' }];
  return { ...d, service: service(c, { namespace: o.namespace, name: o.name, selector: { app: o.name }, ports, created: c.ago(o.created) }) };
}
