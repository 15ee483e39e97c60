import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCENARIO } from '../test/fakes/kubernetes';
import { DEFAULT_FAKE_MODELS, type ChatTurn } from '../test/fakes/ollama';
import { mustK8s, mustVast } from '../test/workflows/harness';
import { apiCall, go, launchBrowser, openApp, shootBothThemes, startUiServer, type UiPage, type UiServer } from './ui-support';

/**
 * The desktop app's loop in browser mode: estimate → launch → watch → cancel, against the real
 * product and the fakes. Screenshots of every page land in screenshots/ (git-ignored).
 */

const CRASH = SCENARIO.crashLoopPod;
const ANSWER = `**${CRASH.namespace}/${CRASH.name}** is in CrashLoopBackOff: it cannot connect to \`postgres.shop.svc:5432\`.`;
const SCRIPT: ChatTurn[] = [
  { tool_calls: [{ name: 'list_unhealthy_pods', arguments: { namespace: CRASH.namespace } }] },
  { tool_calls: [{ name: 'get_pod_logs', arguments: { namespace: CRASH.namespace, pod: CRASH.name, previous: true } }] },
  { content: ANSWER },
];
/** Needs 23.5 GB of VRAM in the catalog: the cheapest fit in the fake marketplace is an RTX 3090. */
const BIG_MODEL = 'qwen2.5:32b';

let server: UiServer;
let noKey: UiServer;
let browser: Browser;
let app: UiPage;
let page: Page;
let benchmarkId = '';

