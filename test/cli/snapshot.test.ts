import { existsSync } from 'node:fs';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProblemSchema, SnapshotListSchema, SnapshotSummarySchema, SNAPSHOT_FORMAT } from '../../shared';
import { SCENARIO, startFakeKubernetes, type FakeKubernetes } from '../fakes/kubernetes';
import { kubectl, kubectlPath } from '../snapshots/helpers';
import { startHarness, tempDir, type Harness } from '../workflows/harness';
import { killChildren } from '../helpers/children';
import { buildCliBundle, cliEnv, runCli, spawnCli, stdoutJson, waitFor, type CliRun } from './cli-harness';

/** `benchdesk snapshot …` as a child process: in-process (--local) and against a running app. */

let cliPath: string;
let cleanupCli: () => Promise<void>;
let k8s: FakeKubernetes;
let dataDir: string;

beforeAll(async () => {
  const [built, k, dir] = await Promise.all([buildCliBundle(), startFakeKubernetes(), tempDir('benchdesk-cli-snapshot-')]);
  ({ cliPath, cleanup: cleanupCli } = built);
  [k8s, dataDir] = [k, dir];
}, 60_000);
afterAll(async () => {
  // A `snapshot serve` a failed test did not stop is stopped here.
  await killChildren();
  await Promise.all([k8s?.close(), cleanupCli?.(), dataDir && rm(dataDir, { recursive: true, force: true })]);
});

const env = (extra: NodeJS.ProcessEnv = {}) => cliEnv({ BENCHDESK_DATA_DIR: dataDir, KUBECONFIG: k8s.kubeconfigPath, ...extra });
const cli = (args: readonly string[]): Promise<CliRun> => runCli(cliPath, args, env());

