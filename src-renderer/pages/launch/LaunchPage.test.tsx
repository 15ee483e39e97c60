// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AppSettings, type CostEstimationResponse, type CreateJobInput, type MarketplaceTemplateList, type SettingsResponse } from '../../../shared';
import { useUiStore } from '../../state/ui-store';
import { settingsResponseOf } from '../../test-helpers';
import { byTestId, click, mount, until, type Mounted } from '../../test-mount';
import { DEFAULT_TEMPLATE_HASH } from './launch-form';
import { LaunchPage } from './LaunchPage';

let view: Mounted | null = null;
beforeEach(() => {
  useUiStore.setState({ launchDrafts: {}, launchPrefill: null, launchKind: 'benchmark' });
});
afterEach(() => {
  view?.unmount();
  view = null;
});

const settingsOf = (patch: Partial<AppSettings>, key = true): SettingsResponse => settingsResponseOf(patch, key);

const TEMPLATES: MarketplaceTemplateList = { note: null, templates: [{ hash_id: DEFAULT_TEMPLATE_HASH, name: 'Ollama', image: 'vastai/ollama', tag: '0.15.2', recommended: true, count_created: 10, recommended_disk_space: 8 }] };
const estimate = (basis: CostEstimationResponse['basis'], expected: number): CostEstimationResponse => ({
  projected_cost_usd: expected, cost_driver: 'marketplace', resource_impact: 'low', local_energy_kwh: 0, confidence_score: 0.9, warning: null, basis, hours: 1,
  cost_range_usd: { low: expected, expected, high: expected },
  ...(basis === 'no_offers'
    ? { offers: null, nearest_offer: { id: 5, gpu_name: 'RTX 3090', num_gpus: 1, gpu_ram: 24576, dph_total: 0.1623, reliability: 0.99, geolocation: null } }
    : { offers: { count: 1, min_dph: expected, median_dph: expected, max_dph: expected, cheapest: { id: 5, gpu_name: 'RTX 3060', num_gpus: 1, gpu_ram: 12288, dph_total: expected, reliability: 0.99, geolocation: null } } }),
});

function fakeApi(settings: SettingsResponse, answer: CostEstimationResponse, templates: MarketplaceTemplateList = TEMPLATES) {
  const created: CreateJobInput[] = [];
  return {
    created,
    api: {
      getSettings: async () => settings,
      listCatalog: async () => ({ models: [{ name: 'llama3.1:8b', vram_mb: 8000, required_disk_gb: 41 }] }),
      listAgents: async () => ({ agents: [{ name: 'builtin', source: 'builtin' as const, transport: 'in-process' as const }, { name: 'k8sgpt', source: 'bundled' as const, transport: 'stdio' as const }], warnings: [] }),
      searchTemplates: async (input?: { q?: string }) => (input?.q && !templates.templates.some((t) => t.hash_id === input.q) ? { note: null, templates: [] } : templates),
      createEstimate: async () => answer,
      createJob: async (input: CreateJobInput) => {
        created.push(input);
        return { job_id: 'new-job', status: 'accepted' as const };
      },
    },
  };
}

const value = (id: string) => byTestId<HTMLInputElement>(document, id).value;
function fill(id: string, text: string) {
  const el = byTestId<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(document, id);
  const proto = el instanceof HTMLSelectElement ? HTMLSelectElement.prototype : el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  Object.getOwnPropertyDescriptor(proto, 'value')?.set?.call(el, text);
  el.dispatchEvent(new Event(el instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }));
}

async function marketplaceDraft() {
  click(byTestId(document, 'target-marketplace'));
  await until(() => document.querySelector('[data-testid="launch-question"]') !== null);
  fill('launch-question', 'Why?');
  fill('launch-model', 'llama3.1:8b');
  await until(() => value('launch-model') === 'llama3.1:8b', 'the model');
  await until(() => (document.querySelector('[data-testid="template-hash"]')?.textContent ?? '').includes(DEFAULT_TEMPLATE_HASH), 'the template');
}