async function jobIdFromUrl(p: Page): Promise<string> {
  await p.waitForURL(/#\/jobs\/[^/]+$/, { timeout: 15_000 });
  return decodeURIComponent(new URL(p.url()).hash.replace('#/jobs/', ''));
}

beforeAll(async () => {
  server = await startUiServer({
    vast: true,
    k8s: true,
    ollama: {
      models: DEFAULT_FAKE_MODELS,
      registry: [{ name: BIG_MODEL, size: 19_851_336_256, family: 'qwen2', parameter_size: '32.8B' }],
      scripts: { 'llama3.1:8b': SCRIPT, [BIG_MODEL]: SCRIPT },
    },
  });
  noKey = await startUiServer({ vast: true, vastKey: false });
  browser = await launchBrowser();
  app = await openApp(browser, server);
  page = app.page;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await noKey?.close();
});

describe('Estimate', () => {
  it('shows live offers in a sortable table with the cheapest highlighted, two charts, and the confidence', async () => {
    await go(page, '/estimate');
    await page.locator('[data-testid="estimate-model"]').selectOption(BIG_MODEL);
    await page.locator('[data-testid="estimate-max"]').fill('2');
    await page.locator('[data-testid="estimate-hours"]').fill('3');
    const result = page.locator('[data-testid="estimate-result"][data-basis="live_offers"]');
    await result.waitFor({ timeout: 15_000 });
    await page.locator('[data-testid="estimate-summary"]').getByText('Expected cost (3 h)').waitFor();

    const rows = page.locator('[data-testid="offers-table"] tbody tr');
    expect(await rows.count()).toBeGreaterThan(2);
    // The cheapest fitting offer is the first row, highlighted and labelled; the 12 GB RTX 3060 does not fit.
    const first = rows.first();
    expect(await first.getAttribute('class')).toContain('row-highlight');
    expect(await first.innerText()).toContain('cheapest');
    expect(await first.innerText()).toContain('RTX 3090');
    expect(await page.locator('[data-testid="offers-table"]').innerText()).not.toContain('RTX 3060');
    expect(await page.locator('[data-testid="offers-table"] tr.row-highlight').count()).toBe(1);

    // Two charts drawn on canvas.
    expect(await page.locator('[data-testid="chart-offers"] canvas').count()).toBe(1);
    expect(await page.locator('[data-testid="chart-cost-duration"] canvas').count()).toBe(1);
    await shootBothThemes(page, 'estimate-live');

    // Sorting by $/h descending puts the dearest first; the total column is $/h × 3 h.
    const column = async (name: string) => page.locator('[data-testid="offers-table"] thead th').evaluateAll((ths, n) => ths.findIndex((th) => th.textContent?.startsWith(n)), name);
    const dphColumn = await column('$/h');
    const dph = async (row: number) => Number((await rows.nth(row).locator('td').nth(dphColumn).innerText()).replace(/[$/h,]/g, ''));
    const cheapest = await dph(0);
    await page.locator('[data-testid="sort-dph"]').click();
    await page.locator('[data-testid="sort-dph"]').click();
    expect(await page.locator('th[aria-sort="descending"]').count()).toBe(1);
    expect(await dph(0)).toBeGreaterThan(cheapest);
    // Total = $/h × 3 h + the model's download on that host (a column of its own; — when the host's price is unknown).
    const cell = async (name: string) => rows.first().locator('td').nth(await column(name));
    const download = (await (await cell('Download')).innerText()).replace(/[$,]/g, '');
    const total = Number((await (await cell('Total')).innerText()).replace(/[$,]/g, ''));
    expect(total).toBeCloseTo((await dph(0)) * 3 + (download === '—' ? 0 : Number(download)), 1);

    expect(await page.locator('[data-testid="estimate-confidence"]').innerText()).toMatch(/\d+ %/);

    // Inputs are kept when moving between pages.
    await go(page, '/jobs');
    await page.locator('[data-testid="page-jobs"]').waitFor();
    await go(page, '/estimate');
    expect(await page.locator('[data-testid="estimate-hours"]').inputValue()).toBe('3');
    expect(await page.locator('[data-testid="estimate-model"]').inputValue()).toBe(BIG_MODEL);
  });

  it('without a marketplace key: no price, and how to add a key', async () => {
    const other = await openApp(browser, noKey);
    try {
      await go(other.page, '/estimate');
      await other.page.locator('[data-testid="estimate-max"]').fill('1.5');
      await other.page.locator('[data-testid="estimate-result"][data-basis="price_range"]').waitFor({ timeout: 15_000 });
      expect(await other.page.locator('[data-testid="estimate-basis"]').innerText()).toBe('no live prices');
      const notice = other.page.locator('[data-testid="estimate-no-live"][data-state="no_key"]');
      expect(await notice.innerText()).toContain('No marketplace key');
      expect(await notice.innerText()).toContain('VAST_API_KEY');
      // No figure from the middle of the range: it is not a price.
      expect(await other.page.locator('[data-testid="estimate-expected"]').count()).toBe(0);
      expect(await other.page.locator('[data-testid="estimate-result"]').innerText()).not.toContain('$0.75');
      expect(await other.page.locator('[data-testid="offers-table"]').count()).toBe(0);
      await shootBothThemes(other.page, 'estimate-no-key');
      expect(other.errors).toEqual([]);
    } finally {
      await other.context.close();
    }
  });
});

describe('Launch and watch', () => {
  it('validates field by field, then launches a marketplace benchmark through the spend confirmation (one job for a double click)', async () => {
    const vast = mustVast(server.h);
    // The warm-up takes a moment, so the detail page sees the job running.
    server.h.ollama.setKnobs({ loadLatencyMs: 1500 });
    await go(page, '/launch');
    await page.locator('[data-testid="page-launch"]').waitFor();
    await shootBothThemes(page, 'launch');
    await page.locator('[data-testid="target-marketplace"]').click();

    // Submitting the empty form marks each invalid field with the schema's message.
    await page.locator('[data-testid="launch-submit"]').click();
    const questionField = page.locator('.field', { has: page.locator('[data-testid="launch-question"]') });
    expect(await questionField.locator('.field-error').innerText()).not.toBe('');
    expect(await page.locator('[data-testid="launch-question"]').getAttribute('aria-invalid')).toBe('true');
    await page.locator('[data-testid="launch-max_dph"]').fill('0.1');
    await page.locator('[data-testid="launch-min_dph"]').fill('0.5');
    await page.locator('[data-testid="launch-min_dph"]').blur();
    expect(await page.locator('.field', { has: page.locator('[data-testid="launch-max_dph"]') }).locator('.field-error').innerText()).toBe('Max $/h must be at least Min $/h');
    expect(vast.callsTo('asks')).toEqual([]);
    await shootBothThemes(page, 'launch-invalid', 100);

    await page.locator('[data-testid="launch-question"]').fill('Why is the shop down?');
    await page.locator('[data-testid="launch-model"]').selectOption(BIG_MODEL);
    await page.locator('[data-testid="launch-kubeconfig"]').fill(mustK8s(server.h).kubeconfigPath);
    await page.locator('[data-testid="launch-min_dph"]').fill('0');
    await page.locator('[data-testid="launch-max_dph"]').fill('0.5');
    await page.locator('[data-testid="launch-hours"]').fill('2');
    expect(await page.locator('[aria-invalid="true"]').count()).toBe(0);

    await page.locator('[data-testid="launch-submit"]').click();
    const dialog = page.locator('[data-testid="spend-confirm"]');
    await dialog.waitFor({ state: 'visible', timeout: 15_000 });
    expect(await page.locator('[data-testid="spend-expected-dph"]').innerText()).toMatch(/\$0\.\d+\/h/);
    expect(await page.locator('[data-testid="spend-max-dph"]').innerText()).toContain('$0.50/h');
    const summary = await page.locator('[data-testid="spend-summary"]').innerText();
    expect(summary).toContain('2 h');
    expect(await page.locator('[data-testid="spend-release"]').innerText()).toContain('released when the job ends');
    await shootBothThemes(page, 'launch-confirm', 200);

    await dialog.locator('[data-testid="confirm-ok"]').dblclick();
    benchmarkId = await jobIdFromUrl(page);
    const jobs = await apiCall(server, 'GET', '/v1/jobs?kind=benchmark');
    expect((jobs.body.jobs as unknown[]).length).toBe(1);
  });

  it('shows the phases and events arriving live, then the answer, metrics and the released machine', async () => {
    expect(benchmarkId).not.toBe('');
    await page.locator('[data-testid="page-job"]').waitFor();
    // Seen running, with the stream live, before the end.
    await page.locator('[data-testid="job-header"][data-status="running"]').waitFor({ timeout: 15_000 });
    await page.locator('[data-testid="event-log"][data-stream-state="live"]').waitFor({ timeout: 10_000 });
    // The stream can be live a moment before its first rows are painted: count once there are some.
    await page.locator('[data-testid="event-row"]').first().waitFor({ timeout: 10_000 });
    const eventsWhileRunning = await page.locator('[data-testid="event-row"]').count();
    const eventTotal = async () => Number(/(\d+) events/.exec(await page.locator('[data-testid="event-log"]').locator('.muted.num').innerText())?.[1] ?? NaN);
    const totalWhileRunning = await eventTotal();
    await page.locator('[data-testid="phase-timeline"] [data-phase="provision"]').waitFor({ timeout: 15_000 });
    // While the job runs, its machine bills: its live cost and machine time sit apart from the job's own time.
    await page.locator('[data-testid="job-machine"] [data-testid="machine-state"][data-state="billing"]').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('machine-cost').innerText()).toMatch(/\$\d/);
    await page.locator('[data-testid="machine-cancel-job"]').waitFor();
    await shootBothThemes(page, 'job-running', 200);

    await page.locator('[data-testid="job-header"][data-status="succeeded"]').waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="event-log"][data-stream-state="ended"]').waitFor({ timeout: 10_000 });
    for (const phase of ['provision', 'warmup', 'analysis', 'teardown']) {
      expect(await page.locator(`[data-testid="phase-timeline"] [data-phase="${phase}"]`).getAttribute('data-status')).toBe('ok');
    }
    // The answer is rendered markdown: bold and code, no raw asterisks.
    const answer = page.locator('[data-testid="job-answer-text"]');
    expect(await answer.locator('strong').innerText()).toBe(`${CRASH.namespace}/${CRASH.name}`);
    expect(await answer.locator('code').innerText()).toBe('postgres.shop.svc:5432');
    expect(await answer.innerText()).not.toContain('**');
    // Tool calls, expandable.
    const calls = page.locator('[data-testid="tool-calls"] details');
    expect(await calls.count()).toBe(2);
    await calls.first().locator('summary').click();
    expect(await calls.first().locator('pre').first().innerText()).toContain(CRASH.namespace);
    // Metrics with units, the cost, and the release in the events.
    const metrics = await page.locator('[data-testid="job-metrics"]').innerText();
    expect(metrics).toContain('Steps');
    expect(metrics).toMatch(/\d+ tool calls/);
    // The cost is the machine's, in its own panel: a final figure once released.
    expect(await page.getByTestId('machine-cost').innerText()).toMatch(/\$\d/);
    expect(await page.locator('[data-testid="machine-state"]').getAttribute('data-state')).toBe('released');
    await page.locator('[data-testid="event-row"][data-event="marketplace.instance.destroy"][data-status="ok"]').first().waitFor();
    // Events kept arriving after the page opened (it did not only load a finished log).
    expect(await page.locator('[data-testid="event-log"]').locator('.muted.num').innerText()).toMatch(/\d+ events/);
    expect(eventsWhileRunning).toBeGreaterThan(0);
    expect(await eventTotal()).toBeGreaterThan(totalWhileRunning);
    await page.locator('[data-testid="toggle-raw"]').click();
    expect(JSON.parse(await page.locator('[data-testid="raw-json"]').innerText())).toMatchObject({ job_id: benchmarkId, kind: 'benchmark', status: 'succeeded' });
    await shootBothThemes(page, 'job-detail');
    server.h.ollama.setKnobs({ loadLatencyMs: 0 });
  });

  it('cancels a running job after a confirmation, and its machine is released in the events', async () => {
    // The agent's first answer never comes: the job sits in the analysis phase on a rented machine.
    server.h.ollama.setKnobs({ firstByteDelayMs: 60_000 });
    const created = await apiCall(server, 'POST', '/v1/jobs/benchmark', {
      marketplace: true,
      template_hash: '4e17788f74f075dd9aab7d0d4427968f',
      max_dph: 0.5,
      model: BIG_MODEL,
      question: 'Why is the shop down?',
      kubeconfig: mustK8s(server.h).kubeconfigPath,
    });
    expect(created.status).toBe(202);
    const id = String(created.body.job_id);
    await go(page, `/jobs/${id}`);
    await page.locator('[data-testid="event-row"][data-event="agent.ask"][data-status="started"]').waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="cancel-job"]').click();
    const dialog = page.locator('[data-testid="cancel-confirm"]');
    await dialog.waitFor({ state: 'visible' });
    expect(await page.locator('[data-testid="cancel-release-note"]').innerText()).toContain('will be released');
    await shootBothThemes(page, 'job-cancel-confirm', 200);
    await dialog.locator('[data-testid="confirm-ok"]').click();
    await page.locator('[data-testid="job-header"][data-status="cancelled"]').waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="event-row"][data-event="marketplace.instance.destroy"][data-status="ok"]').first().waitFor({ timeout: 15_000 });
    await page.locator('[data-testid="event-row"][data-event="job.cancelled"]').waitFor({ timeout: 15_000 });
    const instanceId = Number((await apiCall(server, 'GET', `/v1/jobs/${id}`)).body.resources && ((await apiCall(server, 'GET', `/v1/jobs/${id}`)).body.resources as { marketplace_instance_id: number }).marketplace_instance_id);
    expect(mustVast(server.h).state.instances.get(instanceId)?.destroyed).toBe(true);
    server.h.ollama.setKnobs({ firstByteDelayMs: 0 });
  });

  it('opens a job from a deep link (also after a reload), and back/forward work', async () => {
    await go(page, '/jobs');
    const row = page.locator(`[data-testid="job-row"][data-job-id="${benchmarkId}"]`);
    await row.waitFor({ timeout: 10_000 });
    expect(await page.locator('[data-testid="status-tabs"] [data-tab="cancelled"] .tab-count').innerText()).toBe('1');
    await shootBothThemes(page, 'jobs');
    // Keyboard: focus the row and open it with Enter.
    await row.focus();
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="job-header"][data-status="succeeded"]').waitFor();
    expect(page.url()).toContain(`#/jobs/${benchmarkId}`);
    await page.goBack();
    await page.locator('[data-testid="page-jobs"]').waitFor();
    await page.goForward();
    await page.locator('[data-testid="job-id"]').waitFor();
    // A fresh load of the shared URL (the token stays in this tab's session).
    await page.goto(`${new URL(page.url()).origin}/ui/#/jobs/${encodeURIComponent(benchmarkId)}`);
    await page.reload();
    expect(await page.locator('[data-testid="job-id"]').innerText()).toBe(benchmarkId);
    await page.locator('[data-testid="job-answer"]').waitFor();
    // An unknown job says so and links back to the list.
    await go(page, '/jobs/no-such-job');
    await page.locator('[data-testid="job-not-found"]').waitFor();
    expect(app.errors.filter((e) => !/404/.test(e))).toEqual([]);
  });
});