describe('benchdesk snapshot (in-process)', () => {
  let id: string;

  it('record: progress on stderr, the summary as JSON on stdout', async () => {
    const run = await cli(['snapshot', 'record', '--name', 'fake shop', '--kubeconfig', k8s.kubeconfigPath, '--local', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const summary = SnapshotSummarySchema.parse(stdoutJson(run));
    id = summary.snapshot_id;
    expect(summary).toMatchObject({ name: 'fake shop', counts: { pods: 8, nodes: 3 } });
    expect(run.stderr).toContain(`recording ${k8s.url}`);
    expect(run.stderr).toMatch(/^ {2}pods: 8$/m);
    expect(run.stderr).toMatch(/^container logs \d+\/\d+$/m);
  });

  it('list, show: a table and a description for people; --json for scripts', async () => {
    const listed = await cli(['snapshot', 'list', '--local', '--json']);
    // The shipped starter suite's snapshots are there from the first start too.
    expect(SnapshotListSchema.parse(stdoutJson(listed)).snapshots.map((s) => s.snapshot_id).filter((s) => !s.startsWith('starter-'))).toEqual([id]);
    const table = await cli(['snapshot', 'list', '--local']);
    expect(table.stdout).toMatch(/snapshot\s+│\s+name/);
    expect(table.stdout).toContain(id);
    const shown = await cli(['snapshot', 'show', id, '--local']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('fake shop');
    expect(shown.stdout).toMatch(/holds\s+4 namespaces, 3 nodes, 8 pods/);
  });

  it('export to a file (0600), import it back (the same snapshot), and a bad document is a usage error naming the path', async () => {
    const file = path.join(dataDir, '..', `${path.basename(dataDir)}-export.json`);
    try {
      const exported = await cli(['snapshot', 'export', id, '--local', '-o', file]);
      expect(exported.code, exported.stderr).toBe(0);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const doc = JSON.parse(await readFile(file, 'utf8')) as { format: string; objects: { pods: { metadata: { name: string } }[] } };
      expect(doc.format).toBe(SNAPSHOT_FORMAT);
      const again = await cli(['snapshot', 'import', file, '--local', '--json']);
      expect(SnapshotSummarySchema.parse(stdoutJson(again)).snapshot_id).toBe(id);

      (doc.objects.pods[0] as { metadata: { name: string } }).metadata.name = '';
      await writeFile(file, JSON.stringify(doc));
      const bad = await cli(['snapshot', 'import', file, '--local']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('is not a valid snapshot document');
      expect(bad.stderr).toMatch(/^ {2}objects\.pods\.0\.metadata\.name: /m);
      await writeFile(file, '{ not json');
      const notJson = await cli(['snapshot', 'import', file, '--local']);
      expect(notJson.code).toBe(2);
      expect(notJson.stderr).toContain('is not JSON');
    } finally {
      await rm(file, { force: true });
    }
  });

  it('serve: prints the kubeconfig path, answers kubectl until Ctrl-C, then removes it', async () => {
    const p = spawnCli(cliPath, ['snapshot', 'serve', id, '--local'], env());
    try {
      // stdout (the path) and stderr (the address) are two pipes: wait for each, not one then the other.
      await waitFor('the kubeconfig path', () => p.stdout().includes('\n'));
      await waitFor('the serving line', () => /serving snapshot .* at https:\/\/127\.0\.0\.1:\d+/.test(p.stderr()));
      const kubeconfig = p.stdout().trim();
      expect(existsSync(kubeconfig)).toBe(true);
      if (kubectlPath()) {
        const pods = await kubectl(kubeconfig, ['get', 'pods', '-n', 'shop', '--no-headers']);
        expect(pods.code, pods.stderr).toBe(0);
        expect(pods.stdout).toMatch(new RegExp(`${SCENARIO.crashLoopPod.name}\\s+0/1\\s+CrashLoopBackOff`));
      }
      // Served by this process: the snapshot cannot be deleted meanwhile, and the refusal names who serves it (issue 34 item 7).
      const refused = await cli(['snapshot', 'delete', id, '--local', '--json']);
      expect(refused.code).toBe(1);
      expect(ProblemSchema.parse(stdoutJson(refused))).toMatchObject({ status: 409, code: 'snapshot_in_use', detail: expect.stringContaining(`benchdesk snapshot serve (pid ${p.child.pid})`) });
      p.child.kill('SIGINT');
      const done = await p.done;
      expect(done.code).toBe(0);
      expect(existsSync(kubeconfig)).toBe(false);
      // The lease went with it.
      expect(SnapshotSummarySchema.parse(stdoutJson(await cli(['snapshot', 'show', id, '--local', '--json']))).used_by).toEqual([]);
    } finally {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    }
  });

  it('a job takes --snapshot instead of --kubeconfig, never both', async () => {
    const both = await cli(['run-agentic-agent', '-q', 'q', '-m', 'm', '--backend-url', 'http://127.0.0.1:9', '--snapshot', id, '--kubeconfig', k8s.kubeconfigPath, '--local']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('either --kubeconfig');
    const unknown = await cli(['run-agentic-agent', '-q', 'q', '-m', 'm', '--backend-url', 'http://127.0.0.1:9', '--snapshot', 'no-such-snapshot', '--local']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no snapshot no-such-snapshot: list them with benchdesk snapshot list/i);
  });

  it('delete: gone, then a failure naming it', async () => {
    const deleted = await cli(['snapshot', 'delete', id, '--local', '--json']);
    expect(stdoutJson(deleted)).toEqual({ snapshot_id: id, deleted: true });
    const again = await cli(['snapshot', 'delete', id, '--local', '--json']);
    expect(again.code).toBe(1);
    expect(ProblemSchema.parse(stdoutJson(again))).toMatchObject({ status: 404, code: 'snapshot_not_found' });
  });

  it('an unreachable cluster fails the recording with a message naming it (exit 1)', async () => {
    const gone = await startFakeKubernetes();
    const kubeconfig = `${dataDir}-gone-kubeconfig`;
    await writeFile(kubeconfig, await readFile(gone.kubeconfigPath, 'utf8'));
    await gone.close();
    try {
      const run = await cli(['snapshot', 'record', '--name', 'x', '--kubeconfig', kubeconfig, '--local']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`cannot reach the Kubernetes API at ${gone.url}`);
    } finally {
      await rm(kubeconfig, { force: true });
    }
  });
});

describe('benchdesk snapshot (against the running app)', () => {
  let h: Harness;
  const TOKEN = 'cli-snapshot-token-0123456789';
  beforeAll(async () => {
    h = await startHarness({ start: true, env: { SERVICE_API_AUTH_DISABLED: '', SERVICE_API_TOKENS: `default:${TOKEN},acme:acme-token-0123456789` } });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });
  const apiUrl = () => `http://127.0.0.1:${(h.bd.app.server.address() as { port: number }).port}`;

  it('records into the app; another tenant may list but not record', async () => {
    const run = await runCli(cliPath, ['snapshot', 'record', '--name', 'via api', '--namespace', 'shop', '--api-url', apiUrl(), '--token', TOKEN, '--json'], env({ BENCHDESK_DATA_DIR: h.dir }));
    expect(run.code, run.stderr).toBe(0);
    const summary = SnapshotSummarySchema.parse(stdoutJson(run));
    expect(summary).toMatchObject({ name: 'via api', namespaces: ['shop'] });
    expect((await h.bd.snapshots.list()).snapshots.map((s) => s.snapshot_id).filter((s) => !s.startsWith('starter-'))).toEqual([summary.snapshot_id]);
    const acme = ['--api-url', apiUrl(), '--token', 'acme-token-0123456789', '--tenant', 'acme'];
    const listed = await runCli(cliPath, ['snapshot', 'list', ...acme, '--json'], env({ BENCHDESK_DATA_DIR: h.dir }));
    expect(SnapshotListSchema.parse(stdoutJson(listed)).snapshots.filter((s) => !s.snapshot_id.startsWith('starter-'))).toHaveLength(1);
    const refused = await runCli(cliPath, ['snapshot', 'record', '--name', 'x', ...acme], env({ BENCHDESK_DATA_DIR: h.dir }));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('403 forbidden_tenant');
  });
});
