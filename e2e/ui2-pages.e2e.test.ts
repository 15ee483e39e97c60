import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiTokenResponseSchema, SettingsResponseSchema, type JobRecord } from '../shared';
import { formatUsd } from '../src-renderer/lib/format';
import { VastClient } from '../src-main/marketplace/vast-client';
import { SettingsStore } from '../src-main/app/settings';
import { FAKE_VAST_KEY, OLLAMA_TEMPLATE_HASH } from '../test/fakes/vast';
import { DOC_SHOTS, SCREENSHOTS, ensureDir, gotoRoute, launchBrowser, openApp, startWorld, type World } from './ui2-fixture';

/**
 * Browser mode, the pages users come back to: Overview figures against the jobs that ran, Models
 * (catalog and a backend), Compare with two finished benchmarks and its exports parsed back, and
 * the Settings round trip with token rotation (the old token gets 401, the new one works).
 */

/** The README's pictures: the top of each page, small enough to commit (< 150 KB each). */
const DOC_CLIP = { x: 0, y: 0, width: 1200, height: 760 };

let world: World;
let browser: Browser;
let page: Page;
let errors: string[];

beforeAll(async () => {
  world = await startWorld();
  browser = await launchBrowser();
  ({ page, errors } = await openApp(browser, world));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await world?.close();
});

function benchCost(job: JobRecord): number {
  return job.kind === 'benchmark' && job.result ? job.result.cost.cost_usd : 0;
}

