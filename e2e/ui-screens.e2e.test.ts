import { AxeBuilder } from '@axe-core/playwright';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OLLAMA_TEMPLATE_HASH } from '../test/fakes/vast';
import { SCREENSHOTS, ensureDir, gotoRoute, launchBrowser, openApp, startWorld, waitForEnd, type World } from './ui2-fixture';

/**
 * The app as a user meets it, in browser mode against the real headless server and the fakes, with
 * 2,300 jobs in the list: signing in (pasted, or #token= added to an open tab), the Jobs page's
 * search and sort kept in the URL, reading the event log, keyboard and layout, a server that stops
 * and comes back, and screenshots of every page in both themes at 1024, 1440 and 1920 px
 * (screenshots/ui3/, git-ignored).
 */

const SEEDED = 2_300;
const WIDTHS = [
  { width: 1024, height: 768 },
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
] as const;
const SHOTS = path.join(SCREENSHOTS, 'ui3');

let world: World;
let browser: Browser;
let page: Page;
let errors: string[];

beforeAll(async () => {
  world = await startWorld({ seedJobs: SEEDED });
  browser = await launchBrowser();
  ({ page, errors } = await openApp(browser, world));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await world?.close();
});

async function hashOf(p: Page): Promise<string> {
  return decodeURIComponent(await p.evaluate<string>('window.location.hash'));
}

async function activeTestId(p: Page): Promise<string | null> {
  return p.evaluate<string | null>("document.activeElement && (document.activeElement.getAttribute('data-testid') || document.activeElement.id || document.activeElement.tagName)");
}

describe('signing in (browser mode)', () => {
  let context: BrowserContext;
  afterAll(async () => {
    await context?.close();
  });

  it('without a token: one sign-in screen with the hint that fits this server, no page behind it, axe-clean', async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const p = await context.newPage();
    const pageErrors: string[] = [];
    p.on('console', (m) => void (m.type() === 'error' && pageErrors.push(m.text())));
    await p.goto(`${world.baseUrl}/ui/#/jobs`);
    const signIn = p.getByTestId('sign-in');
    await signIn.waitFor({ timeout: 15_000 });
    // The server's tokens: the app's own (an api-token file) only — so no SERVICE_API_TOKENS hint.
    expect(await p.getByTestId('signin-hints').getAttribute('data-sources')).toBe('app_token');
    expect(await p.getByTestId('hint-app-token').innerText()).toContain('api-token');
    // ~ outside quotes: a shell expands it (issue 34 item 11).
    expect(await p.getByTestId('token-file-command').locator('code').innerText()).toBe('cat ~/.config/benchdesk/api-token');
    expect(await p.getByTestId('hint-environment').count()).toBe(0);
    // Nothing else: no pages, no red banners, not one request refused.
    expect(await p.getByTestId('app-ready').count()).toBe(0);
    expect(await p.locator('[role="alert"]').count()).toBe(0);
    const axe = await new AxeBuilder({ page: p }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    for (const scheme of ['light', 'dark'] as const) {
      await p.emulateMedia({ colorScheme: scheme });
      await p.waitForTimeout(150);
      await p.screenshot({ path: path.join(ensureDir(SHOTS), `sign-in-1280-${scheme}.png`), fullPage: true });
    }
    await p.emulateMedia({ colorScheme: 'light' });

    // A wrong token: refused, said so on the same screen.
    await p.getByTestId('signin-token').fill('not-the-token');
    await p.getByTestId('signin-submit').click();
    await p.locator('[data-testid="sign-in"][data-reason="refused"]').waitFor({ timeout: 10_000 });
    expect(await p.getByTestId('signin-problem').innerText()).toContain('did not accept');
    // The right one: the page the address asked for.
    await p.getByTestId('signin-token').fill(world.token);
    await p.getByTestId('signin-submit').click();
    await p.getByTestId('page-jobs').waitFor({ timeout: 15_000 });
    expect(await hashOf(p)).toBe('#/jobs');
    expect(pageErrors.filter((e) => !/status of 401/.test(e))).toEqual([]);
  });

  it('#token= added to a tab that is already open signs it in, keeps the page, and leaves the address bar', async () => {
    const other = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    try {
      const p = await other.newPage();
      await p.goto(`${world.baseUrl}/ui/#/settings`);
      await p.getByTestId('sign-in').waitFor({ timeout: 15_000 });
      // As if typed into the address bar of the open tab.
      await p.evaluate(`window.location.hash = ${JSON.stringify(`token=${world.token}`)}`);
      await p.getByTestId('page-settings').waitFor({ timeout: 15_000 });
      expect(p.url()).not.toContain(world.token);
      expect(await hashOf(p)).toBe('#/settings');
      expect(await p.getByTestId('not-found').count()).toBe(0);
      expect(await p.evaluate("sessionStorage.getItem('benchdesk.apiToken')")).toBe(world.token);
    } finally {
      await other.close();
    }
  });
});

