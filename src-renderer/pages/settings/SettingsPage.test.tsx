// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { type AgentList, type AppSettings, type SettingsResponse, type SettingsUpdate } from '../../../shared';
import { clientError } from '../../../shared/client/errors';
import { settingsResponseOf } from '../../test-helpers';
import { byTestId, change, click, mount, until, type Mounted } from '../../test-mount';
import { SettingsPage } from './SettingsPage';

let view: Mounted | null = null;
afterEach(() => {
  view?.unmount();
  view = null;
});

const settingsOf = (patch: Partial<AppSettings>): SettingsResponse => settingsResponseOf(patch, false);

const AGENTS: AgentList = {
  agents: [
    { name: 'builtin', source: 'builtin', transport: 'in-process' },
    { name: 'holmes', source: 'bundled', transport: 'stdio' },
    { name: 'k8sgpt', source: 'bundled', transport: 'stdio' },
    { name: 'my-agent', source: 'settings', transport: 'stdio' },
  ],
  warnings: [],
};

/** The operations the Settings page calls; `agents` answers GET /v1/agents (each call takes the next answer). */
function fakeApi(saved: Partial<AppSettings>, agents: Array<() => Promise<AgentList>>) {
  let settings = settingsOf(saved);
  const updates: SettingsUpdate[] = [];
  let agentCalls = 0;
  return {
    updates,
    agentCalls: () => agentCalls,
    api: {
      getSettings: async () => settings,
      getHealth: async () => ({ status: 'ok', version: '0.1.0', uptime_s: 1, checks: {} }),
      listAgents: () => {
        const answer = agents[Math.min(agentCalls, agents.length - 1)];
        agentCalls += 1;
        return answer ? answer() : Promise.resolve(AGENTS);
      },
      updateSettings: async (patch: SettingsUpdate) => {
        updates.push(patch);
        settings = settingsOf({ ...settings.settings, ...patch } as Partial<AppSettings>);
        return { ...settings, changed: Object.keys(patch) };
      },
    },
  };
}

const select = () => byTestId<HTMLSelectElement>(document, 'set-agent');
const optionTexts = () => [...select().options].map((o) => o.textContent);
const agentError = () => document.querySelector('[data-testid="field-default_agent"] .field-error')?.textContent ?? '';

describe('Settings: the default agent', () => {
  it('is a select of the registered agents; choosing one saves its name, "Not set" saves null', async () => {
    const fake = fakeApi({ default_agent: 'holmes' }, [async () => AGENTS]);
    view = mount(fake.api, <SettingsPage />);
    await until(() => document.querySelector('[data-testid="set-agent"][data-state="ready"]') !== null, 'the agent list');
    expect(select().value).toBe('holmes');
    expect(optionTexts()).toEqual(['Not set (builtin)', 'builtin — built in', 'holmes — bundled driver', 'k8sgpt — bundled driver', 'my-agent — registered in settings']);
    expect(agentError()).toBe('');
    change(select(), 'my-agent');
    click(byTestId(document, 'settings-save'));
    await until(() => fake.updates.length === 1, 'the save');
    expect(fake.updates[0]).toEqual({ default_agent: 'my-agent' });
    await until(() => byTestId(document, 'settings-saved').textContent === 'Saved: Agent.', 'the saved note');
    change(select(), '');
    click(byTestId(document, 'settings-save'));
    await until(() => fake.updates.length === 2, 'the second save');
    expect(fake.updates[1]).toEqual({ default_agent: null });
  });

  it('is disabled and says so while the list loads, then offers the agents', async () => {
    let answer: (list: AgentList) => void = () => undefined;
    const fake = fakeApi({ default_agent: null }, [() => new Promise<AgentList>((r) => (answer = r))]);
    view = mount(fake.api, <SettingsPage />);
    await until(() => document.querySelector('[data-testid="set-agent"]') !== null, 'the form');
    expect(select().disabled).toBe(true);
    expect(select().dataset.state).toBe('loading');
    expect(optionTexts()).toEqual(['Loading agents…']);
    expect(byTestId(document, 'field-default_agent').textContent).toContain('Reading the registered agents');
    answer(AGENTS);
    await until(() => select().dataset.state === 'ready', 'the list');
    expect(select().disabled).toBe(false);
    expect(select().value).toBe('');
    expect(optionTexts()[0]).toBe('Not set (builtin)');
  });

  it('keeps the saved agent selectable when the list cannot be read, and retries on request', async () => {
    const fake = fakeApi({ default_agent: 'k8sgpt' }, [
      async () => {
        throw clientError(502, 'upstream_error', 'the agent registry could not be read');
      },
      async () => AGENTS,
    ]);
    view = mount(fake.api, <SettingsPage />);
    await until(() => document.querySelector('[data-testid="set-agent"][data-state="error"]') !== null, 'the error state');
    expect(select().disabled).toBe(false);
    expect(select().value).toBe('k8sgpt');
    expect(byTestId(document, 'field-default_agent').textContent).toContain('could not be read (the agent registry could not be read)');
    // Not knowing the list is not a reason to call the saved agent unknown.
    expect(agentError()).toBe('');
    click(byTestId(document, 'set-agent-retry'));
    await until(() => select().dataset.state === 'ready', 'the retried list');
    expect(fake.agentCalls()).toBe(2);
    expect(select().value).toBe('k8sgpt');
    expect(optionTexts()).toContain('k8sgpt — bundled driver');
  });

  it('says when the saved agent is no longer registered', async () => {
    const fake = fakeApi({ default_agent: 'gone-agent' }, [async () => AGENTS]);
    view = mount(fake.api, <SettingsPage />);
    await until(() => document.querySelector('[data-testid="set-agent"][data-state="ready"]') !== null, 'the agent list');
    expect(select().value).toBe('gone-agent');
    expect(optionTexts()).toContain('gone-agent (not registered)');
    expect(agentError()).toBe("Agent 'gone-agent' is not registered on this server; choose one from the list");
  });
});

describe('Settings: checked as typed', () => {
  it('says what is wrong as soon as it is typed, sends nothing while it is, and tests the backend URL', async () => {
    const fake = fakeApi({}, [async () => AGENTS]);
    const asked: string[] = [];
    const api = {
      ...fake.api,
      listLlmModels: async ({ backend_url }: { backend_url: string }) => {
        asked.push(backend_url);
        return { backend_url, backend_type: 'llmserver', models: [{ name: 'a' }, { name: 'b' }], running_models: [{ name: 'a' }] };
      },
    };
    view = mount(api, <SettingsPage />);
    await until(() => document.querySelector('[data-testid="set-concurrency"]') !== null, 'the form');
    change(byTestId<HTMLInputElement>(document, 'set-concurrency'), '0');
    await until(() => (document.querySelector('[data-testid="field-concurrency"] .field-error')?.textContent ?? '') !== '', 'the error as typed');
    expect(document.querySelector('[data-testid="field-concurrency"] .field-error')?.textContent).toMatch(/Jobs running at once/);
    click(byTestId(document, 'settings-save'));
    expect(fake.updates).toEqual([]);
    change(byTestId<HTMLInputElement>(document, 'set-backend-url'), 'http://10.0.0.5:11434');
    click(byTestId(document, 'set-backend-test'));
    await until(() => document.querySelector('[data-testid="set-backend-test-result"]') !== null, 'the test result');
    expect(asked).toEqual(['http://10.0.0.5:11434']);
    expect(byTestId(document, 'set-backend-test-result').textContent).toContain('2 models, 1 loaded now');
  });
});
