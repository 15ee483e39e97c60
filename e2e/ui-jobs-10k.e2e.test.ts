import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../test/workflows/harness';
import { seedJobs } from './seed-jobs';
import { go, launchBrowser, openApp, shootBothThemes, startUiServer, type UiServer } from './ui-support';

/**
 * The Jobs page with 10,000 stored jobs: counts, newest first, cursor paging while scrolling,
 * keyboard. Its first render time is printed (Performance API), never asserted: `npm run bench`
 * reports it via e2e/bench-jobs-render.mjs.
 */
const N = 10_000;
let server: UiServer;
let browser: Browser;

beforeAll(async () => {
  const dir = await tempDir('benchdesk-10k-');
  await seedJobs(dir, N);
  server = await startUiServer({ dataDir: dir });
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('Jobs page with 10,000 jobs', () => {
  it('shows the counts, the newest first, pages in more rows while scrolling, and renders only what is visible', async () => {
    const { page, errors, context } = await openApp(browser, server);
    await go(page, '/jobs');
    const list = page.locator('[data-testid="jobs-list"]');
    await list.waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="status-tabs"] [data-tab="all"] .tab-count', { hasText: N.toLocaleString('en-US') }).waitFor({ timeout: 15_000 });
    expect(await page.locator('[data-testid="job-row"]').first().getAttribute('data-job-id')).toBe(`seed-${String(N - 1).padStart(6, '0')}`);
    await shootBothThemes(page, 'jobs-10k', 200);
    // Virtualised: a screenful of rows in the DOM, not 10,000.
    expect(await page.locator('[data-testid="job-row"]').count()).toBeLessThan(80);

    // Keyboard: arrows move between rows; End jumps to the last loaded row, which pages in more
    // rows through the cursor.
    await page.locator('[data-testid="job-row"]').first().focus();
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => page.evaluate<string | undefined>('document.activeElement?.dataset.index')).toBe('1');
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press('End');
      await page.waitForTimeout(400);
    }
    const maxIndex = async () => Math.max(...(await page.locator('[data-testid="job-row"]').evaluateAll((els) => els.map((e) => Number((e as unknown as { dataset: { index?: string } }).dataset.index)))));
    await expect.poll(maxIndex, { timeout: 10_000 }).toBeGreaterThan(250);
    expect(await page.locator('[data-testid="job-row"]').count()).toBeLessThan(80);

    // Filters hit the counts and the list.
    await page.locator('[data-testid="status-tabs"] [data-tab="failed"]').click();
    const failed = Math.ceil(N / 3);
    await page.locator('[data-testid="status-tabs"] [data-tab="failed"] .tab-count', { hasText: failed.toLocaleString('en-US') }).waitFor();
    await page.locator('[data-testid="job-row"] [data-status="failed"]').first().waitFor();
    expect(await page.locator('[data-testid="job-row"] [data-status="succeeded"]').count()).toBe(0);

    const measure = await page.evaluate<number | null>("(performance.getEntriesByName('benchdesk:jobs-first-render')[0] || {}).duration ?? null");
    console.log(JSON.stringify({ jobs_page_first_render_ms_10k: measure }));
    expect(errors).toEqual([]);
    await context.close();
  });
});
