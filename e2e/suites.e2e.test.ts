import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../shared';
import { starterSuite } from '../src-main/suites/starter';
import type { ChatTurn } from '../test/fakes/ollama';
import { OLLAMA_TEMPLATE_HASH } from '../test/fakes/vast';
import { mustK8s } from '../test/workflows/harness';
import { apiCall, go, launchBrowser, openApp, shootBothThemes, shootElementBothThemes, startUiServer, type UiPage, type UiServer } from './ui-support';

/**
 * The Suites page and a suite run in the browser, against the real server and the fakes: the
 * starter suite is listed, a scenario's snapshot browsable, a cluster recorded, and a run of
 * three scenarios shows its scored rows and summary tiles. Screenshots of both themes land in
 * screenshots/ (git-ignored).
 */

const starter = starterSuite().suite;
const questionOf = (id: string) => starter.scenarios.find((s) => s.scenario_id === id)?.question ?? '';
const CRASH = 'The orders-api pods are in CrashLoopBackOff: their previous log says FATAL: password authentication failed for user "orders". Put the right password in the orders-db-credentials secret.';
const OOM = 'report-worker was OOMKilled (exit code 137) while loading the monthly dataset.';
const HEALTHY = 'Everything is healthy: all pods are running and ready, no warning events, all nodes Ready.';
const SCRIPT: ChatTurn[] = [
  { tool_calls: [{ name: 'list_unhealthy_pods', arguments: {} }] },
  { content: 'I could not tell.', by_question: { [questionOf('crashloop-db-password')]: CRASH, [questionOf('oomkilled')]: OOM, [questionOf('healthy-cluster')]: HEALTHY } },
];

/** An agent answer to the oomkilled scenario that ends with the structured verdict (design §12b). */
const OOM_VERDICT = `${OOM} Raise its memory limit.\n\n\`\`\`json\n{"healthy": false, "causes": [{"category": "oom-killed", "objects": ["deployment/analytics/report-worker"]}], "fix": "Raise report-worker's memory limit to 1Gi."}\n\`\`\``;
const VERDICT_SCRIPT: ChatTurn[] = [{ tool_calls: [{ name: 'list_unhealthy_pods', arguments: {} }] }, { content: OOM_VERDICT }];

let server: UiServer;
let browser: Browser;
let app: UiPage;
let page: Page;

