import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathWithoutAgents } from '../test/agents/build-driver';
import { ensureCliBuilt, mustK8s } from '../test/workflows/harness';
import { apiCall, go, launchBrowser, openApp, shootBothThemes, startUiServer, type UiPage, type UiServer } from './ui-support';

/**
 * A failed agent job's page says what went wrong in the user's words, keyed on its error_code
 * (here: holmes is not installed on the server), and what to do next. Screenshots in both themes.
 */

let server: UiServer;
let browser: Browser;
let app: UiPage;

beforeAll(async () => {
  ensureCliBuilt();
  server = await startUiServer({ k8s: true, env: { PATH: pathWithoutAgents() } });
  browser = await launchBrowser();
  app = await openApp(browser, server);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('a failed agent job', () => {
  it('shows the failure worded by its error code, the agent’s own message, and what to do next', async () => {
    const submitted = await apiCall(server, 'POST', '/v1/jobs/agentic-agent', {
      question: 'Which pod is failing, and why?',
      model: 'llama3.1:8b',
      agent: 'holmes',
      backend_url: server.h.ollama.url,
      kubeconfig: mustK8s(server.h).kubeconfigPath,
      backend_warmup: false,
    });
    expect(submitted.status).toBe(202);
    const id = String(submitted.body.job_id);
    await go(app.page, `/jobs/${encodeURIComponent(id)}`);
    const notice = app.page.locator('[data-testid="job-error"]');
    await notice.waitFor({ timeout: 30_000 });
    await expect.poll(() => notice.textContent()).toContain('The agent is not installed (agent_not_installed)');
    expect(await notice.textContent()).toContain('pipx install holmesgpt');
    expect(await app.page.locator('[data-testid="job-error-next"]').textContent()).toMatch(/Install the agent program on the machine that runs benchdesk/);
    await shootBothThemes(app.page, 'job-failed-agent-not-installed');
    expect(app.errors).toEqual([]);
  });
});