describe('Jobs page with 2,300 jobs', () => {
  it('searches over all jobs, keeps the search and the filters in the URL (reload, Back), and shows failure reasons', async () => {
    await gotoRoute(page, world, '/jobs', 'page-jobs');
    await page.locator('[data-testid="status-tabs"] [data-tab="all"] .tab-count', { hasText: (SEEDED + 3).toLocaleString('en-US') }).waitFor({ timeout: 15_000 });
    const tabBox = await page.locator('[data-testid="status-tabs"] [data-tab="cancelled"]').boundingBox();

    // The failed job of the world sits among 2,300 others; its id finds it at once.
    const failed = world.jobs.failed;
    await page.getByTestId('jobs-search').fill(failed.job_id);
    await expect.poll(() => hashOf(page), { timeout: 10_000 }).toBe(`#/jobs?q=${failed.job_id}`);
    await expect.poll(() => page.getByTestId('job-row').count(), { timeout: 10_000 }).toBe(1);
    const reason = await page.getByTestId('job-row').getByTestId('failure-reason').innerText();
    expect(reason).toContain(failed.error_code ?? 'no code');
    expect(reason).toContain((failed.error ?? '').split('\n')[0]?.slice(0, 30) ?? 'no error');

    // Words of a message, with a status filter: the seeded failures' reason, over every page of them.
    await page.getByTestId('jobs-search').fill('did not answer');
    await page.locator('[data-testid="status-tabs"] [data-tab="failed"]').click();
    const seededFailures = Math.ceil(SEEDED / 3);
    await page.locator('[data-testid="status-tabs"] [data-tab="failed"] .tab-count', { hasText: seededFailures.toLocaleString('en-US') }).waitFor({ timeout: 10_000 });
    await expect.poll(() => hashOf(page)).toBe('#/jobs?status=failed&q=did+not+answer');
    expect(await page.getByTestId('jobs-summary').innerText()).toContain(`${seededFailures.toLocaleString('en-US')} matches`);
    // Choosing another tab never moved this one.
    expect(await page.locator('[data-testid="status-tabs"] [data-tab="cancelled"]').boundingBox()).toEqual(tabBox);

    // Kept across a reload, and restored by Back after opening a job.
    await page.reload();
    await page.getByTestId('job-row').first().waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('jobs-search').inputValue()).toBe('did not answer');
    expect(await page.locator('[data-testid="status-tabs"] [data-tab="failed"]').getAttribute('aria-selected')).toBe('true');
    await page.getByTestId('job-row').first().click();
    await page.getByTestId('page-job').waitFor();
    await page.goBack();
    await page.getByTestId('job-row').first().waitFor();
    expect(await page.getByTestId('jobs-search').inputValue()).toBe('did not answer');
    expect(await hashOf(page)).toBe('#/jobs?status=failed&q=did+not+answer');
  });

  it('sorts by cost and by duration over all jobs, starting the list at the top', async () => {
    await gotoRoute(page, world, '/jobs', 'page-jobs');
    await page.getByTestId('job-row').first().waitFor({ timeout: 15_000 });
    // Scroll down first: a new order starts at its top.
    await page.getByTestId('jobs-list').evaluate((el) => {
      el.scrollTop = 3_000;
    });
    await page.getByTestId('jobs-sort-cost').click();
    await expect.poll(() => hashOf(page)).toBe('#/jobs?sort=-cost');
    expect(await page.getByTestId('jobs-sort-cost').getAttribute('data-sort')).toBe('descending');
    // The benchmark on the 8-GPU machine cost the most of all 2,303 jobs.
    await expect.poll(() => page.getByTestId('job-row').first().getAttribute('data-job-id'), { timeout: 10_000 }).toBe(world.jobs.rented.job_id);
    expect(await page.getByTestId('jobs-list').evaluate((el) => el.scrollTop)).toBe(0);
    await page.getByTestId('jobs-sort-duration').click();
    await expect.poll(() => hashOf(page)).toBe('#/jobs?sort=-duration');
    await page.getByTestId('jobs-sort-duration').click();
    await expect.poll(() => hashOf(page)).toBe('#/jobs?sort=duration');
    expect(await page.getByTestId('jobs-sort-duration').getAttribute('data-sort')).toBe('ascending');
  });
});

