import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FAKE_MODELS } from '../test/fakes/ollama';
import { OLLAMA_TEMPLATE_HASH } from '../test/fakes/vast';
import { heldRunner } from '../test/sweeps/helpers';
import { mustVast } from '../test/workflows/harness';
import { apiCall, go, launchBrowser, openApp, shootBothThemes, shootElementBothThemes, startUiServer, type UiPage, type UiServer } from './ui-support';

/**
 * The Sweeps page in the browser against the real server on the fake Vast.ai and Ollama: the
 * empty page, a sweep created from the form (catalog models, GPUs from live offers, the pre-flight
 * estimate, the confirmation), its matrix following pushed events while it runs, the Overview
 * showing the sweep's machine, and the finished sweep ranked with its Pareto chart. The suite jobs
 * are held by an in-test runner so the test decides when each cell ends. Screenshots in both
 * themes land in screenshots/.
 */

const jobs = heldRunner({ hold: true });
let server: UiServer;
let browser: Browser;
let app: UiPage;
let page: Page;

beforeAll(async () => {
  server = await startUiServer({ vast: true, ollama: { models: DEFAULT_FAKE_MODELS }, extra: { sweepTuning: { runner: jobs.runner } } });
  browser = await launchBrowser();
  app = await openApp(browser, server);
  page = app.page;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('Sweeps page', () => {
  it('empty: the nav entry, the form open, an empty list that says what to do', async () => {
    await page.locator('[data-testid="nav-sweeps"]').click();
    await page.locator('[data-testid="sweeps-empty"]').waitFor();
    await page.locator('[data-testid="sweep-form"]').waitFor();
    // GPU names come from the live offers, each with its cheapest rate.
    await page.locator('[data-testid="sweep-gpu-RTX 3090"]').waitFor();
    expect(await page.locator('[data-testid="sweep-gpus"]').innerText()).toMatch(/RTX 3090\s+from \$0\.\d+\/h/);
    await shootBothThemes(page, 'sweeps-empty');
  });

  it('creates a sweep: validation on the fields, the pre-flight estimate, a confirmation, then its page', async () => {
    await page.locator('[data-testid="sweep-submit"]').click();
    expect(await page.locator('.field', { has: page.locator('[data-testid="sweep-name"]') }).locator('.field-error').innerText()).toContain('Name the sweep');
    await page.locator('[data-testid="sweep-name"]').fill('8B models for triage');
    await page.locator('[data-testid="sweep-model-llama3.1:8b"]').check();
    await page.locator('[data-testid="sweep-model-qwen2.5:7b"]').check();
    // A dearer ceiling brings more GPUs into the list.
    await page.locator('[data-testid="sweep-max-dph"]').fill('2');
    await page.locator('[data-testid="sweep-gpu-RTX 3090"]').check();
    await page.locator('[data-testid="sweep-gpu-A100 SXM4"]').check();
    // The template is picked by name; the recommended Ollama template is chosen already.
    await expect.poll(() => page.locator('[data-testid="sweep-template"]').inputValue()).toBe(OLLAMA_TEMPLATE_HASH);
    expect(await page.locator('[data-testid="sweep-template"] option:checked').innerText()).toMatch(/Ollama/i);
    expect(await page.locator('[data-testid="sweep-preflight"]').innerText()).toMatch(/machine-hours ≈ \$\d/);
    // The judge and the constraints are checked in the form's words: a model under test may not judge itself, accuracy is a %.
    await page.locator('[data-testid="sweep-judge"]').fill('qwen2.5:7b');
    await page.locator('[data-testid="sweep-min-accuracy"]').fill('150');
    await page.locator('[data-testid="sweep-submit"]').click();
    expect(await page.locator('.field', { has: page.locator('[data-testid="sweep-judge"]') }).locator('.field-error').innerText()).toContain('one of the models under test');
    expect(await page.locator('.field', { has: page.locator('[data-testid="sweep-min-accuracy"]') }).locator('.field-error').innerText()).toBe('A percentage from 0 to 100');
    await shootElementBothThemes(page.locator('[data-testid="sweep-constraints"]'), 'sweeps-form-constraints');
    await page.locator('[data-testid="sweep-judge"]').fill('');
    await page.locator('[data-testid="sweep-min-accuracy"]').fill('');
    const rents = mustVast(server.h).callsTo('asks').length;
    await page.locator('[data-testid="sweep-submit"]').click();
    await page.locator('[data-testid="sweep-confirm"]').waitFor();
    expect(await page.locator('[data-testid="sweep-confirm"]').innerText()).toContain('one machine is rented per GPU');
    // Nothing is rented before the confirmation.
    expect(mustVast(server.h).callsTo('asks').length).toBe(rents);
    await page.getByRole('button', { name: 'Rent and start' }).click();
    await page.locator('[data-testid="sweep-detail"]').waitFor();
    expect(await page.locator('[data-testid="sweep-matrix"] tbody tr').count()).toBe(2);
  });

  it('running: the matrix follows pushed events without a reload; the Overview shows the sweep’s machine and its cost', async () => {
    await expect.poll(() => jobs.jobs.length, { timeout: 20_000 }).toBe(1);
    await page.locator('[data-testid="sweep-cell-0"][data-status="running"]').waitFor();
    const box = await page.locator('[data-testid="sweep-cell-1"]').boundingBox();
    await shootBothThemes(page, 'sweeps-running');

    // The first cell ends: the page learns it from the feed.
    jobs.jobs[0]?.finish();
    await page.locator('[data-testid="sweep-cell-0"][data-status="succeeded"]').waitFor();
    // Fixed-size cells: a neighbour changing status did not move this one.
    expect(await page.locator('[data-testid="sweep-cell-1"]').boundingBox()).toEqual(box);

    await go(page, '/');
    const machine = page.locator('[data-testid^="machine-sweep-link-"]');
    await machine.first().waitFor({ timeout: 20_000 });
    expect(await machine.first().innerText()).toContain('8B models for triage');
    await shootBothThemes(page, 'overview-sweep-machine');
    await page.goBack();
    await page.locator('[data-testid="sweep-detail"]').waitFor();
  });

  it('finished: every cell scored and costed, the ranked table, the Pareto chart, the cell detail from the keyboard', async () => {
    for (let n = 2; n <= 4; n++) {
      await expect.poll(() => jobs.jobs.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(n);
      jobs.jobs[n - 1]?.finish();
    }
    await page.locator('[data-testid="sweep-detail"][data-status="succeeded"]').waitFor({ timeout: 20_000 });
    expect(mustVast(server.h).liveInstances()).toHaveLength(0);
    await page.locator('[data-testid="sweep-ranked"] tbody tr').first().waitFor();
    expect(await page.locator('[data-testid="sweep-ranked"] tbody tr').count()).toBe(4);
    // 8/10 (llama) and 5/10 (qwen) on ten scenarios: their intervals overlap, so all four cells tie in
    // tier 1 (ordered by $ per correct answer, which here is the held jobs' timing), each with its error bar.
    expect(await page.locator('[data-testid="sweep-ranked"] thead').innerText()).toMatch(/Tier[\s\S]*Accuracy \(95% interval\)/);
    for (const row of await page.locator('[data-testid="sweep-ranked"] tbody tr').allInnerTexts()) expect(row).toMatch(/^1 tie/);
    expect(await page.locator('[data-testid="sweep-ranked"] svg.accuracy-track').count()).toBe(4);
    const bars = await page.locator('[data-testid="sweep-ranked"] svg.accuracy-track').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    expect(bars).toEqual(expect.arrayContaining(['80 %, 95% interval 49 % to 94.3 %', '50 %, 95% interval 23.7 % to 76.3 %']));
    await page.locator('[data-testid="sweep-pareto"] canvas').waitFor();
    expect(await page.locator('[data-testid="sweep-pareto"]').getAttribute('aria-label')).toMatch(/95% interval/);
    await shootElementBothThemes(page.locator('[data-testid="sweep-ranked-panel"]'), 'sweeps-ranked');
    await shootElementBothThemes(page.locator('[data-testid="sweep-pareto-panel"]'), 'sweeps-pareto');
    // Keyboard: focus a cell and press Enter.
    await page.locator('[data-testid="sweep-cell-2"]').focus();
    await page.keyboard.press('Enter');
    expect(await page.locator('[data-testid="sweep-cell-detail"]').innerText()).toMatch(/qwen2\.5:7b on RTX 3090[\s\S]*correct/);
    await shootBothThemes(page, 'sweeps-finished');
    // Accessibility of the finished sweep's page, in both themes: no serious or critical violation.
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(200);
      const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
      const blocking = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
      expect(blocking, scheme).toEqual([]);
    }
    expect(app.errors).toEqual([]);
  });

  it('a sweep with a judge and constraints that succeeded but not cleanly says so, each problem with what to do next', async () => {
    const own = await startUiServer({ vast: true, ollama: { models: DEFAULT_FAKE_MODELS }, extra: { sweepTuning: { runner: jobs.runner } } });
    try {
      const vast = mustVast(own.h);
      const refused = [...vast.state.offers.values()].filter((o) => o.gpu_name === 'RTX 4090').map((o) => o.id);
      expect(refused.length).toBeGreaterThan(0);
      vast.setKnob('rentRefused', { offers: refused, error: 'insufficient_credit', msg: 'your account lacks credit' });
      const created = await apiCall(own, 'POST', '/v1/sweeps', {
        name: 'Not clean',
        models: ['llama3.1:8b'],
        gpus: ['RTX 3090', 'RTX 4090'],
        suite_id: 'starter',
        judge: { model: 'qwen2.5:7b' },
        constraints: { min_accuracy: 0.5, max_usd_per_correct: 0.05 },
        template_hash: OLLAMA_TEMPLATE_HASH,
        max_dph: 1,
        max_total_cost_usd: 5,
      });
      expect(created.status).toBe(202);
      const before = jobs.jobs.length;
      await expect.poll(() => jobs.jobs.length, { timeout: 20_000 }).toBe(before + 1);
      jobs.jobs[before]?.finish();
      const url = `/v1/sweeps/${String(created.body.sweep_id)}`;
      await expect.poll(async () => String((await apiCall(own, 'GET', url)).body.status), { timeout: 20_000 }).toBe('succeeded');
      const ownPage = (await openApp(browser, own)).page;
      await go(ownPage, `/sweeps/${String(created.body.sweep_id)}`);
      const outcome = ownPage.locator('[data-testid="sweep-outcome"]');
      await outcome.waitFor();
      expect(await outcome.innerText()).toMatch(/^Succeeded, but not cleanly\./);
      expect(await outcome.locator('[data-testid="sweep-problem-unrented"]').innerText()).toMatch(/No machine could be rented for RTX 4090[\s\S]*Next: Raise the highest price per machine/);
      expect(await ownPage.locator('[data-testid="sweep-asked-judge"]').innerText()).toMatch(/^qwen2\.5:7b decides each answer/);
      expect(await ownPage.locator('[data-testid="sweep-asked-constraints"]').innerText()).toBe('accuracy ≥ 50 % · ≤ $0.05 per correct answer');
      await shootBothThemes(ownPage, 'sweeps-not-clean');
      await go(ownPage, '/sweeps');
      expect(await ownPage.locator(`[data-testid="sweep-not-clean-${String(created.body.sweep_id)}"]`).innerText()).toMatch(/not clean/);
    } finally {
      await own.close();
    }
  });

  it('a serving sweep: the heat map of $ per million output tokens, ranked by it', async () => {
    // A server of its own: benchdesk keeps offer searches under Vast.ai's limit of about ten a minute per key (a sweep
    // needs one to plan and one per machine it rents), and the form and the sweep above have used this minute's.
    const own = await startUiServer({ vast: true, ollama: { models: DEFAULT_FAKE_MODELS }, extra: { sweepTuning: { runner: jobs.runner } } });
    try {
      await servingSweep(own, (await openApp(browser, own)).page);
    } finally {
      await own.close();
    }
  });

  it('a job the sweep ran says it ran on the sweep’s machine, billed to the sweep, and links there', async () => {
    // The real job kinds this time (no held runner): one serving job on one rented machine of the fake marketplace.
    const own = await startUiServer({ vast: true, ollama: { models: DEFAULT_FAKE_MODELS, knobs: { serving: { firstTokenMs: 20, tokenIntervalMs: 2, parallel: 2 } } } });
    try {
      mustVast(own.h).setKnob('pollsPerPhase', { scheduling: 0, created: 0, loading: 0 });
      const created = await apiCall(own, 'POST', '/v1/sweeps', {
        name: 'One GPU, one model',
        models: ['llama3.1:8b'],
        gpus: ['RTX 3090'],
        serving: { concurrency: [1], requests_per_level: 2, prompt_tokens: 32, output_tokens: 8 },
        template_hash: OLLAMA_TEMPLATE_HASH,
        max_dph: 1,
        max_total_cost_usd: 5,
      });
      expect(created.status).toBe(202);
      const url = `/v1/sweeps/${String(created.body.sweep_id)}`;
      await expect.poll(async () => String((await apiCall(own, 'GET', url)).body.status), { timeout: 60_000 }).toBe('succeeded');
      const cells = (await apiCall(own, 'GET', url)).body.cells as { job_ids: string[] }[];
      const jobId = cells[0]?.job_ids[0];
      expect(jobId).toBeTruthy();
      const ownPage = (await openApp(browser, own)).page;
      await go(ownPage, `/jobs/${encodeURIComponent(String(jobId))}`);
      const fact = ownPage.locator('[data-testid="job-sweep-machine"]');
      await fact.waitFor();
      expect(await fact.innerText()).toMatch(/RTX 3090 machine of sweep “One GPU, one model” at \$0\.\d+\/h · billed to the sweep/);
      expect(await ownPage.locator('[data-testid="job-no-machine"]').count()).toBe(0);
      // Its tokens are priced at the sweep machine's rate, not called unpriced as on an existing backend.
      const best = await ownPage.locator('[data-testid="serving-best"]').innerText();
      expect(best).toMatch(/Per 1M output tokens\s+\$[\d.]+\s+at the fastest level, on the sweep's RTX 3090 at \$0\.\d+\/h/);
      expect(best).not.toContain('not priced');
      await shootBothThemes(ownPage, 'job-of-sweep');
      await fact.getByRole('link').click();
      await ownPage.locator('[data-testid="sweep-detail"][data-status="succeeded"]').waitFor();
    } finally {
      await own.close();
    }
  });

  it('a sweep that ends before the live feed listens is shown ended once it does (what was read before is read again)', async () => {
    const own = await startUiServer({ vast: true, ollama: { models: DEFAULT_FAKE_MODELS }, extra: { sweepTuning: { runner: jobs.runner } } });
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      const created = await apiCall(own, 'POST', '/v1/sweeps', {
        name: 'Ends unheard',
        models: ['llama3.1:8b'],
        gpus: ['RTX 3090'],
        serving: { concurrency: [1], requests_per_level: 2 },
        template_hash: OLLAMA_TEMPLATE_HASH,
        max_dph: 1,
        max_total_cost_usd: 5,
      });
      expect(created.status).toBe(202);
      const before = jobs.jobs.length;
      // The feed's connection is held back: the page reads the sweep while the feed cannot hear anything yet.
      let letFeedThrough: () => void = () => undefined;
      const feedHeld = new Promise<void>((resolve) => (letFeedThrough = resolve));
      await context.route(/\/v1\/events(\?|$)/, async (route) => {
        await feedHeld;
        await route.continue();
      });
      const page = await context.newPage();
      await page.goto(`${own.baseUrl}/ui/#token=${own.token}`);
      await page.locator('[data-testid="app-ready"]').waitFor();
      await expect.poll(() => jobs.jobs.length, { timeout: 20_000 }).toBe(before + 1);
      await go(page, `/sweeps/${String(created.body.sweep_id)}`);
      await page.locator('[data-testid="sweep-detail"][data-status="running"]').waitFor();
      jobs.jobs[before]?.finish();
      const url = `/v1/sweeps/${String(created.body.sweep_id)}`;
      await expect.poll(async () => String((await apiCall(own, 'GET', url)).body.status), { timeout: 20_000 }).toBe('succeeded');
      // Nothing polls: unheard, the page still shows what it read.
      await page.waitForTimeout(500);
      expect(await page.locator('[data-testid="sweep-detail"]').getAttribute('data-status')).toBe('running');
      letFeedThrough();
      await page.locator('[data-testid="sweep-detail"][data-status="succeeded"]').waitFor({ timeout: 10_000 });
    } finally {
      await context.close();
      await own.close();
    }
  });
});

async function servingSweep(server: UiServer, page: Page): Promise<void> {
  const created = await apiCall(server, 'POST', '/v1/sweeps', {
    name: 'Serving cost per GPU',
    models: ['llama3.1:8b', 'qwen2.5:7b'],
    gpus: ['RTX 3090', 'RTX 4090'],
    serving: { concurrency: [1, 8], requests_per_level: 16 },
    template_hash: OLLAMA_TEMPLATE_HASH,
    max_dph: 1,
    max_total_cost_usd: 5,
    machines_at_once: 2,
  });
  expect(created.status).toBe(202);
  const before = jobs.jobs.length;
  await go(page, `/sweeps/${String(created.body.sweep_id)}`);
  for (let n = before + 1; n <= before + 4; n++) {
    await expect.poll(() => jobs.jobs.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(n);
    jobs.jobs[n - 1]?.finish();
  }
  // The server's account first (a failure names the cells and machines), then the page's.
  const sweepUrl = `/v1/sweeps/${String(created.body.sweep_id)}`;
  const serverAccount = async () => {
    const s = (await apiCall(server, 'GET', sweepUrl)).body;
    return `${String(s.status)} ${JSON.stringify(s.cells)} ${JSON.stringify(s.machines)}`;
  };
  await expect.poll(serverAccount, { timeout: 20_000 }).toMatch(/^succeeded /);
  await page.locator('[data-testid="sweep-detail"][data-status="succeeded"]').waitFor({ timeout: 20_000 });
  expect(await page.locator('[data-testid="metric-usd"]').getAttribute('aria-checked')).toBe('true');
  expect(await page.locator('[data-testid="sweep-cell-0"]').innerText()).toMatch(/\$[\d.]+ \/1M/);
  expect(await page.locator('[data-testid="sweep-ranked"] thead').innerText()).toContain('$ / 1M output tokens');
  await shootBothThemes(page, 'sweeps-serving');
}
