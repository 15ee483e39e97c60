import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ageAt, type JobRecord, type SnapshotSummary } from '../shared';
import { SCENARIO } from '../test/fakes/kubernetes';
import type { ChatTurn } from '../test/fakes/ollama';
import { mustK8s } from '../test/workflows/harness';
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
  });
});

describe('the snapshot browser', () => {
  it("pods with kubectl's STATUS, events, nodes and a crashed container's previous log; ages as of the recording", async () => {
    await go(page, `/snapshots/${snapshot.snapshot_id}`);
    const pods = page.locator('[data-testid="snapshot-pods"]');
    await pods.waitFor();
    expect(await page.locator('#page-title').innerText()).toBe('Shop, crash loop');
    const crashRow = pods.locator('tr', { hasText: CRASH.name });
    // Ages count from the recording (the fake cluster's objects date from 2026-08-20).
    const recordedAt = Date.parse(snapshot.recorded_at);
    const age = ageAt('2026-08-20T10:00:00Z', recordedAt);
    expect(await crashRow.innerText()).toMatch(new RegExp(`0/1\\s+CrashLoopBackOff\\s+7 \\(${ageAt('2026-08-20T10:21:00Z', recordedAt)} ago\\)\\s+${age}`));
    expect(await pods.locator('tr', { hasText: SCENARIO.imagePullPod.name }).innerText()).toContain('ImagePullBackOff');
    expect(await page.locator('[data-testid="snapshot-browser"]').innerText()).toContain('3 of 8 pods need a look; 6 warning events');
    await shootBothThemes(page, 'snapshot-pods', 150);

    await page.locator('[data-testid="snapshot-namespace"]').selectOption('batch');
    expect(await pods.locator('tbody tr').count()).toBe(2);
    await page.locator('[data-testid="snapshot-namespace"]').selectOption('');

    await page.locator('[data-tab="events"]').click();
    const events = page.locator('[data-testid="snapshot-events"]');
    await events.waitFor();
    expect(await events.locator('tr', { hasText: 'FailedScheduling' }).innerText()).toContain(ageAt('2026-08-20T10:26:30.123456Z', recordedAt));
    await shootBothThemes(page, 'snapshot-events', 150);

    await page.locator('[data-tab="nodes"]').click();
    expect(await page.locator('[data-testid="snapshot-nodes"]').innerText()).toContain('Ready,SchedulingDisabled');

    await page.locator('[data-tab="pods"]').click();
    await crashRow.getByRole('button', { name: `Logs of ${CRASH.name}` }).click();
    const log = page.locator('[data-testid="snapshot-log"]');
    await log.waitFor();
    expect(await log.innerText()).toContain(SCENARIO.crashLogLine);
    await shootBothThemes(page, 'snapshot-logs', 150);
    expect(app.errors).toEqual([]);
  });

  it('an unknown snapshot says so and what to do', async () => {
    await go(page, '/snapshots/no-such-snapshot');
    const error = page.locator('[data-testid="snapshot-error"]');
    await error.waitFor();
    expect(await error.innerText()).toContain('no snapshot no-such-snapshot');
  });
});