describe('the event log', () => {
  it('click or Enter opens an event with its full message and labels; filters by level and text; opening pauses auto-scroll', async () => {
    const job = world.jobs.rented;
    await gotoRoute(page, world, `/jobs/${encodeURIComponent(job.job_id)}`, 'page-job');
    await page.locator('[data-testid="event-log"][data-stream-state="ended"]').waitFor({ timeout: 15_000 });
    const create = page.locator('[data-testid="event-row"][data-event="marketplace.instance.create"]').last();
    await create.getByTestId('event-toggle').click();
    const details = create.getByTestId('event-details');
    await details.waitFor();
    const text = await details.innerText();
    expect(text).toContain('marketplace.instance.create');
    expect(text).toMatch(/instance_id|offer/);
    expect(await create.getByTestId('event-toggle').getAttribute('aria-expanded')).toBe('true');
    // The job has ended: no new events to follow, only the end of the log to go to.
    expect(await page.getByTestId('log-follow').innerText()).toBe('Go to the last event');
    // Keyboard: Enter closes it again, arrows move to the next row, Enter opens that one.
    await create.getByTestId('event-toggle').focus();
    await page.keyboard.press('Enter');
    expect(await create.getByTestId('event-details').count()).toBe(0);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    expect(await page.getByTestId('event-details').count()).toBe(1);

    // Text filter: only the teardown's events.
    await page.getByTestId('log-filter').fill('destroy');
    await expect.poll(async () => (await page.getByTestId('event-row').evaluateAll((els) => els.map((e) => e.getAttribute('data-event')))).every((n) => n === 'marketplace.instance.destroy')).toBe(true);
    expect(await page.getByTestId('event-row').count()).toBeGreaterThan(0);
    await page.getByTestId('log-filter').fill('');
    // Errors only: this run had none.
    await page.getByTestId('log-level-error').click();
    await expect.poll(() => page.getByTestId('event-row').count()).toBe(0);
    expect(await page.getByTestId('event-scroller').innerText()).toContain('No event matches');
    await page.getByTestId('log-level-error').focus();
    await page.keyboard.press('Home');
    expect(await page.getByTestId('log-level-all').getAttribute('aria-checked')).toBe('true');
  });
});

describe('keyboard and layout', () => {
  it('toggle groups take arrow keys; navigation focuses the new page’s heading; a dialog keeps Tab inside', async () => {
    await gotoRoute(page, world, '/', 'page-overview');
    await page.getByTestId('theme-system').focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.getByTestId('theme-light').getAttribute('aria-checked')).toBe('true');
    expect(await activeTestId(page)).toBe('theme-light');
    await page.keyboard.press('ArrowLeft');
    expect(await page.getByTestId('theme-system').getAttribute('aria-checked')).toBe('true');

    await page.getByTestId('nav-compare').click();
    await page.getByTestId('page-compare').waitFor();
    await expect.poll(() => activeTestId(page)).toBe('page-title');
    expect(await page.locator('#page-title').innerText()).toBe('Compare');
    // A job page heading shows only once its data arrived: focus still lands on it.
    await page.getByTestId('nav-jobs').click();
    // A succeeded job: plain Re-run (and its dialog) is offered for those only.
    await page.locator('[data-testid="status-tabs"] [data-tab="succeeded"]').click();
    await page.getByTestId('job-row').first().click();
    await page.getByTestId('page-job').waitFor();
    await expect.poll(() => activeTestId(page)).toBe('page-title');

    await page.getByTestId('rerun').click();
    const dialog = page.getByTestId('rerun-confirm');
    await dialog.waitFor({ state: 'visible' });
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      expect(await page.evaluate("!!document.activeElement?.closest('dialog')")).toBe(true);
    }
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate("!!document.activeElement?.closest('dialog')")).toBe(true);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
  });

  it('uses the width at 1920 px, stat cards fill their row, and the Compare picker fits at 1024 px', async () => {
    const wide = await openApp(browser, world);
    try {
      await wide.page.setViewportSize({ width: 1920, height: 1080 });
      await gotoRoute(wide.page, world, '/', 'page-overview');
      await wide.page.getByTestId('overview-failures').waitFor();
      const content = await wide.page.locator('.page').boundingBox();
      expect(content?.width ?? 0).toBeGreaterThan(1600);
      const stats = await wide.page.getByTestId('overview-stats').boundingBox();
      const cards = await wide.page.locator('[data-testid="overview-stats"] .stat').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().right));
      expect(Math.max(...cards)).toBeCloseTo((stats?.x ?? 0) + (stats?.width ?? 0), 0);

      await wide.page.setViewportSize({ width: 1024, height: 768 });
      await gotoRoute(wide.page, world, '/compare', 'page-compare');
      const picker = wide.page.getByTestId('compare-picker');
      await picker.waitFor();
      const overflow = await wide.page.locator('.picker').evaluate((el) => el.scrollWidth - el.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      expect(await wide.page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBeLessThanOrEqual(0);
    } finally {
      await wide.page.context().close();
    }
  });
});

