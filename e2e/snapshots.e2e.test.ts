import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ageAt, type JobRecord, type SnapshotSummary } from '../shared';
import { SCENARIO } from '../test/fakes/kubernetes';
import type { ChatTurn } from '../test/fakes/ollama';
import { mustK8s } from '../test/workflows/harness';
import { lookAt } from './look';
import { apiCall, go, launchBrowser, openApp, shootBothThemes, startUiServer, type UiPage, type UiServer } from './ui-support';

/**
 * Recorded clusters in the browser: the Launch form runs an agent on a snapshot instead of a
 * kubeconfig, and the snapshot browser shows its pods (kubectl's STATUS), events and logs.
 * Screenshots in both themes land in screenshots/ (git-ignored).
 */

const CRASH = SCENARIO.crashLoopPod;
const ANSWER = `${CRASH.namespace}/${CRASH.name} is in CrashLoopBackOff: it cannot connect to postgres.shop.svc:5432.`;
const SCRIPT: ChatTurn[] = [
  { tool_calls: [{ name: 'list_unhealthy_pods', arguments: {} }] },
  { tool_calls: [{ name: 'get_pod_logs', arguments: { namespace: CRASH.namespace, pod: CRASH.name, previous: true } }] },
  { content: ANSWER },
];

let server: UiServer;
let browser: Browser;
let app: UiPage;
let page: Page;
let snapshot: SnapshotSummary;

