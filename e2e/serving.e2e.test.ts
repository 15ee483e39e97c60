import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTerminal, JobRecordSchema, type JobRecord } from '../shared';
import { DEFAULT_FAKE_MODELS } from '../test/fakes/ollama';
import { startFakeOpenAi, type FakeOpenAi } from '../test/fakes/openai';
import { mustVast } from '../test/workflows/harness';
import { apiCall, go, launchBrowser, openApp, shootBothThemes, startUiServer, type UiServer } from './ui-support';

/**
 * The serving benchmark in the browser against the real product and the fakes (the fake Ollama's
 * serving mode, two requests served at once so throughput flattens, and the fake marketplace):
 * the Launch kind with its pre-flight, a rented run launched from it, and its job page filling in
 * level by level, with its charts, the table of every level and the price per million tokens; and
 * a run on an OpenAI-compatible server (the fake vLLM) at request rates, with SLOs, goodput and the
 * warning of a model that stops early.
 */

const MODEL = 'llama3.1:8b';
let server: UiServer;
let vllm: FakeOpenAi;
let browser: Browser;
let page: Page;
let errors: string[];

/** axe-core on the page as it is now: no serious or critical violation. */
async function expectAccessible(what: string): Promise<void> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const blocking = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(blocking, what).toEqual([]);
}

async function getJob(id: string): Promise<JobRecord> {
  const res = await apiCall(server, 'GET', `/v1/jobs/${encodeURIComponent(id)}`);
  expect(res.status).toBe(200);
  return JobRecordSchema.parse(res.body);
}

async function waitForEnd(id: string, timeoutMs = 60_000): Promise<JobRecord> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await getJob(id);
    if (isTerminal(job.status)) return job;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${job.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  server = await startUiServer({
    vast: true,
    ollama: { models: DEFAULT_FAKE_MODELS, knobs: { serving: { firstTokenMs: 80, tokenIntervalMs: 6, parallel: 2 } } },
  });
  mustVast(server.h).setKnob('pollsPerPhase', { scheduling: 0, created: 0, loading: 0 });
  await apiCall(server, 'POST', '/v1/settings', { spend_confirm_threshold_usd: 0 });
  vllm = await startFakeOpenAi({ knobs: { serving: { firstTokenMs: 60, tokenIntervalMs: 4, parallel: 4, stopAfterTokens: 16 } } });
  browser = await launchBrowser();
  ({ page, errors } = await openApp(browser, server));
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await vllm?.close();
});

