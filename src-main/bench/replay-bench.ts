import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { SNAPSHOT_FORMAT } from '../../shared';
import { canonicalSnapshot } from '../snapshots/document';
import { ReplayIndex } from '../snapshots/replay/replay-index';
import { startReplay } from '../snapshots/replay/server';
import { replayCertificate } from '../snapshots/replay/tls';
import { parseWrk, type WrkResult } from './http-bench';
import { waitForLine, wrapChild, type Child } from './processes';
import type { Report } from './report';

/**
 * The snapshot replay's speed (design §10: a list of 1,000 pods, JSON and Table, in ≤ 20 ms on
 * loopback): a synthetic snapshot of 1,000 pods in 10 namespaces is served by the replay in its
 * own process. Measured from here: the latency of one list (sequential requests on one
 * keep-alive connection, p50/p99), lists per second under wrk at 16 connections beside a bare
 * node:https server sending the same bytes (same generator, same run), and the round trip of the
 * real `kubectl get pods -A` (a whole kubectl process, discovery cached).
 */

const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const STATES = [
  { phase: 'Running', state: { running: { startedAt: '2026-08-20T09:00:00Z' } }, ready: true, restarts: 0 },
  { phase: 'Running', state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container' } }, ready: false, restarts: 12, last: { exitCode: 1, reason: 'Error', finishedAt: '2026-08-20T10:20:00Z' } },
  { phase: 'Pending', state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image' } }, ready: false, restarts: 0 },
  { phase: 'Running', state: { running: { startedAt: '2026-08-20T10:12:30Z' } }, ready: true, restarts: 3, last: { exitCode: 137, reason: 'OOMKilled', finishedAt: '2026-08-20T10:12:00Z' } },
] as const;

/** A realistic pod (about 2.5 KB of JSON, like a real one without managedFields). */
function pod(i: number): Record<string, unknown> {
  const ns = `team-${i % 10}`;
  const app = `svc-${Math.floor(i / 10) % 50}`;
  const s = STATES[i % 10 === 7 ? 1 : i % 25 === 3 ? 2 : i % 40 === 11 ? 3 : 0] ?? STATES[0];
  const name = `${app}-7d9c8b6f5-${i.toString(36).padStart(5, '0')}`;
  return {
    metadata: {
      name,
      namespace: ns,
      labels: { app, 'pod-template-hash': '7d9c8b6f5', 'app.kubernetes.io/part-of': 'shop', tier: i % 2 ? 'backend' : 'frontend' },
      annotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9090' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${app}-7d9c8b6f5`, uid: `rs-${app}`, controller: true, blockOwnerDeletion: true }],
      creationTimestamp: '2026-08-20T09:00:00Z',
    },
    spec: {
      nodeName: `node-${i % 20}`,
      serviceAccountName: 'default',
      restartPolicy: 'Always',
      containers: [
        {
          name: 'app',
          image: `ghcr.io/acme/${app}:1.4.${i % 7}`,
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          env: [{ name: 'LOG_LEVEL', value: 'info' }, { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }],
          resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
          readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 10 },
        },
      ],
    },
    status: {
      phase: s.phase,
      podIP: `10.244.${i % 250}.${(i * 7) % 250}`,
      hostIP: `10.0.0.${i % 20}`,
      startTime: '2026-08-20T09:00:00Z',
      qosClass: 'Burstable',
      conditions: [
        { type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-08-20T09:00:00Z' },
        { type: 'Ready', status: s.ready ? 'True' : 'False', lastTransitionTime: '2026-08-20T09:00:00Z' },
      ],
      containerStatuses: [
        {
          name: 'app',
          image: `ghcr.io/acme/${app}:1.4.${i % 7}`,
          imageID: `ghcr.io/acme/${app}@sha256:0123456789abcdef`,
          containerID: `containerd://${i.toString(16).padStart(12, '0')}`,
          ready: s.ready,
          started: s.ready,
          restartCount: s.restarts,
          state: s.state,
          ...('last' in s ? { lastState: { terminated: s.last } } : {}),
        },
      ],
    },
  };
}

export function thousandPodSnapshot(pods = 1_000): unknown {
  return {
    format: SNAPSHOT_FORMAT,
    name: `${pods} pods`,
    recorded_at: '2026-08-20T10:30:00Z',
    source: { server: 'https://203.0.113.10:6443', kubernetes_version: 'v1.31.0' },
    objects: {
      pods: Array.from({ length: pods }, (_, i) => pod(i)),
      nodes: Array.from({ length: 20 }, (_, i) => ({ metadata: { name: `node-${i}` }, status: { conditions: [{ type: 'Ready', status: 'True' }], nodeInfo: { kubeletVersion: 'v1.31.0' } } })),
    },
  };
}

/** `--replay <doc.json>`: the replay in a child process (the bench talks to it over loopback). */
export async function runReplayChild(file: string): Promise<void> {
  const doc = canonicalSnapshot(JSON.parse(await fsp.readFile(file, 'utf8')));
  const replay = await startReplay(new ReplayIndex(doc));
  console.log(`replay listening ${replay.url} ${replay.token} ${replay.kubeconfigPath}`);
  process.on('SIGTERM', () => void replay.close().then(() => process.exit(0)));
}

/** `--bare-tls <body.json>`: bare node:https with the same certificate, answering every request with the same bytes. */
export async function runBareTlsChild(file: string): Promise<void> {
  const bytes = await fsp.readFile(file);
  const { key, cert } = await replayCertificate();
  const server = https.createServer({ key, cert, keepAliveTimeout: 60_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
      res.end(bytes);
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const addr = server.address();
    console.log(`bare-tls listening ${typeof addr === 'object' && addr ? addr.port : 0}`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

function get(agent: https.Agent, url: string, token: string, accept: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    https
      .get(url, { agent, headers: { authorization: `Bearer ${token}`, accept } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`${url} answered ${res.statusCode}`))));
      })
      .on('error', reject);
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function latency(agent: https.Agent, url: string, token: string, accept: string, n: number): Promise<{ p50: number; p99: number; bytes: number }> {
  let bytes = 0;
  for (let i = 0; i < 20; i++) bytes = (await get(agent, url, token, accept)).length; // warm-up
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await get(agent, url, token, accept);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), bytes };
}

async function wrkRun(wrk: string, url: string, headers: Record<string, string>, connections: number, seconds: number): Promise<WrkResult> {
  const script = path.join(os.tmpdir(), `benchdesk-wrk-replay-${process.pid}-${Math.random().toString(36).slice(2)}.lua`);
  await fsp.writeFile(script, `${Object.entries(headers).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`).join('\n')}\n`);
  try {
    const res = spawnSync(wrk, ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', '-s', script, url], { encoding: 'utf8', timeout: (seconds + 30) * 1000 });
    if (res.status !== 0) throw new Error(`wrk failed: ${res.stderr || res.stdout}`);
    return parseWrk(res.stdout);
  } finally {
    await fsp.rm(script, { force: true });
  }
}

function kubectlOnPath(): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) if (dir && fs.existsSync(path.join(dir, 'kubectl'))) return path.join(dir, 'kubectl');
  return null;
}

export async function runReplayBench(report: Report, options: { wrk: string | null; seconds: number; root: string }): Promise<void> {
  const docFile = path.join(options.root, 'replay-1000-pods.json');
  await fsp.writeFile(docFile, JSON.stringify(thousandPodSnapshot(1_000)));
  const script = process.argv[1] ?? '';
  const child = spawn(process.execPath, [script, '--replay', docFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  const line = await waitForLine(child, /replay listening (\S+ \S+ \S+)/, 'the replay');
  const [url = '', token = '', kubeconfig = ''] = line.split(' ');
  const replay: Child = wrapChild(child, url);
  // The replay's certificate is the child's own: read it from the kubeconfig it wrote.
  const caData = /certificate-authority-data: (\S+)/.exec(await fsp.readFile(kubeconfig, 'utf8'))?.[1] ?? '';
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: Buffer.from(caData, 'base64').toString('utf8') });
  let bare: Child | null = null;
  try {
    const listUrl = `${url}/api/v1/pods?limit=1000`;
    for (const [form, accept] of [['JSON', 'application/json'], ['Table', TABLE_ACCEPT]] as const) {
      const l = await latency(agent, listUrl, token, accept, 200);
      report.add({ section: 'replay', scenario: `list 1,000 pods (${form}, ${Math.round(l.bytes / 1024)} KiB): p50 latency`, value: l.p50, unit: 'ms', target: '≤ 20', ok: l.p50 <= 20 });
      report.add({ section: 'replay', scenario: `list 1,000 pods (${form}): p99 latency`, value: l.p99, unit: 'ms', target: '' });
      if (!options.wrk) continue;
      const body = path.join(options.root, `replay-${form}.json`);
      await fsp.writeFile(body, await get(agent, listUrl, token, accept));
      const bareChild = spawn(process.execPath, [script, '--bare-tls', body], { stdio: ['ignore', 'pipe', 'pipe'] });
      const port = await waitForLine(bareChild, /bare-tls listening (\d+)/, 'the bare https server');
      bare = wrapChild(bareChild, `https://127.0.0.1:${port}`);
      const headers = { Authorization: `Bearer ${token}`, Accept: accept };
      const ours = await wrkRun(options.wrk, listUrl, headers, 16, options.seconds);
      const theirs = await wrkRun(options.wrk, `${bare.url}/api/v1/pods?limit=1000`, headers, 16, options.seconds);
      await bare.stop();
      bare = null;
      report.add({
        section: 'replay',
        scenario: `list 1,000 pods (${form}), wrk 16 connections`,
        value: ours.rps,
        unit: 'lists/s',
        target: '',
        note: `bare node:https with the same bytes ${theirs.rps.toFixed(0)}/s (ratio ${(ours.rps / theirs.rps).toFixed(2)}); p99 ${ours.p99ms.toFixed(1)} ms${ours.non2xx + ours.socketErrors > 0 ? `; ${ours.non2xx} non-2xx, ${ours.socketErrors} socket errors` : ''}`,
      });
    }
    const kubectl = kubectlOnPath();
    if (!kubectl) {
      report.add({ section: 'replay', scenario: 'kubectl get pods -A round trip', value: null, unit: '', target: '', note: 'kubectl is not on PATH' });
    } else {
      const home = await fsp.mkdtemp(path.join(options.root, 'kubectl-home-'));
      const env = { PATH: process.env.PATH ?? '', HOME: home, KUBECONFIG: kubeconfig };
      const times: number[] = [];
      for (let i = 0; i < 6; i++) {
        const t0 = performance.now();
        const res = spawnSync(kubectl, ['get', 'pods', '-A'], { env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
        if (res.status !== 0) throw new Error(`kubectl get pods -A failed: ${res.stderr}`);
        // The first run fills kubectl's discovery cache; the figure is the warm runs'.
        if (i > 0) times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      report.add({ section: 'replay', scenario: 'kubectl get pods -A round trip (1,000 pods, whole kubectl process)', value: percentile(times, 50), unit: 'ms', target: '', note: `median of ${times.length} warm runs` });
    }
  } finally {
    agent.destroy();
    await bare?.stop();
    await replay.stop();
  }
}