describe('Shell', () => {
  it('follows the system theme, and a manual choice overrides it and survives a reload', async () => {
    const themed = await openApp(browser, server, 'dark');
    try {
      const theme = () => themed.page.evaluate<string | undefined>('document.documentElement.dataset.theme');
      expect(await theme()).toBe('dark');
      await themed.page.emulateMedia({ colorScheme: 'light' });
      await expect.poll(theme).toBe('light');
      await themed.page.locator('[data-testid="theme-dark"]').click();
      expect(await theme()).toBe('dark');
      await themed.page.reload();
      await themed.page.locator('[data-testid="app-ready"]').waitFor();
      expect(await theme()).toBe('dark');
      await themed.page.locator('[data-testid="theme-system"]').click();
      expect(await theme()).toBe('light');
    } finally {
      await themed.context.close();
    }
  });

  it('an API that does not answer shows one screen that says how to start it, and connects by itself once it answers', async () => {
    const cut = await openApp(browser, server);
    try {
      await cut.page.route('**/healthz', (route) => route.abort('connectionrefused'));
      await cut.page.route('**/v1/**', (route) => route.abort('connectionrefused'));
      await cut.page.reload();
      await go(cut.page, '/jobs');
      const screen = cut.page.locator('[data-testid="api-unreachable"][data-code="upstream_unreachable"]');
      await screen.waitFor({ timeout: 20_000 });
      expect(await screen.innerText()).toContain('benchdesk serve');
      // One message, not an error per panel.
      expect(await cut.page.locator('[data-testid="error-state"]').count()).toBe(0);
      await shootBothThemes(cut.page, 'error-unreachable', 200);
      await cut.page.unroute('**/healthz');
      await cut.page.unroute('**/v1/**');
      await cut.page.locator('[data-testid="page-jobs"]').waitFor({ timeout: 15_000 });
      expect(await screen.count()).toBe(0);
    } finally {
      await cut.context.close();
    }
  });

  it('a wrong token brings the sign-in screen, which says the token was refused and where the right one is', async () => {
    const context = await browser.newContext();
    try {
      const p = await context.newPage();
      await p.goto(`${server.baseUrl}/ui/#token=wrong-token`);
      await go(p, '/jobs');
      const signIn = p.locator('[data-testid="sign-in"][data-reason="refused"]');
      await signIn.waitFor({ timeout: 15_000 });
      expect(await p.getByTestId('signin-problem').innerText()).toContain('did not accept');
      // This server's tokens come from SERVICE_API_TOKENS: that is the hint, not an api-token file.
      expect(await p.getByTestId('signin-hints').getAttribute('data-sources')).toBe('environment');
      expect(await p.getByTestId('hint-environment').innerText()).toContain('SERVICE_API_TOKENS');
      expect(await p.getByTestId('hint-app-token').count()).toBe(0);
      expect(await p.locator('[data-testid="error-state"]').count()).toBe(0);
      await shootBothThemes(p, 'error-401', 200);
      await p.getByTestId('signin-token').fill(server.token);
      await p.getByTestId('signin-submit').click();
      await p.locator('[data-testid="page-jobs"]').waitFor({ timeout: 15_000 });
    } finally {
      await context.close();
    }
  });
});