beforeAll(async () => {
  server = await startUiServer({ k8s: true, ollama: { scripts: { 'llama3.1:8b': SCRIPT } } });
  const recorded = await apiCall(server, 'POST', '/v1/snapshots', { name: 'Shop, crash loop', kubeconfig: mustK8s(server.h).kubeconfigPath });
  expect(recorded.status).toBe(201);
  snapshot = recorded.body as unknown as SnapshotSummary;
  browser = await launchBrowser();
  app = await openApp(browser, server);
  page = app.page;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('Launch on a recorded snapshot', () => {
  it('picks the snapshot instead of a kubeconfig; the job runs on it', async () => {
    await go(page, '/launch');
    await page.locator('[data-testid="launch-kind-agentic-agent"]').click();
    await page.locator('[data-testid="cluster-snapshot"]').click();
    // Choosing "snapshot" without one is refused on that field.
    await page.locator('[data-testid="launch-submit"]').click();
    expect(await page.locator('.field', { has: page.locator('[data-testid="launch-snapshot"]') }).locator('.field-error').innerText()).toContain('Choose a recorded snapshot');
    await page.locator('[data-testid="launch-snapshot"]').selectOption(snapshot.snapshot_id);
    expect(await page.locator('[data-testid="launch-cluster"]').innerText()).toContain('8 pods, 7 events');
    await page.locator('[data-testid="launch-question"]').fill('Why is the shop down?');
    await page.locator('[data-testid="launch-model"]').selectOption('llama3.1:8b');
    await page.locator('[data-testid="launch-backend_url"]').fill(server.h.ollama.url);
    await shootBothThemes(page, 'launch-snapshot', 150);

    const kubeCalls = mustK8s(server.h).calls.length;
    await page.locator('[data-testid="launch-submit"]').click();
    await page.waitForURL(/#\/jobs\/[^/]+$/, { timeout: 15_000 });
    const jobId = decodeURIComponent(new URL(page.url()).hash.replace('#/jobs/', ''));
    let job: JobRecord | undefined;
    for (let i = 0; i < 200 && job?.status !== 'succeeded' && job?.status !== 'failed'; i++) {
      job = (await apiCall(server, 'GET', `/v1/jobs/${jobId}`)).body as unknown as JobRecord;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(job?.status, job?.error ?? '').toBe('succeeded');
    expect(job?.request).toMatchObject({ snapshot: snapshot.snapshot_id });
    expect(job?.request).not.toHaveProperty('kubeconfig');
    // The live cluster was not asked: the agent read the replay.
    expect(mustK8s(server.h).calls.length).toBe(kubeCalls);

    // The job's page says what was asked, who answered, and which snapshot it read (linked by name).
    const asked = page.locator('[data-testid="job-asked"]');
    await asked.waitFor();
    expect(await asked.locator('[data-testid="asked-question"]').innerText()).toBe('Why is the shop down?');
    expect(await asked.locator('[data-testid="asked-agent"]').innerText()).toBe('builtin');
    expect(await asked.locator('[data-testid="asked-model"]').innerText()).toBe('llama3.1:8b');
    expect(await asked.locator('[data-testid="asked-backend"]').innerText()).toBe(server.h.ollama.url);
    const cluster = asked.locator('[data-testid="asked-cluster"] a');
    expect(await cluster.innerText()).toBe('Shop, crash loop');
    expect(await cluster.getAttribute('href')).toBe(`#/snapshots/${snapshot.snapshot_id}`);
    await page.locator('[data-testid="job-answer"]').waitFor();
    expect(await lookAt(page, 'job-agent-on-snapshot')).toEqual([]);
  });
});

const run = promisify(execFile);

describe('the Snapshots page', () => {
  it('lists the snapshots with counts, size, cluster and use, from the navigation', async () => {
    await go(page, '/');
    await page.locator('[data-testid="nav-snapshots"]').click();
    const table = page.locator('[data-testid="snapshots-table"]');
    await table.waitFor();
    const row = await table.locator('tr', { hasText: 'Shop, crash loop' }).innerText();
    expect(row).toContain('8 pods · 7 events');
    expect(row).toContain(snapshot.source);
    expect(row).toMatch(/\d+(\.\d)? (KB|MB|GB)/);
    expect(row).toContain('none');
    expect(await lookAt(page, 'snapshots-list')).toEqual([]);
  });

  it('records a cluster from a kubeconfig; an unreachable one is said in cluster terms', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bd-kube-'));
    try {
      // A kubeconfig whose cluster is a port where nothing listens.
      const dead = path.join(dir, 'dead.yaml');
      writeFileSync(dead, readFileSync(mustK8s(server.h).kubeconfigPath, 'utf8').replace(/server: https?:\/\/[^\s]+/, 'server: https://127.0.0.1:9'));
      await page.locator('[data-testid="snapshots-record"]').click();
      await page.locator('[data-testid="record-name"]').fill('nowhere');
      await page.locator('[data-testid="record-kubeconfig"]').fill(dead);
      await page.locator('[data-testid="record-submit"]').click();
      const problem = page.locator('[data-testid="record-error"]');
      await problem.waitFor({ timeout: 30_000 });
      expect(await problem.locator('.problem-title').innerText()).toBe('The cluster at https://127.0.0.1:9 did not answer');
      expect(await problem.innerText()).not.toMatch(/backend URL|upstream_unreachable/);
      expect(await lookAt(page, 'snapshots-record-unreachable')).toEqual([]);

      await page.locator('[data-testid="record-name"]').fill('Shop again');
      await page.locator('[data-testid="record-kubeconfig"]').fill(mustK8s(server.h).kubeconfigPath);
      await page.locator('[data-testid="record-submit"]').click();
      await page.locator('[data-testid="record-done"]').waitFor({ timeout: 30_000 });
      await page.locator('[data-testid="snapshots-table"] tr', { hasText: 'Shop again' }).waitFor();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a snapshot's page: its facts, run a job on it, serve it to the real kubectl, export it, delete it (refused while served)", async () => {
    await page.locator('[data-testid="snapshots-table"] tr', { hasText: 'Shop again' }).locator('a').click();
    await page.locator('[data-testid="snapshot-facts"]').waitFor();
    const id = decodeURIComponent(new URL(page.url()).hash.replace('#/snapshots/', ''));
    expect(await page.locator('[data-testid="snapshot-facts"]').innerText()).toContain('8 pods');
    await page.locator('[data-testid="snapshot-pods"]').waitFor();

    // Run on it: Launch opens with the snapshot chosen.
    await page.locator('[data-testid="snapshot-run-agent"]').click();
    await page.locator('[data-testid="launch-snapshot"]').waitFor();
    expect(await page.locator('[data-testid="launch-snapshot"]').inputValue()).toBe(id);
    expect(await page.locator('[data-testid="launch-carried"]').innerText()).toContain('Shop again');
    await page.goBack();

    // Serve it: the kubeconfig it shows works with kubectl.
    await page.locator('[data-testid="snapshot-serve-start"]').click();
    const kubeconfig = await page.locator('[data-testid="snapshot-serving-kubeconfig"]').innerText();
    const { stdout } = await run('kubectl', ['get', 'pods', '-A', '--no-headers'], { env: { ...process.env, KUBECONFIG: kubeconfig } });
    expect(stdout).toContain(CRASH.name);
    expect(stdout).toContain('CrashLoopBackOff');
    expect(await page.locator('[data-testid="snapshot-used-by"]').innerText()).toContain('Snapshots page');
    expect(await lookAt(page, 'snapshot-page-serving')).toEqual([]);

    // Delete while served: refused, saying by what.
    await page.locator('[data-testid="snapshot-delete"]').click();
    await page.locator('[data-testid="snapshot-delete-confirm"] [data-testid="confirm-ok"]').click();
    const refused = page.locator('[data-testid="snapshot-delete-error"]');
    await refused.waitFor();
    expect(await refused.innerText()).toContain('in use by the Snapshots page');
    await page.locator('[data-testid="snapshot-delete-confirm"] [data-testid="confirm-cancel"]').click();

    // Export: the document, as a download.
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('[data-testid="snapshot-export"]').click()]);
    expect(download.suggestedFilename()).toBe(`${id}.snapshot.json`);
    const doc = JSON.parse(readFileSync(await download.path(), 'utf8')) as { format: string; snapshot_id: string };
    expect(doc).toMatchObject({ format: 'benchdesk.snapshot/v1', snapshot_id: id });

    // Stop serving, then delete: back to the list, without it.
    await page.locator('[data-testid="snapshot-serve-stop"]').click();
    await page.locator('[data-testid="snapshot-serve-start"]').waitFor();
    await expect(run('kubectl', ['get', 'pods', '-A', '--request-timeout=3s'], { env: { ...process.env, KUBECONFIG: kubeconfig } })).rejects.toThrow();
    await page.locator('[data-testid="snapshot-delete"]').click();
    await page.locator('[data-testid="snapshot-delete-confirm"] [data-testid="confirm-ok"]').click();
    await page.waitForURL(/#\/snapshots$/, { timeout: 15_000 }).catch(async (err: unknown) => {
      throw new Error(`not back on the list; the dialog says: ${await page.locator('[data-testid="snapshot-delete-confirm"]').innerText()}`, { cause: err });
    });
    await page.locator('[data-testid="snapshots-table"] tr', { hasText: 'Shop again' }).waitFor({ state: 'detached' });
    expect((await apiCall(server, 'GET', `/v1/snapshots/${id}`)).status).toBe(404);
  });
});

describe('the snapshot browser', () => {
  it("pods with kubectl's STATUS, events, nodes and a crashed container's previous log; ages as of the recording", async () => {
    await go(page, `/snapshots/${snapshot.snapshot_id}`);
    const pods = page.locator('[data-testid="snapshot-pods"]');
    await pods.waitFor();
    expect(await page.locator('#page-title').innerText()).toBe('Shop, crash loop');
    const crashRow = pods.locator('tr', { hasText: CRASH.name });
    // Ages count from the recording (the fake cluster's story ends a minute before it started).
    const recordedAt = Date.parse(snapshot.recorded_at);
    const story = mustK8s(server.h);
    const age = ageAt(story.storyAt(0), recordedAt);
    expect(await crashRow.innerText()).toMatch(new RegExp(`0/1\\s+CrashLoopBackOff\\s+7 \\(${ageAt(story.storyAt(21), recordedAt)} ago\\)\\s+${age}`));
    expect(await pods.locator('tr', { hasText: SCENARIO.imagePullPod.name }).innerText()).toContain('ImagePullBackOff');
    expect(await page.locator('[data-testid="snapshot-browser"]').innerText()).toContain('3 of 8 pods need a look; 6 warning events');
    await shootBothThemes(page, 'snapshot-pods', 150);

    await page.locator('[data-testid="snapshot-namespace"]').selectOption('batch');
    expect(await pods.locator('tbody tr').count()).toBe(2);
    await page.locator('[data-testid="snapshot-namespace"]').selectOption('');

    await page.locator('[data-tab="events"]').click();
    const events = page.locator('[data-testid="snapshot-events"]');
    await events.waitFor();
    expect(await events.locator('tr', { hasText: 'FailedScheduling' }).innerText()).toContain(ageAt(`${story.storyAt(26.5).slice(0, -1)}.123456Z`, recordedAt));
    await shootBothThemes(page, 'snapshot-events', 150);

    await page.locator('[data-tab="nodes"]').click();
    expect(await page.locator('[data-testid="snapshot-nodes"]').innerText()).toContain('Ready,SchedulingDisabled');

    await page.locator('[data-tab="pods"]').click();
    await crashRow.getByRole('button', { name: `Logs of ${CRASH.name}` }).click();
    const log = page.locator('[data-testid="snapshot-log"]');
    await log.waitFor();
    expect(await log.innerText()).toContain(SCENARIO.crashLogLine);
    await shootBothThemes(page, 'snapshot-logs', 150);
    // Only the answers the tests asked for: the unreachable cluster (502) and the delete refused while served (409).
    expect(app.errors.filter((e) => !/status of (409|502)/.test(e))).toEqual([]);
  });

  it('an unknown snapshot says so and what to do', async () => {
    await go(page, '/snapshots/no-such-snapshot');
    const error = page.locator('[data-testid="snapshot-error"]');
    await error.waitFor();
    expect(await error.innerText()).toContain('no snapshot no-such-snapshot');
  });
});
