// @vitest-environment happy-dom
import { act } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { APP_SETTINGS_DEFAULTS, type LlmModelsResponse } from '../../../shared';
import { byTestId, change, click, mount, until, type Mounted } from '../../test-mount';
import { ModelsPage, modelDetail } from './ModelsPage';

let view: Mounted | null = null;
afterEach(() => {
  view?.unmount();
  view = null;
});

const URL_A = 'http://127.0.0.1:11434';
const URL_B = 'http://127.0.0.1:8000';

function fakeApi() {
  const listed: { backend_url: string; backend_api: string }[] = [];
  return {
    listed,
    api: {
      listCatalog: async () => ({ models: [] }),
      getSettings: async () => ({ settings: { ...APP_SETTINGS_DEFAULTS }, tenant_id: 'default', can_change: true }),
      updateSettings: async (patch: object) => ({ settings: { ...APP_SETTINGS_DEFAULTS, ...patch }, tenant_id: 'default', can_change: true, changed: Object.keys(patch) }),
      listLlmModels: async (input: { backend_url: string; backend_api: string }): Promise<LlmModelsResponse> => {
        listed.push({ backend_url: input.backend_url, backend_api: input.backend_api });
        return { backend_url: input.backend_url, backend_api: 'ollama', models: [{ name: 'llama3.1:8b' }], running_models: [] } as unknown as LlmModelsResponse;
      },
    },
  };
}

describe('Models: a backend’s models', () => {
  it('lists the URL submitted, never an empty one, and lists again when the same URL is submitted again', async () => {
    const fake = fakeApi();
    view = mount(fake.api, <ModelsPage />);
    // No remembered backend: nothing is asked until a URL is submitted.
    await until(() => document.body.textContent?.includes('No backend chosen') === true, 'the empty state');
    expect(fake.listed).toEqual([]);

    change(byTestId<HTMLInputElement>(document, 'backend-url'), URL_A);
    click(byTestId(document, 'backend-list'));
    await until(() => document.querySelector('[data-testid="backend-summary"]')?.textContent?.includes(URL_A) === true, 'the first list');
    // One request, for the URL typed (the query on screen before the submit had no URL).
    expect(fake.listed).toEqual([{ backend_url: URL_A, backend_api: 'auto' }]);

    click(byTestId(document, 'backend-list'));
    await until(() => fake.listed.length === 2 && byTestId(document, 'backend-list').textContent === 'List models', 'the re-list');
    expect(fake.listed[1]).toEqual({ backend_url: URL_A, backend_api: 'auto' });

    change(byTestId<HTMLInputElement>(document, 'backend-url'), URL_B);
    click(byTestId(document, 'backend-list'));
    await until(() => document.querySelector('[data-testid="backend-summary"]')?.textContent?.includes(URL_B) === true, 'the second URL');
    expect(fake.listed.slice(2)).toEqual([{ backend_url: URL_B, backend_api: 'auto' }]);
  });
});

describe('Models: the URL field while settings load', () => {
  it('never puts the remembered URL into the field once the user is in it (typing would go after it)', async () => {
    // A fresh-clone e2e run typed into the field as settings arrived: the default landed first,
    // the typed URL after it ("…:11434http://…"), and the form refused the submit.
    const fake = fakeApi();
    let answerSettings: (() => void) | undefined;
    const settingsAnswered = new Promise<void>((resolve) => (answerSettings = resolve));
    const api = {
      ...fake.api,
      getSettings: async () => {
        await settingsAnswered;
        return { settings: { ...APP_SETTINGS_DEFAULTS, default_backend_url: URL_B }, tenant_id: 'default', can_change: true };
      },
    };
    view = mount(api, <ModelsPage />);
    const field = byTestId<HTMLInputElement>(document, 'backend-url');
    act(() => field.focus());
    answerSettings?.();
    // The remembered backend is listed at once…
    await until(() => document.querySelector('[data-testid="backend-summary"]')?.textContent?.includes(URL_B) === true, 'the remembered backend listed');
    // …and the field the user is in stays as they left it.
    expect(field.value).toBe('');
    change(field, URL_A);
    click(byTestId(document, 'backend-list'));
    await until(() => document.querySelector('[data-testid="backend-summary"]')?.textContent?.includes(URL_A) === true, 'the typed URL listed');
    expect(fake.listed.map((l) => l.backend_url)).toEqual([URL_B, URL_A]);
  });

  it('fills the field with the remembered URL when the user has not been in it', async () => {
    const fake = fakeApi();
    view = mount({ ...fake.api, getSettings: async () => ({ settings: { ...APP_SETTINGS_DEFAULTS, default_backend_url: URL_B }, tenant_id: 'default', can_change: true }) }, <ModelsPage />);
    await until(() => byTestId<HTMLInputElement>(document, 'backend-url').value === URL_B, 'the remembered URL in the field');
  });
});

describe('modelDetail', () => {
  it('says family, parameters and quantization on one line, and says so when the backend reported none', () => {
    expect(modelDetail({ family: 'llama', parameter_size: '8.0B', quantization: 'Q4_K_M' })).toBe('llama · 8.0B parameters · Q4_K_M');
    expect(modelDetail({ family: 'qwen2', parameter_size: null, quantization: undefined })).toBe('qwen2');
    expect(modelDetail({})).toBe('family, size and quantization not reported');
  });
});