describe('Launch', () => {
  it('starts from the saved backend, kubeconfig, agent and spend limit', async () => {
    const fake = fakeApi(settingsOf({ default_backend_url: 'http://gpu-box:11434', default_kubeconfig: '/home/me/lab.yaml', default_agent: 'k8sgpt', default_max_cost_usd: 3 }), estimate('live_offers', 0.07));
    view = mount(fake.api, <LaunchPage />);
    await until(() => document.querySelector('[data-testid="launch-form"]') !== null, 'the form');
    expect(value('launch-backend_url')).toBe('http://gpu-box:11434');
    expect(value('launch-kubeconfig')).toBe('/home/me/lab.yaml');
    await until(() => value('launch-agent') === 'k8sgpt', 'the agent list');
    click(byTestId(document, 'target-marketplace'));
    expect(value('launch-max_cost_usd')).toBe('3');
  });

  it('under the "ask from" threshold it launches without asking; the request carries the spend limit and the duration', async () => {
    const fake = fakeApi(settingsOf({ spend_confirm_threshold_usd: 1, default_max_cost_usd: 2 }), estimate('live_offers', 0.07));
    view = mount(fake.api, <LaunchPage />);
    await until(() => document.querySelector('[data-testid="launch-form"]') !== null, 'the form');
    await marketplaceDraft();
    click(byTestId(document, 'launch-submit'));
    await until(() => fake.created.length === 1, 'the launch');
    expect(document.querySelector<HTMLDialogElement>('[data-testid="spend-confirm"]')?.open).toBeFalsy();
    expect(fake.created[0]?.request).toMatchObject({ marketplace: true, template_hash: DEFAULT_TEMPLATE_HASH, max_cost_usd: 2, estimated_duration_seconds: 3600 });
  });

  it('at or over the threshold it asks first', async () => {
    const fake = fakeApi(settingsOf({ spend_confirm_threshold_usd: 0.05 }), estimate('live_offers', 0.07));
    view = mount(fake.api, <LaunchPage />);
    await until(() => document.querySelector('[data-testid="launch-form"]') !== null, 'the form');
    await marketplaceDraft();
    click(byTestId(document, 'launch-submit'));
    await until(() => document.querySelector<HTMLDialogElement>('[data-testid="spend-confirm"]')?.open === true, 'the dialog');
    expect(byTestId(document, 'spend-threshold').textContent).toContain('$0.05');
    expect(fake.created).toEqual([]);
  });

  it('when no offer fits it rents nothing and offers to raise Max $/h to the nearest offer', async () => {
    const fake = fakeApi(settingsOf({}), estimate('no_offers', 0));
    view = mount(fake.api, <LaunchPage />);
    await until(() => document.querySelector('[data-testid="launch-form"]') !== null, 'the form');
    await marketplaceDraft();
    fill('launch-max_dph', '0.1');
    click(byTestId(document, 'launch-submit'));
    await until(() => document.querySelector('[data-testid="launch-no-offer"]') !== null, 'the refusal');
    expect(byTestId(document, 'launch-no-offer').textContent).toContain('nothing was rented');
    expect(document.querySelector<HTMLDialogElement>('[data-testid="spend-confirm"]')?.open).toBeFalsy();
    click(byTestId(document, 'launch-raise-ceiling'));
    await until(() => value('launch-max_dph') === '0.17', 'the raised ceiling');
    expect(fake.created).toEqual([]);
  });

  it('a template the marketplace does not have is refused before anything is rented', async () => {
    const fake = fakeApi(settingsOf({}), estimate('live_offers', 0.07), { note: null, templates: [] });
    view = mount(fake.api, <LaunchPage />);
    await until(() => document.querySelector('[data-testid="launch-form"]') !== null, 'the form');
    click(byTestId(document, 'target-marketplace'));
    fill('launch-question', 'Why?');
    fill('launch-model', 'llama3.1:8b');
    click(byTestId(document, 'launch-submit'));
    await until(() => (byTestId(document, 'template-field').textContent ?? '').includes('No template with this hash'), 'the refusal');
    expect(fake.created).toEqual([]);
  });

  it('without a marketplace key it cannot rent: the option is off, and a carried-over marketplace draft cannot be launched', async () => {
    const fake = fakeApi(settingsOf({}, false), estimate('price_range', 0.5));
    useUiStore.getState().prefillLaunch('llm-instance', { target: 'marketplace', model: 'llama3.1:8b' }, 'the estimate');
    view = mount(fake.api, <LaunchPage />);
    await until(() => document.querySelector('[data-testid="launch-carried"]') !== null, 'the form');
    expect(byTestId(document, 'launch-no-key').textContent).toContain('VAST_API_KEY');
    const submit = byTestId<HTMLButtonElement>(document, 'launch-submit');
    expect(submit.disabled).toBe(true);
    expect(submit.textContent).toBe('Renting needs a marketplace key');
    click(byTestId(document, 'target-existing'));
    expect(byTestId<HTMLButtonElement>(document, 'target-marketplace').disabled).toBe(true);
    expect(document.body.textContent).not.toContain('Rent and launch');
  });
});