/** Parses RFC 4180 CSV (quoted fields with "" escapes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(ensureDir(SCREENSHOTS), `${name}.png`), fullPage: true });
}

describe('the jobs the pages show', () => {
  it('ran as planned: two benchmarks succeeded (one on a rented GPU), one job failed', () => {
    const { rented, existing, failed } = world.jobs;
    expect(rented.status, rented.error ?? '').toBe('succeeded');
    expect(existing.status, existing.error ?? '').toBe('succeeded');
    expect(failed.status).toBe('failed');
    expect(benchCost(rented)).toBeGreaterThan(0);
    if (rented.kind !== 'benchmark' || !rented.result) throw new Error('not a benchmark');
    expect(rented.result.instance?.gpu_name).toBeTruthy();
  });
});

describe('Overview', () => {
  it('shows the figures of the jobs that ran: counts, spend, and the failure with its reason', async () => {
    await gotoRoute(page, world, '/', 'page-overview');
    const today = world.jobs.rented.kind === 'benchmark' ? benchCost(world.jobs.rented) + benchCost(world.jobs.existing) : 0;
    await expectText(page.getByTestId('stat-spend-today'), formatUsd(today));
    await expectText(page.getByTestId('stat-spend-month'), formatUsd(today));
    await expectText(page.getByTestId('stat-running'), '0');
    await expectText(page.getByTestId('stat-queued'), '0');
    await expectText(page.getByTestId('stat-total'), '3');
    // The server's own figure agrees with the jobs' recorded cost.
    const spend = (await world.call('GET', '/v1/spend')).body as { today: { cost_usd: number; jobs: number } };
    expect(spend.today.cost_usd).toBeCloseTo(today, 4);
    expect(spend.today.jobs).toBe(1);

    const failures = page.getByTestId('overview-failures');
    await failures.waitFor();
    const failedText = await failures.innerText();
    expect(failedText).toContain(world.jobs.failed.job_id.slice(0, 12));
    expect(failedText).toContain((world.jobs.failed.error ?? '').slice(0, 40));
    await expectText(page.getByTestId('overview-api-url'), world.baseUrl);
    await expectText(page.getByTestId('overview-api-state'), 'ok');
    await shot('ui2-overview-light');
  });

  it('shows an orphaned machine in a banner and releases it with one click', async () => {
    // A machine labelled by this install (its data dir's install id) for a job it never knew: orphaned from the start.
    const client = new VastClient({ baseUrl: world.vast.url, apiKey: FAKE_VAST_KEY });
    const offer = (await client.searchOffers({ maxDph: 1 }))[0];
    if (!offer) throw new Error('the fake marketplace has no offer left');
    const installId = new SettingsStore(world.dataDir).read().install_id ?? '';
    const { instanceId } = await client.rentOffer(offer.id, { templateHashId: OLLAMA_TEMPLATE_HASH, diskGb: 16, label: `benchdesk:${installId}:ghost-job-1`, env: {} });
    const listed = await world.call('GET', '/v1/marketplace/instances');
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(JSON.stringify(listed.body)).toContain('"orphaned"');
    await gotoRoute(page, world, '/', 'page-overview');
    // Already on the Overview: reload so it asks the marketplace now, not at its next 30 s refresh.
    await page.reload();
    const banner = page.getByTestId('orphan-banner');
    await banner.waitFor({ timeout: 15_000 });
    expect(await banner.innerText()).toContain(String(instanceId));
    await expectText(page.getByTestId('stat-machines'), '1');
    // The README's Overview pictures: the dashboard with a machine to release, in both themes.
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.waitForTimeout(200);
      await shot(`ui2-overview-orphan-${scheme}`);
      await page.screenshot({ path: path.join(ensureDir(DOC_SHOTS), `overview-${scheme}.png`), clip: DOC_CLIP });
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByTestId(`orphan-release-${instanceId}`).click();
    // The confirmation names the machine, its rate and its cost so far.
    const dialog = page.locator('[data-testid="release-confirm"][open]');
    await dialog.waitFor();
    expect(await dialog.getByTestId('release-facts').innerText()).toContain(`#${instanceId}`);
    await dialog.getByTestId('confirm-ok').click();
    await page.getByTestId('orphan-released').waitFor({ timeout: 15_000 });
    await banner.waitFor({ state: 'detached' });
    const destroyed = world.vast.calls.filter((c) => c.endpoint === 'destroy' && c.path.includes(String(instanceId)));
    expect(destroyed.length).toBeGreaterThanOrEqual(1);
    expect(await client.showInstance(instanceId)).toBeNull();
  });
});

describe('Models', () => {
  it('filters the marketplace catalog', async () => {
    await gotoRoute(page, world, '/models', 'page-models');
    const table = page.getByTestId('catalog-table');
    await table.waitFor();
    const all = await table.locator('tbody tr').count();
    expect(all).toBeGreaterThan(3);
    await page.getByTestId('catalog-filter').fill('qwen');
    const shown = await table.locator('tbody tr').allInnerTexts();
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThan(all);
    // The filter matches the name, the family or the notes.
    for (const row of shown) expect(row.toLowerCase()).toContain('qwen');
    await page.getByTestId('catalog-filter').fill('');
    await page.getByTestId('catalog-family').selectOption('llama');
    for (const row of await table.locator('tbody tr').allInnerTexts()) expect(row).toContain('llama');
    await page.getByTestId('catalog-family').selectOption('');
    await page.getByTestId('catalog-filter').fill('');
  });

  it("lists a backend's models, marks the running ones with VRAM and expiry, and remembers the URL", async () => {
    await gotoRoute(page, world, '/models', 'page-models');
    await page.getByTestId('backend-url').fill(world.ollama.url);
    await page.getByTestId('backend-list').click();
    const table = page.getByTestId('backend-table');
    await table.waitFor({ timeout: 15_000 });
    const text = await table.innerText();
    expect(text).toContain('llama3.1:8b');
    expect(text).toContain('qwen2.5:7b');
    // The benchmarks warmed models up: they are loaded (VRAM and an unload time shown).
    const running = table.locator('tr', { has: page.getByTestId('model-running') });
    expect(await running.count()).toBeGreaterThan(0);
    const runningRow = await running.first().innerText();
    expect(runningRow).toMatch(/\d+(\.\d)? (GB|MB)/);
    expect(runningRow).toMatch(/in \d+ (minute|second|hour)s?|in a minute|now/);
    await shot('ui2-models-light');
    // Remembered in settings as the default backend.
    const settings = SettingsResponseSchema.parse((await world.call('GET', '/v1/settings')).body);
    expect(settings.settings.default_backend_url).toBe(world.ollama.url);
  });

  it('an unreachable backend shows its URL and how to fix it', async () => {
    await gotoRoute(page, world, '/models', 'page-models');
    await page.getByTestId('backend-url').fill('http://127.0.0.1:9');
    await page.getByTestId('backend-list').click();
    const problem = page.getByTestId('backend-error');
    await problem.waitFor({ timeout: 20_000 });
    const text = await problem.innerText();
    expect(text).toContain('http://127.0.0.1:9');
    expect(text).toContain('ollama serve');
    // Put the working backend back for the screenshots.
    await page.getByTestId('backend-url').fill(world.ollama.url);
    await page.getByTestId('backend-list').click();
    await page.getByTestId('backend-table').waitFor({ timeout: 15_000 });
  });
});

describe('Compare', () => {
  it('shows two finished benchmarks side by side, with both charts and collapsible answers', async () => {
    await gotoRoute(page, world, '/compare', 'page-compare');
    const { rented, existing } = world.jobs;
    await page.getByTestId(`pick-${rented.job_id}`).check();
    await page.getByTestId(`pick-${existing.job_id}`).check();
    const table = page.getByTestId('compare-table');
    await table.waitFor();
    expect(await table.getByTestId('compare-run').count()).toBe(2);
    // The picker numbers the picked runs as the comparison does: run #1 finished first.
    const [first, second] = [rented, existing].sort((a, b) => (a.finished_at ?? '').localeCompare(b.finished_at ?? ''));
    expect(await page.getByTestId(`run-number-${first?.job_id ?? ''}`).innerText()).toBe('#1');
    expect(await page.getByTestId(`run-number-${second?.job_id ?? ''}`).innerText()).toBe('#2');
    expect(await table.getByTestId('compare-run').first().innerText()).toContain('Run #1');
    const text = await table.innerText();
    if (rented.kind !== 'benchmark' || !rented.result || existing.kind !== 'benchmark' || !existing.result) throw new Error('not benchmarks');
    expect(text).toContain(rented.result.instance?.gpu_name ?? 'no gpu');
    expect(text).toContain('existing backend');
    expect(text).toContain(formatUsd(rented.result.cost.cost_usd));
    expect(text).toContain('llama3.1:8b');
    expect(text).toContain('qwen2.5:7b');
    expect(await page.locator('[data-testid="chart-phases"] canvas').count()).toBe(1);
    expect(await page.locator('[data-testid="chart-cost-speed"] canvas').count()).toBe(1);
    const answer = page.getByTestId(`answer-${rented.job_id}`);
    expect(await answer.getAttribute('open')).toBeNull();
    await answer.locator('summary').click();
    expect(await answer.getAttribute('open')).not.toBeNull();
    await shot('ui2-compare-light');
  });

  it('"all runs of one question" picks both (they asked the same question)', async () => {
    await page.getByTestId('mode-question').click();
    expect(await page.getByTestId('compare-table').getByTestId('compare-run').count()).toBe(2);
    await page.getByTestId('mode-pick').click();
  });

  it('exports CSV, Markdown and JSON as downloads that parse back to the runs', async () => {
    const { rented, existing } = world.jobs;
    if (rented.kind !== 'benchmark' || !rented.result || existing.kind !== 'benchmark' || !existing.result) throw new Error('not benchmarks');
    const download = async (format: string): Promise<string> => {
      const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId(`export-${format}`).click()]);
      expect(file.suggestedFilename()).toMatch(new RegExp(`^benchdesk-compare-.*\\.${format}$`));
      const p = await file.path();
      return readFile(p, 'utf8');
    };
    // JSON
    const json = JSON.parse(await download('json')) as { runs: Record<string, unknown>[] };
    expect(json.runs.map((r) => r.job_id).sort()).toEqual([rented.job_id, existing.job_id].sort());
    const rentedRun = json.runs.find((r) => r.job_id === rented.job_id);
    expect(rentedRun).toMatchObject({
      model: 'llama3.1:8b',
      gpu_name: rented.result.instance?.gpu_name,
      num_gpus: rented.result.instance?.num_gpus,
      dph_total_usd_per_h: rented.result.cost.dph_total,
      cost_usd: rented.result.cost.cost_usd,
      tokens_per_second: rented.result.metadata.tokens_per_second,
      prompt_tokens: rented.result.metadata.prompt_tokens,
      completion_tokens: rented.result.metadata.completion_tokens,
      steps: rented.result.metadata.steps,
      tool_calls: rented.result.metadata.tool_calls,
      answer: rented.result.answer,
      analysis_ms: rented.result.phases.find((p) => p.name === 'analysis')?.duration_ms,
    });
    // CSV
    const csv = parseCsv(await download('csv'));
    const [header, ...rows] = csv;
    expect(header).toContain('cost_usd');
    expect(rows).toHaveLength(2);
    const col = (name: string) => header?.indexOf(name) ?? -1;
    const csvRented = rows.find((r) => r[col('job_id')] === rented.job_id);
    expect(csvRented?.[col('model')]).toBe('llama3.1:8b');
    expect(Number(csvRented?.[col('cost_usd')])).toBe(rented.result.cost.cost_usd);
    expect(csvRented?.[col('answer')]).toBe(rented.result.answer);
    expect(Number(csvRented?.[col('tokens_per_second')])).toBe(rented.result.metadata.tokens_per_second);
    // Markdown: a table whose rows carry both runs, then each answer.
    const md = await download('md');
    const tableLines = md.split('\n').filter((l) => l.startsWith('| '));
    expect(tableLines).toHaveLength(4); // header, separator, two runs
    const mdHeader = tableLines[0]?.split(' | ').map((c) => c.replace(/^\| |\s\|$/g, '').trim()) ?? [];
    const mdRented = tableLines.find((l) => l.includes(rented.job_id))?.split(' | ').map((c) => c.replace(/^\| |\s\|$/g, '').trim()) ?? [];
    expect(mdRented[mdHeader.indexOf('cost_usd')]).toBe(String(rented.result.cost.cost_usd));
    expect(mdRented[mdHeader.indexOf('model')]).toBe('llama3.1:8b');
    expect(md).toContain(`### ${existing.job_id} (qwen2.5:7b)`);
  });
});

describe('Settings', () => {
  it('round trip: change defaults and spend limits, save, and read them back after a reload and from the API', async () => {
    await gotoRoute(page, world, '/settings', 'page-settings');
    await page.getByTestId('settings-form').waitFor();
    expect(await page.getByTestId('settings-data-dir').innerText()).toBe(world.dataDir);
    expect(await page.getByTestId('marketplace-env-note').innerText()).toContain('VAST_API_KEY');
    await page.getByTestId('set-concurrency').fill('2');
    await page.getByTestId('set-agent').and(page.locator('[data-state="ready"]')).selectOption('builtin');
    await page.getByTestId('set-max-cost').fill('2.5');
    await page.getByTestId('set-threshold').fill('1');
    await page.getByTestId('settings-save').click();
    await expectText(page.getByTestId('settings-saved'), 'Saved:');
    // A value the schema refuses shows inline and is not saved.
    await page.getByTestId('set-concurrency').fill('0');
    await page.getByTestId('settings-save').click();
    await page.locator('[data-testid="field-concurrency"] .field-error[role="alert"]').waitFor();
    await page.reload();
    await page.getByTestId('settings-form').waitFor();
    expect(await page.getByTestId('set-concurrency').inputValue()).toBe('2');
    expect(await page.getByTestId('set-max-cost').inputValue()).toBe('2.5');
    const api = SettingsResponseSchema.parse((await world.call('GET', '/v1/settings')).body);
    expect(api.settings).toMatchObject({ concurrency: 2, default_agent: 'builtin', default_max_cost_usd: 2.5, spend_confirm_threshold_usd: 1 });
    // Every change that applies at once says so.
    expect(await page.getByTestId('effect-concurrency').innerText()).toBe('applies at once');
  });

  it('tests the marketplace key against the marketplace', async () => {
    await page.getByTestId('marketplace-test').click();
    const result = page.getByTestId('marketplace-test-result');
    await result.waitFor({ timeout: 15_000 });
    expect(await result.innerText()).toContain('accepted the key');
    expect(world.vast.calls.some((c) => c.endpoint === 'user')).toBe(true);
    await shot('ui2-settings-light');
  });

  it('shows the token only when asked, and rotation takes effect at once: old token 401, new one works, file 0600', async () => {
    const old = world.token;
    expect(await page.getByTestId('token-value').innerText()).not.toContain(old);
    await page.getByTestId('token-show').click();
    await expectText(page.getByTestId('token-value'), old);
    await page.getByTestId('token-rotate').click();
    // In browser mode the tab goes on with the new token, without a reload.
    await page.evaluate('window.__beforeRotation = true');
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('token-rotated').waitFor({ timeout: 10_000 });
    expect(await page.evaluate('window.__beforeRotation')).toBe(true);
    const file = path.join(world.dataDir, 'api-token');
    const next = (await readFile(file, 'utf8')).trim();
    expect(next).not.toBe(old);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await world.call('GET', '/v1/jobs', undefined, old)).status).toBe(401);
    expect((await world.call('GET', '/v1/jobs', undefined, next)).status).toBe(200);
    world.token = next;
    // The page works with the new token: no sign-in screen, the settings still there.
    await page.getByTestId('settings-form').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('sign-in').count()).toBe(0);
    // Shown after the rotation: the new one.
    await expectText(page.getByTestId('token-value'), next);
    const shown = ApiTokenResponseSchema.parse((await world.call('GET', '/v1/settings/api-token')).body);
    expect(shown.token).toBe(next);
    await page.getByTestId('token-show').click();
  });
});

describe('screenshots of every page in both themes', () => {
  it('saves them (git-ignored screenshots/, small copies under docs/screenshots/), with no console errors', async () => {
    const routes = [
      ['/', 'page-overview', 'overview'],
      ['/models', 'page-models', 'models'],
      ['/compare', 'page-compare', 'compare'],
      ['/settings', 'page-settings', 'settings'],
      ['/estimate', 'page-estimate', 'estimate'],
      ['/launch', 'page-launch', 'launch'],
      ['/jobs', 'page-jobs', 'jobs'],
      [`/jobs/${encodeURIComponent(world.jobs.rented.job_id)}`, 'page-job', 'job-detail'],
      ['/snapshots', 'page-snapshots', 'snapshots'],
      ['/snapshots/starter-crashloop-db-password', 'snapshot-page', 'snapshot'],
    ] as const;
    // The pictures README.md and docs/desktop.md show of the pages added above (the first four: both themes).
    const docPictures = new Set(['estimate-light', 'estimate-dark', 'launch-light', 'jobs-dark', 'job-detail-dark', 'snapshots-light', 'snapshot-dark']);
    for (const dark of [false, true]) {
      const { page: p, errors: errs } = await openApp(browser, world, { dark });
      for (const [route, testId, name] of routes) {
        await gotoRoute(p, world, route, testId);
        if (name === 'compare') {
          await p.getByTestId(`pick-${world.jobs.rented.job_id}`).check();
          await p.getByTestId(`pick-${world.jobs.existing.job_id}`).check();
          await p.locator('[data-testid="chart-cost-speed"] canvas').waitFor();
        }
        if (name === 'models') await p.getByTestId('backend-table').waitFor({ timeout: 15_000 });
        if (name === 'overview') await p.getByTestId('overview-failures').waitFor();
        if (name === 'estimate') {
          await p.getByTestId('estimate-model').selectOption('llama3.1:8b');
          await p.getByTestId('estimate-max').fill('2');
          await p.locator('[data-testid="estimate-result"][data-basis="live_offers"][data-settled="true"]').waitFor({ timeout: 15_000 });
          await p.locator('[data-testid="chart-offers"] canvas').waitFor();
        }
        if (name === 'jobs') await p.getByTestId('job-row').first().waitFor({ timeout: 15_000 });
        if (name === 'job-detail') await p.locator('[data-testid="event-log"][data-stream-state="ended"]').waitFor({ timeout: 15_000 });
        if (name === 'snapshots') await p.getByTestId('snapshots-table').waitFor({ timeout: 15_000 });
        if (name === 'snapshot') await p.getByTestId('snapshot-pods').waitFor({ timeout: 15_000 });
        await p.waitForTimeout(300);
        const theme = dark ? 'dark' : 'light';
        await p.screenshot({ path: path.join(ensureDir(SCREENSHOTS), `ui2-${name}-${theme}.png`), fullPage: true });
        // Settings is dense text: a shorter picture keeps it under the size budget. Compare is shown from its table
        // down, so the charts are in the picture.
        let clip = name === 'settings' ? { ...DOC_CLIP, height: 600 } : DOC_CLIP;
        if (name === 'compare') {
          // The last rows of the table (speed, tokens, cost), then both charts.
          const box = await p.locator('.compare-charts').boundingBox();
          if (box) clip = { ...DOC_CLIP, y: Math.max(0, box.y - 234), height: 604 };
        }
        const firstFour = name === 'models' || name === 'compare' || name === 'settings';
        if (firstFour || docPictures.has(`${name}-${theme}`)) await p.screenshot({ path: path.join(ensureDir(DOC_SHOTS), `${name}-${theme}.png`), clip, fullPage: true });
      }
      expect(errs).toEqual([]);
      await p.context().close();
    }
    // The first page saw the errors the tests provoked (unreachable backend 502, invalid setting 422, old token 401), nothing else.
    expect(errors.filter((e) => !/status of (401|422|502)/.test(e))).toEqual([]);
  });
});

async function expectText(locator: ReturnType<Page['getByTestId']>, expected: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const last = await locator.innerText().catch(() => '');
    if (last.includes(expected)) return;
    if (Date.now() > deadline) {
      const around = await locator.locator('xpath=ancestor::section[1]').innerText().catch(() => '');
      throw new Error(`expected "${expected}" in ${locator.toString()}, got "${last}"; around it: ${around}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