type Shot = { route: () => string; testId: string; name: string; prepare?: (p: Page) => Promise<void> };

const PAGES: readonly Shot[] = [
  {
    name: 'overview',
    route: () => '/',
    testId: 'page-overview',
    prepare: async (p) => {
      await p.getByTestId('overview-failures').waitFor();
      await expect.poll(() => p.getByTestId('stat-spend-today').innerText(), { timeout: 15_000 }).toMatch(/\$/);
    },
  },
  {
    name: 'estimate',
    route: () => '/estimate',
    testId: 'page-estimate',
    prepare: async (p) => {
      await p.getByTestId('estimate-model').selectOption('llama3.1:8b');
      await p.getByTestId('estimate-max').fill('2');
      await p.locator('[data-testid="estimate-result"][data-basis="live_offers"][data-settled="true"]').waitFor({ timeout: 15_000 });
      await p.locator('[data-testid="chart-offers"] canvas').waitFor();
    },
  },
  { name: 'launch', route: () => '/launch', testId: 'page-launch' },
  { name: 'jobs', route: () => '/jobs', testId: 'page-jobs', prepare: async (p) => void (await p.getByTestId('job-row').first().waitFor({ timeout: 15_000 })) },
  {
    name: 'job',
    route: () => `/jobs/${encodeURIComponent(world.jobs.rented.job_id)}`,
    testId: 'page-job',
    prepare: async (p) => {
      await p.locator('[data-testid="event-log"][data-stream-state="ended"]').waitFor({ timeout: 15_000 });
      await p.locator('[data-testid="event-row"][data-event="marketplace.instance.create"]').last().getByTestId('event-toggle').click();
    },
  },
  {
    // A benchmark on an existing backend: nothing rented, the answer and its speed.
    name: 'job-existing',
    route: () => `/jobs/${encodeURIComponent(world.jobs.existing.job_id)}`,
    testId: 'page-job',
    prepare: async (p) => void (await p.locator('[data-testid="event-log"][data-stream-state="ended"]').waitFor({ timeout: 15_000 })),
  },
  {
    // An llm-instance whose backend did not answer: the failure, its reason and that nothing was rented.
    name: 'job-failed',
    route: () => `/jobs/${encodeURIComponent(world.jobs.failed.job_id)}`,
    testId: 'page-job',
    prepare: async (p) => void (await p.locator('[data-testid="event-log"][data-stream-state="ended"]').waitFor({ timeout: 15_000 })),
  },
  {
    name: 'models',
    route: () => '/models',
    testId: 'page-models',
    prepare: async (p) => {
      await p.getByTestId('backend-url').fill(world.ollama.url);
      await p.getByTestId('backend-list').click();
      await p.getByTestId('backend-table').waitFor({ timeout: 15_000 });
      // Both tables fit their panels at every width (at 1024 px they used to scroll sideways, their last columns cut).
      for (const table of ['backend-table', 'catalog-table']) {
        const hidden = await p.getByTestId(table).evaluate((el) => (el.parentElement ? el.parentElement.scrollWidth - el.parentElement.clientWidth : 0));
        expect(hidden, `${table}: pixels scrolled out of sight at ${p.viewportSize()?.width ?? '?'} px`).toBeLessThanOrEqual(0);
      }
    },
  },
  {
    name: 'compare',
    route: () => '/compare',
    testId: 'page-compare',
    prepare: async (p) => {
      await p.getByTestId(`pick-${world.jobs.rented.job_id}`).check();
      await p.getByTestId(`pick-${world.jobs.existing.job_id}`).check();
      await p.locator('[data-testid="chart-cost-speed"] canvas').waitFor();
    },
  },
  { name: 'settings', route: () => '/settings', testId: 'page-settings', prepare: async (p) => void (await p.getByTestId('settings-form').waitFor()) },
];