describe('serving benchmark in the browser', () => {
  it('Launch → Serving: the load fields and a pre-flight of requests, tokens, time and cost', async () => {
    await go(page, '/launch');
    await page.getByTestId('launch-kind-serving-benchmark').click();
    await page.getByTestId('launch-form').waitFor();
    // An agent's fields are not a serving run's.
    expect(await page.getByTestId('launch-question').count()).toBe(0);
    await page.getByTestId('launch-model').selectOption(MODEL);
    await page.getByTestId('launch-concurrency').fill('1, 2, 4, 8');
    await page.getByTestId('launch-requests_per_level').fill('8');
    await page.getByTestId('launch-prompt_tokens').fill('64');
    await page.getByTestId('launch-output_tokens').fill('24');
    await page.getByTestId('launch-warmup_requests').fill('1');
    const preflight = page.getByTestId('serving-preflight');
    // 4 levels × (8 + 1) requests, 24 tokens each.
    await expect.poll(() => preflight.innerText()).toContain('36');
    expect(await preflight.innerText()).toContain('864');
    expect(await page.getByTestId('serving-preflight-cost').innerText()).toContain('nothing is rented');

    // A level below 1 is refused in the form's words, before anything is sent.
    await page.getByTestId('launch-concurrency').fill('0, 2');
    await page.getByTestId('launch-concurrency').blur();
    const fieldError = page.locator('.field', { has: page.getByTestId('launch-concurrency') }).locator('.field-error');
    await expect.poll(() => fieldError.innerText()).toBe('Concurrency levels must be at least 1');
    await page.getByTestId('launch-concurrency').fill('1, 2, 4, 8');

    // Rate levels, SLOs and the backend API: their fields, and the pre-flight follows them.
    await page.getByTestId('launch-level-rate').click();
    await page.getByTestId('launch-request_rate').fill('2, 8, inf');
    await page.getByTestId('launch-max_concurrency').fill('16');
    await page.getByTestId('launch-slo_ttft_ms').fill('500');
    await page.getByTestId('launch-slo_tpot_ms').fill('50');
    await page.getByTestId('launch-dataset_kind').selectOption('shipped');
    await page.getByTestId('launch-backend_api').selectOption('openai');
    await page.getByTestId('launch-backend_api_key').waitFor();
    // 3 levels × (8 + 1) requests.
    await expect.poll(() => preflight.innerText()).toContain('27');
    await shootBothThemes(page, 'launch-serving-rate');
    await expectAccessible('the Serving launch form with rate levels and SLOs');
    await page.getByTestId('launch-level-concurrency').click();
    await page.getByTestId('launch-dataset_kind').selectOption('random');
    await page.getByTestId('launch-slo_ttft_ms').fill('');
    await page.getByTestId('launch-slo_tpot_ms').fill('');

    await page.getByTestId('target-marketplace').click();
    // The rented machine runs Ollama unless vLLM is chosen: the API picked for an existing server does not carry over.
    expect(await page.getByTestId('rented-server-ollama').getAttribute('aria-checked')).toBe('true');
    await page.getByTestId('rented-server-vllm').click();
    expect(await page.getByTestId('template-field').count()).toBe(0);
    await page.getByTestId('rented-server-ollama').click();
    await page.getByTestId('launch-max_dph').fill('0.5');
    await expect.poll(() => page.getByTestId('serving-preflight-cost').innerText(), { timeout: 15_000 }).toMatch(/\$\d/);
    expect(await page.getByTestId('launch-hours').count()).toBe(0);
    await shootBothThemes(page, 'launch-serving');
    await expectAccessible('the Serving launch form');
  }, 60_000);

  it('launches a rented run; the job page fills in level by level and prices a million tokens', async () => {
    const vast = mustVast(server.h);
    const rentsBefore = vast.callsTo('asks').length;
    await page.getByTestId('launch-submit').click();
    const dialog = page.locator('[data-testid="spend-confirm"][open]');
    await dialog.waitFor({ timeout: 20_000 });
    await dialog.getByTestId('confirm-ok').click();
    await page.waitForURL(/#\/jobs\/[^/]+$/, { timeout: 20_000 });
    const jobId = decodeURIComponent(new URL(page.url()).hash.replace('#/jobs/', ''));

    // Every level has its row from the first render: the table does not grow while the run streams in.
    const table = page.getByTestId('serving-levels');
    await table.waitFor({ timeout: 20_000 });
    expect(await table.locator('tbody tr').count()).toBe(4);
    await page.locator('[data-testid="serving-levels"] tr[data-level="1"][data-state="done"]').waitFor({ timeout: 30_000 });
    // Mid-run (the later levels still to come): what a user watches; the job's end is awaited below.
    await shootBothThemes(page, 'job-serving-live', 100);
    const job = await waitForEnd(jobId);
    expect(job.status, job.error ?? '').toBe('succeeded');
    expect(vast.callsTo('asks').length).toBe(rentsBefore + 1);
    expect(job.kind === 'serving-benchmark' && job.result?.instance?.released).toBe(true);
    expect(job.request).toMatchObject({ concurrency: [1, 2, 4, 8], requests_per_level: 8, output_tokens: 24, marketplace: true });

    await page.locator('[data-testid="serving-levels"] tr[data-state="done"]').nth(3).waitFor({ timeout: 15_000 });
    expect(await table.locator('tbody tr').count()).toBe(4);
    const text = await table.innerText();
    for (const head of ['Output tokens/s', 'TTFT p50 · p99 (ms)', 'TPOT p50 · p99 (ms)', 'ITL p50 · p99 (ms)', 'End-to-end p50 · p99 (ms)', 'Mean output tokens', '$ per 1M output tokens']) expect(text).toContain(head);
    expect(text).toMatch(/tok\/s/);
    expect(text).toMatch(/\d+(\.\d)? · \d+(\.\d)?/);
    expect(text).toMatch(/\$\d/);
    const best = await page.getByTestId('serving-best').innerText();
    expect(best).toMatch(/at concurrency \d/);
    expect(best).toMatch(/Cheapest per 1M tokens\s*\$\d/);
    await page.getByTestId('chart-serving-throughput').locator('canvas').waitFor();
    await page.getByTestId('chart-serving-ttft').locator('canvas').waitFor();
    expect(await page.getByTestId('chart-serving-ttft').getAttribute('aria-label')).toMatch(/^Time to first token against concurrency, p50 and p99: 1 → [\d.]+ ms/);
    await page.locator('[data-testid="phase-timeline"] [data-phase="teardown"][data-status="ok"]').waitFor({ timeout: 15_000 });
    await shootBothThemes(page, 'job-serving');
    await expectAccessible('the serving job page');
    expect(errors).toEqual([]);
  }, 90_000);

});

describe('serving runs compared', () => {
  it('Compare puts serving runs side by side', async () => {
    // A second run, on the existing backend, at other levels.
    const res = await apiCall(server, 'POST', '/v1/jobs/serving-benchmark', { backend_url: server.h.ollama.url, model: MODEL, concurrency: [1, 2, 16], requests_per_level: 16, output_tokens: 24, warmup_requests: 0 });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const second = await waitForEnd(String(res.body.job_id));
    expect(second.status, second.error ?? '').toBe('succeeded');

    await go(page, '/compare');
    await page.getByTestId('compare-kind-serving').click();
    const picker = page.getByTestId('compare-serving-picker');
    await picker.waitFor({ timeout: 15_000 });
    const boxes = picker.locator('input[type="checkbox"]');
    expect(await boxes.count()).toBe(2);
    await boxes.nth(0).check();
    await boxes.nth(1).check();
    const table = page.getByTestId('compare-serving-table');
    await table.waitFor();
    const text = await table.innerText();
    expect(text).toMatch(/Run #1[\s\S]*Run #2/);
    expect(text).toContain('RTX 3060');
    expect(text).toContain('existing backend');
    expect(text).toMatch(/\$[\d.]+ at \d+/);
    expect(text).toContain('not rented');
    await page.getByTestId('chart-compare-serving').locator('canvas').waitFor();
    await shootBothThemes(page, 'compare-serving');
    await expectAccessible('Compare with serving runs');
    expect(errors).toEqual([]);
  }, 90_000);

});

describe('serving runs that fail, and OpenAI-compatible engines, in the browser', () => {
  it('a run where the server refuses every request: the page says so, level by level, and what to do', async () => {
    server.h.ollama.setKnobs({ chatFailure: 'queue_full' });
    try {
      const res = await apiCall(server, 'POST', '/v1/jobs/serving-benchmark', { backend_url: server.h.ollama.url, model: MODEL, concurrency: [1, 2], requests_per_level: 2, warmup_requests: 0 });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      const id = String(res.body.job_id);
      const job = await waitForEnd(id);
      expect(job).toMatchObject({ status: 'failed', error_code: 'serving_failed' });
      await go(page, `/jobs/${encodeURIComponent(id)}`);
      const table = page.getByTestId('serving-levels');
      await table.waitFor({ timeout: 15_000 });
      // The first level stops after its first requests all failed; the next is not run at all.
      await page.locator('[data-testid="serving-levels"] tr[data-level="2"][data-state="not-run"]').waitFor({ timeout: 15_000 });
      expect(await table.innerText()).toContain('every request failed');
      expect(await page.getByTestId('serving-warnings').innerText()).toMatch(/stopped early: its first 2 requests all failed/);
      expect(await page.getByTestId('serving-best').innerText()).toContain('no level succeeded');
      expect(await page.locator('body').innerText()).toContain('Every serving request failed');
      await shootBothThemes(page, 'job-serving-failed');
      await expectAccessible('a failed serving run');
    } finally {
      server.h.ollama.setKnobs({ chatFailure: 'none' });
    }
  }, 60_000);

  it('a vLLM-like server at request rates with SLOs: goodput, the SLO lines, the network RTT and the early-stop warning', async () => {
    const res = await apiCall(server, 'POST', '/v1/jobs/serving-benchmark', {
      backend_url: vllm.url,
      model: 'Qwen/Qwen2.5-7B-Instruct',
      request_rate: [4, 16, 'inf'],
      max_concurrency: 16,
      requests_per_level: 24,
      output_tokens: 32,
      ignore_eos: false,
      warmup_requests: 1,
      slo: { ttft_ms: 250, tpot_ms: 10 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const id = String(res.body.job_id);
    const job = await waitForEnd(id);
    expect(job.status, job.error ?? '').toBe('succeeded');
    expect(job.kind === 'serving-benchmark' && job.result?.backend_api).toBe('openai');
    await go(page, `/jobs/${encodeURIComponent(id)}`);
    const table = page.getByTestId('serving-levels');
    await table.waitFor({ timeout: 15_000 });
    const text = await table.innerText();
    for (const head of ['Request rate', 'Goodput req/s (% within SLO)', 'Mean output tokens']) expect(text).toContain(head);
    expect(text).toMatch(/4 req\/s[\s\S]*16 req\/s[\s\S]*all at once/);
    // The model stopped at 16 of the 32 tokens asked: each level says so.
    expect(await page.getByTestId('serving-warnings').innerText()).toMatch(/4 req\/s, 16 req\/s, all at once: 24 of 24 requests stopped before the tokens asked \(mean 16 of 32\)/);
    expect(await page.getByTestId('serving-rtt').innerText()).toMatch(/Network round trip\s*[\d.]+ ms/);
    expect(await page.getByTestId('serving-best').innerText()).toContain('OpenAI-compatible');
    await page.getByTestId('chart-serving-goodput').locator('canvas').waitFor();
    expect(await page.getByTestId('chart-serving-ttft').getAttribute('aria-label')).toMatch(/^Time to first token against request rate, p50 and p99, SLO 250 ms: 4 req\/s → /);
    expect(await page.getByTestId('chart-serving-tpot').getAttribute('aria-label')).toContain('SLO 10 ms');
    await page.getByTestId('serving-export-csv').waitFor();
    await shootBothThemes(page, 'job-serving-openai');
    await expectAccessible('a serving run on an OpenAI-compatible server');
    expect(errors).toEqual([]);
  }, 90_000);

  it('the Models page lists an OpenAI-compatible server’s models, the API detected', async () => {
    await go(page, '/models');
    await page.getByTestId('backend-url').fill(vllm.url);
    expect(await page.getByTestId('models-backend_api').inputValue()).toBe('auto');
    await page.getByTestId('backend-list').click();
    const summary = page.getByTestId('backend-summary');
    await summary.waitFor({ timeout: 15_000 });
    expect(await summary.innerText()).toMatch(/\(OpenAI-compatible\): 1 model, 1 served/);
    const table = await page.getByTestId('backend-table').innerText();
    expect(table).toContain('Qwen/Qwen2.5-7B-Instruct');
    // Its max_model_len, as the context a request may use.
    expect(table).toMatch(/served[\s\S]*4,096/);
    await shootBothThemes(page, 'models-openai');
    await expectAccessible('the Models page on an OpenAI-compatible server');
    expect(errors).toEqual([]);
  }, 30_000);
});
