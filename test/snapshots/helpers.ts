import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CanonicalSnapshot } from '../../src-main/snapshots/document';
import { recordCluster } from '../../src-main/snapshots/record';
import { ReplayIndex } from '../../src-main/snapshots/replay/replay-index';
import { startReplay, type ReplayServer } from '../../src-main/snapshots/replay/server';
import { startFakeKubernetes, type FakeKubernetes } from '../fakes/kubernetes';

/** The fake cluster recorded as a snapshot (the fake's clock: its objects date from 2026-08-20T10:00Z). */
export async function recordFake(k8s: FakeKubernetes, options: { now?: Date; logTailLines?: number } = {}): Promise<CanonicalSnapshot> {
  return recordCluster({
    name: 'fake cluster',
    kubeconfig: k8s.kubeconfigPath,
    now: () => options.now ?? new Date('2026-08-20T10:30:00Z'),
    ...(options.logTailLines !== undefined ? { logTailLines: options.logTailLines } : {}),
  });
}

export async function withFakeSnapshot(): Promise<{ k8s: FakeKubernetes; doc: CanonicalSnapshot; replay: ReplayServer; close(): Promise<void> }> {
  const k8s = await startFakeKubernetes();
  const doc = await recordFake(k8s);
  const replay = await startReplay(new ReplayIndex(doc));
  return { k8s, doc, replay, close: async () => void (await Promise.all([replay.close(), k8s.close()])) };
}

/** Where kubectl is, or null; tests say plainly when they skip for want of it. */
export function kubectlPath(): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, 'kubectl');
    if (dir && existsSync(candidate)) return candidate;
  }
  return null;
}

export const KUBECTL_MISSING =
  'kubectl is not on PATH: the tests that run the real kubectl against a replayed snapshot are skipped (install kubectl v1.32+, e.g. the kubectl package, to run them)';

/** Runs the real kubectl against a kubeconfig, with its own HOME (discovery cache) so runs do not share state. */
export async function kubectl(kubeconfig: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const home = await mkdtemp(path.join(tmpdir(), 'benchdesk-kubectl-home-'));
  try {
    return await new Promise((resolve) => {
      execFile(
        'kubectl',
        args,
        { env: { PATH: process.env.PATH ?? '', HOME: home, KUBECONFIG: kubeconfig }, timeout: 30_000, maxBuffer: 16 * 1024 * 1024 },
        (err, stdout, stderr) => {
          const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
    });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