describe('screenshots: every page, both themes, 1024 / 1440 / 1920 px', () => {
  it.each(WIDTHS.map((w) => [w.width, w] as const))('at %i px', async (_w, size) => {
    const { page: p, errors: errs } = await openApp(browser, world);
    try {
      await p.setViewportSize(size);
      for (const shot of PAGES) {
        await gotoRoute(p, world, shot.route(), shot.testId);
        await shot.prepare?.(p);
        for (const scheme of ['light', 'dark'] as const) {
          await p.emulateMedia({ colorScheme: scheme });
          await p.waitForTimeout(250);
          await p.screenshot({ path: path.join(ensureDir(SHOTS), `${shot.name}-${size.width}-${scheme}.png`), fullPage: true });
        }
        await p.emulateMedia({ colorScheme: 'light' });
        // Nothing runs off the side of the window.
        expect(await p.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'), `${shot.name} at ${size.width}px`).toBeLessThanOrEqual(0);
      }
      expect(errs).toEqual([]);
    } finally {
      await p.context().close();
    }
  }, 120_000);
});

describe('a server that stops and comes back', () => {
  it('is noticed within seconds (one banner, nothing moves), freezes running costs, and recovers without a reload', async () => {
    // A kept machine: its cost counts up on its job page.
    const res = await world.call('POST', '/v1/jobs/llm-instance', { marketplace: true, template_hash: OLLAMA_TEMPLATE_HASH, model: 'llama3.1:8b', max_dph: 1 });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const id = (res.body as { job_id: string }).job_id;
    expect((await waitForEnd(world, id)).status).toBe('succeeded');
    const { page: p, errors: errs } = await openApp(browser, world);
    try {
      await gotoRoute(p, world, `/jobs/${encodeURIComponent(id)}`, 'page-job');
      const cost = p.getByTestId('running-cost').first();
      await cost.waitFor({ timeout: 15_000 });
      await p.evaluate('window.__sameDocument = true');
      // Where the title sits, not how wide its box is: the box is as wide as the subtitle, whose "created just now"
      // may tick to "created 6 seconds ago" on a slow machine while the test runs.
      const titlePlace = async () => {
        const box = await p.locator('#page-title').boundingBox();
        return box && { x: box.x, y: box.y, height: box.height };
      };
      const titleBefore = await titlePlace();

      const stoppedAt = Date.now();
      await world.server.stop();
      const banner = p.getByTestId('connection-banner');
      await banner.waitFor({ timeout: 10_000 });
      const noticedMs = Date.now() - stoppedAt;
      console.log(JSON.stringify({ stopped_server_noticed_ms: noticedMs }));
      expect(await p.locator('[role="alert"]').count()).toBe(1);
      expect(await titlePlace()).toEqual(titleBefore);
      const frozen = await cost.innerText();
      await p.waitForTimeout(2_500);
      expect(await cost.innerText()).toBe(frozen);
      for (const scheme of ['light', 'dark'] as const) {
        await p.emulateMedia({ colorScheme: scheme });
        await p.waitForTimeout(150);
        await p.screenshot({ path: path.join(ensureDir(SHOTS), `server-stopped-1280-${scheme}.png`) });
      }

      await world.restart();
      await banner.waitFor({ state: 'detached', timeout: 20_000 });
      // The same document (no reload), and the cost counts again.
      expect(await p.evaluate('window.__sameDocument')).toBe(true);
      await expect.poll(() => cost.innerText(), { timeout: 10_000 }).not.toBe(frozen);
      expect(errs.filter((e) => !/ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE|net::|Failed to fetch|status of 50\d/.test(e))).toEqual([]);
    } finally {
      await p.context().close();
    }
  }, 90_000);
});

describe('console', () => {
  it('the main tab saw no errors beyond those the tests provoked (a wrong token, the stopped server)', () => {
    expect(errors.filter((e) => !/status of (401|404)|ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE/.test(e))).toEqual([]);
  });
});