beforeAll(async () => {
  server = await startUiServer({ k8s: true, vast: true, ollama: { scripts: { 'llama3.1:8b': SCRIPT, 'qwen2.5:7b': VERDICT_SCRIPT } } });
  browser = await launchBrowser();
  app = await openApp(browser, server);
  page = app.page;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('the Suites page', () => {
  it('lists the starter suite from the first start with its scenarios; a scenario’s snapshot is browsable', async () => {
    await go(page, '/');
    await page.locator('[data-testid="nav-suites"]').click();
    await page.locator('[data-testid="suite-detail"]').waitFor();
    expect(await page.locator('#page-title').innerText()).toBe('Suites');
    expect(await page.locator('[data-testid="suite-starter"]').getAttribute('aria-current')).toBe('true');
    const table = page.locator('[data-testid="scenario-table"]');
    expect(await table.locator('tbody tr').count()).toBe(starter.scenarios.length);
    expect(await page.locator('[data-testid="suite-delete"]').isDisabled()).toBe(true);
    await shootBothThemes(page, 'suites-page', 200);

    // Keyboard: the Browse button of a scenario opens its snapshot below.
    await page.locator('[data-testid="browse-crashloop-db-password"]').focus();
    await page.keyboard.press('Enter');
    const snap = page.locator('[data-testid="scenario-snapshot"]');
    await snap.locator('[data-testid="snapshot-pods"]').waitFor();
    expect(await snap.locator('[data-testid="snapshot-pods"] tr', { hasText: 'orders-api-6c9f7d4b8-x2kq9' }).innerText()).toContain('CrashLoopBackOff');
    expect(await snap.locator('[data-testid="scenario-facts"]').innerText()).toContain('the database rejects the password');
    await shootBothThemes(page, 'suites-scenario-snapshot', 200);
  });

  it('a "Try an answer" box on each scenario shows which statements counted and why', async () => {
    await page.locator('[data-testid="try-oomkilled"]').click();
    const box = page.locator('[data-testid="scenario-try"]');
    await box.waitFor();
    expect(await page.locator('[data-testid="suite-agreement"]').innerText()).toMatch(/agree with (\d+) of \1 labelled answers/);
    expect(await box.locator('[data-testid="scenario-truth"]').innerText()).toContain('oom-killed (deployment/analytics/report-worker)');
    // Keyboard only: into the text, type, Ctrl+Enter scores it.
    await box.locator('[data-testid="try-text"]').focus();
    await page.keyboard.insertText(
      'It is not a password problem, and the CPU limit is fine. report-worker was OOMKilled while loading the rows; give it a bigger memory allowance.\n```\n      Reason:       OOMKilled\n      Exit Code:    137\n```',
    );
    await page.keyboard.press('Control+Enter');
    await box.locator('[data-testid="try-score"]').waitFor();
    expect(await box.locator('[data-testid="try-passed"]').innerText()).toBe('pass');
    const statements = box.locator('[data-testid="try-statements"] > li');
    const rows = await statements.allInnerTexts();
    expect(rows[0]).toMatch(/^negated[\s\S]*It is not a password problem[\s\S]*“not”/);
    expect(rows[1]).toMatch(/^dismissed[\s\S]*the CPU limit is fine[\s\S]*“is fine”/);
    expect(rows.some((r) => /^counts[\s\S]*bigger memory allowance[\s\S]*→ the fix is a higher memory limit/.test(r))).toBe(true);
    expect(rows.at(-1)).toMatch(/^quoted output[\s\S]*Exit Code:\s+137/);
    await shootBothThemes(page, 'suites-try-answer', 150);
    await shootElementBothThemes(box, 'suites-try-answer-box');
    // A labelled wrong answer loads from the list, and the rules agree with its label.
    await box.locator('[data-testid="try-fixture"]').selectOption({ label: '✗ wrong: negation: nothing is OOMKilled' });
    await box.locator('[data-testid="try-submit"]').click();
    await expect.poll(() => box.locator('[data-testid="try-passed"]').innerText()).toBe('fail');
    expect(await box.locator('[data-testid="try-score"]').innerText()).toContain('agrees with its label “wrong”');
    await shootElementBothThemes(box, 'suites-try-answer-fixture-box');
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const result = await new AxeBuilder({ page }).include('[data-testid="scenario-try"]').withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
      expect(result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id), scheme).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await box.getByRole('button', { name: 'Close' }).click();
  });

  it('records a cluster from a kubeconfig, with progress, and offers to browse it', async () => {
    await page.locator('[data-testid="suites-record"]').click();
    await page.locator('[data-testid="record-submit"]').click();
    expect(await page.locator('.field', { has: page.locator('[data-testid="record-name"]') }).locator('.field-error').innerText()).toContain('Give the snapshot a name');
    await page.locator('[data-testid="record-name"]').fill('Fake shop');
    await page.locator('[data-testid="record-kubeconfig"]').fill(mustK8s(server.h).kubeconfigPath);
    await page.locator('[data-testid="record-submit"]').click();
    const done = page.locator('[data-testid="record-done"]');
    await done.waitFor({ timeout: 30_000 });
    expect(await done.innerText()).toMatch(/Recorded Fake shop \(8 pods, 7 events/);
    await shootBothThemes(page, 'suites-record', 150);
    await page.locator('[data-testid="record-cluster"]').getByRole('button', { name: 'Close' }).click();
  });

  it('an agent asked a scenario’s question on its snapshot: the job page shows the answer’s verdict and its score against the ground truth', async () => {
    const oom = starter.scenarios.find((s) => s.scenario_id === 'oomkilled');
    if (!oom) throw new Error('the starter suite has no oomkilled scenario');
    const created = await apiCall(server, 'POST', '/v1/jobs/agentic-agent', { question: oom.question, model: 'qwen2.5:7b', agent: 'builtin', backend_url: server.h.ollama.url, snapshot: oom.snapshot_id });
    expect(created.status).toBe(202);
    await go(page, `/jobs/${String(created.body.job_id)}`);
    const verdict = page.locator('[data-testid="answer-verdict"]');
    await verdict.locator('[data-testid="try-score"]').waitFor({ timeout: 20_000 });
    expect(await verdict.locator('[data-testid="verdict-healthy"]').innerText()).toBe('not healthy');
    expect(await verdict.locator('[data-testid="verdict-causes"]').innerText()).toMatch(/out of memory \(OOMKilled\)\s+oom-killed\s+on\s+deployment\/analytics\/report-worker/);
    expect(await verdict.locator('[data-testid="verdict-fix"]').innerText()).toBe("Raise report-worker's memory limit to 1Gi.");
    expect(await verdict.locator('[data-testid="verdict-score"]').innerText()).toContain(`Scored against scenario “${oom.title}” of suite`);
    expect(await verdict.locator('[data-testid="try-verdict"]').innerText()).toMatch(/Structured verdict: right/);
    // Keyboard: the statements open from their summary.
    await verdict.locator('summary').focus();
    await page.keyboard.press('Enter');
    await verdict.locator('[data-testid="verdict-statements"]').waitFor();
    await shootElementBothThemes(page.locator('[data-testid="job-answer"]'), 'job-answer-verdict');
    await shootBothThemes(page, 'job-agent-verdict', 200);
    expect(app.errors).toEqual([]);
  });

  it('runs three scenarios from the page; the job page shows each scored row and the summary tiles', async () => {
    // Three scenarios, through the API (the Run form runs the whole suite: the next test).
    const created = await apiCall(server, 'POST', '/v1/jobs/suite', {
      suite_id: 'starter',
      scenario_ids: ['crashloop-db-password', 'oomkilled', 'healthy-cluster'],
      model: 'llama3.1:8b',
      backend_url: server.h.ollama.url,
    });
    expect(created.status).toBe(202);
    const jobId = String(created.body.job_id);
    await go(page, `/jobs/${jobId}`);
    const table = page.locator('[data-testid="suite-scenario-table"]');
    await table.locator('tbody tr').nth(2).waitFor({ timeout: 30_000 });
    let job: JobRecord | undefined;
    for (let i = 0; i < 300 && job?.status !== 'succeeded' && job?.status !== 'failed'; i++) {
      job = (await apiCall(server, 'GET', `/v1/jobs/${jobId}`)).body as unknown as JobRecord;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(job?.status, job?.error ?? '').toBe('succeeded');
    await page.locator('[data-testid="suite-row-oomkilled#1"]', { hasText: 'fail' }).waitFor();
    expect(await page.locator('[data-testid="suite-row-crashloop-db-password#1"]').innerText()).toMatch(/pass\s+100 %/);
    expect(await page.locator('[data-testid="suite-row-oomkilled#1"]').innerText()).toMatch(/fail\s+50 %/);
    expect(await page.locator('[data-testid="suite-row-healthy-cluster#1"]').innerText()).toMatch(/pass\s+100 %/);
    expect(await page.locator('[data-testid="suite-accuracy"]').innerText()).toMatch(/66\.7 %[\s\S]*2 of 3 passed/);
    expect(await page.locator('[data-testid="suite-cost-per-correct"]').innerText()).toContain('$0');

    await page.locator('[data-testid="suite-toggle-crashloop-db-password#1"]').click();
    // The answer as the rules read it: the statements that counted, with the finding each one counted for.
    const answer = page.locator('[data-testid="suite-answer-crashloop-db-password#1"]');
    const counted = answer.locator('.statement-counted');
    expect(await counted.count()).toBeGreaterThanOrEqual(2);
    expect(await counted.allInnerTexts()).toEqual(expect.arrayContaining([expect.stringMatching(/counts[\s\S]*password authentication failed[\s\S]*→ the database rejects the password/)]));
    expect(await page.locator('[data-testid="suite-row-crashloop-db-password#1"]').innerText()).toMatch(/none/);
    await page.locator('[data-testid="suite-toggle-oomkilled#1"]').click();
    expect(await page.locator('[data-testid="suite-answer-oomkilled#1"]').innerText()).toContain('Missed: the fix is a higher memory limit');
    await shootBothThemes(page, 'suite-job', 200);
    await shootElementBothThemes(page.locator('[data-testid="suite-scenarios"]'), 'suite-job-scenarios');
    expect(app.errors).toEqual([]);
  });

  it('the Run form starts a suite job and goes to its page', async () => {
    await go(page, '/suites');
    await page.locator('[data-testid="run-suite"]').waitFor();
    await page.locator('[data-testid="run-model"]').selectOption('llama3.1:8b');
    await page.locator('[data-testid="run-backend-url"]').fill(server.h.ollama.url);
    await page.locator('[data-testid="run-repeat"]').fill('0');
    await page.locator('[data-testid="run-submit"]').click();
    expect(await page.locator('.field', { has: page.locator('[data-testid="run-repeat"]') }).locator('.field-error').innerText()).not.toBe('');
    await page.locator('[data-testid="run-repeat"]').fill('1');
    // Which scenarios: all by default; none is refused in words; a few are sent in the suite's order.
    expect(await page.locator('[data-testid="run-submit"]').innerText()).toBe(`Run all ${starterSuite().suite.scenarios.length} scenarios`);
    await page.locator('[data-testid="run-scenarios-none"]').click();
    await page.locator('[data-testid="run-submit"]').click();
    expect(await page.locator('[data-testid="run-scenarios"] .field-error').innerText()).toBe('Choose at least one scenario to run');
    for (const id of ['healthy-cluster', 'oomkilled', 'crashloop-db-password']) await page.locator(`[data-testid="run-scenario-${id}"]`).check();
    expect(await page.locator('[data-testid="run-submit"]').innerText()).toBe('Run 3 scenarios');
    // The choice answered the message.
    expect(await page.locator('[data-testid="run-scenarios"] .field-error').innerText()).toBe('');
    await shootBothThemes(page, 'suite-run-form', 100);
    // On a rented machine: the template is picked by name, the Ollama one chosen already.
    await page.locator('[data-testid="run-target-marketplace"]').click();
    await expect.poll(() => page.locator('[data-testid="run-template"]').inputValue()).toBe(OLLAMA_TEMPLATE_HASH);
    await shootBothThemes(page, 'suite-run-form-rent', 100);
    await page.locator('[data-testid="run-target-backend"]').click();
    // Slow answers, so the page is seen while the run goes on.
    server.h.ollama.setKnobs({ firstByteDelayMs: 400 });
    await page.locator('[data-testid="run-submit"]').click();
    await page.waitForURL(/#\/jobs\/[^/]+$/, { timeout: 15_000 });
    await page.locator('[data-testid="suite-summary"]').waitFor();
    // Rows appear live: one is being asked while the earlier ones are already scored.
    await page.locator('[data-testid="suite-scenario-table"] .badge', { hasText: 'asking…' }).waitFor({ timeout: 30_000 });
    await page.locator('[data-testid="suite-scenario-table"] .badge', { hasText: /pass|fail/ }).first().waitFor({ timeout: 30_000 });
    await shootBothThemes(page, 'suite-job-running', 100);
    server.h.ollama.setKnobs({ firstByteDelayMs: 0 });
    const jobId = decodeURIComponent(new URL(page.url()).hash.replace('#/jobs/', ''));
    const job = (await apiCall(server, 'GET', `/v1/jobs/${jobId}`)).body as unknown as JobRecord;
    expect(job.kind).toBe('suite');
    expect(job.request).toMatchObject({ suite_id: 'starter', agent: 'builtin', backend_url: server.h.ollama.url, scenario_ids: ['crashloop-db-password', 'oomkilled', 'healthy-cluster'] });
    // Let it end before the server closes.
    for (let i = 0; i < 600; i++) {
      const j = (await apiCall(server, 'GET', `/v1/jobs/${jobId}`)).body as unknown as JobRecord;
      if (j.status === 'succeeded' || j.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  it('Launch has a Suite kind: the suite chosen, the same Run form from the saved defaults, a suite job started from it', async () => {
    expect((await apiCall(server, 'POST', '/v1/settings', { default_backend_url: server.h.ollama.url })).status).toBe(200);
    await page.reload();
    await page.locator('[data-testid="app-ready"]').waitFor();
    await go(page, '/launch');
    await page.locator('[data-testid="launch-kind-suite"]').click();
    await expect.poll(() => page.locator('[data-testid="launch-suite-select"]').inputValue()).toBe('starter');
    await page.locator('[data-testid="run-suite"]').waitFor();
    await page.locator('[data-testid="run-scenarios-none"]').click();
    await page.locator('[data-testid="run-scenario-healthy-cluster"]').check();
    await page.locator('[data-testid="run-model"]').selectOption('llama3.1:8b');
    // The backend starts from Settings' default, as on the other Launch kinds.
    await expect.poll(() => page.locator('[data-testid="run-backend-url"]').inputValue()).toBe(server.h.ollama.url);
    await shootBothThemes(page, 'launch-suite', 100);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
      expect(result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id), scheme).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.locator('[data-testid="run-submit"]').click();
    await page.waitForURL(/#\/jobs\/[^/]+$/, { timeout: 15_000 });
    const jobId = decodeURIComponent(new URL(page.url()).hash.replace('#/jobs/', ''));
    const job = (await apiCall(server, 'GET', `/v1/jobs/${jobId}`)).body as unknown as JobRecord;
    expect(job.request).toMatchObject({ suite_id: 'starter', scenario_ids: ['healthy-cluster'] });
    for (let i = 0; i < 300; i++) {
      const j = (await apiCall(server, 'GET', `/v1/jobs/${jobId}`)).body as unknown as JobRecord;
      if (j.status === 'succeeded' || j.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(app.errors).toEqual([]);
  });
});
