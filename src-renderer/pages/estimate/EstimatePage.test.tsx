// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CatalogResponse, CostEstimationResponse, OfferSummary } from '../../../shared';
import { DEFAULT_ESTIMATE_FORM, useUiStore } from '../../state/ui-store';
import { byTestId, change, click, mount, until, type Mounted } from '../../test-mount';
import { EstimatePage } from './EstimatePage';

// happy-dom has no canvas: the charts (uPlot) are drawn in the browser e2e, not here.
vi.mock('./EstimateCharts', () => ({ OfferPriceChart: () => null, CostDurationChart: () => null }));

let view: Mounted | null = null;
beforeEach(() => {
  useUiStore.setState({ estimate: { ...DEFAULT_ESTIMATE_FORM, model: 'qwen2.5:32b', max_dph: '0.1', hours: '2' }, launchPrefill: null, launchKind: 'benchmark' });
});
afterEach(() => {
  view?.unmount();
  view = null;
});

const CATALOG: CatalogResponse = { models: [{ name: 'qwen2.5:32b', vram_mb: 23_500, required_disk_gb: 59 }, { name: 'llama3.1:8b', vram_mb: 8000, required_disk_gb: 41 }] };
const offer = (id: number, dph: number, patch: Partial<OfferSummary> = {}): OfferSummary => ({
  id, gpu_name: 'RTX 3090', num_gpus: 1, gpu_ram: 24_576, dph_total: dph, reliability: 0.997, geolocation: 'Texas, US', inet_down_cost: 0.01, download_usd: 0.19, ...patch,
});
const base = { projected_cost_usd: 0, cost_driver: 'marketplace', resource_impact: 'low', local_energy_kwh: 0, confidence_score: 0.9, warning: null, hours: 2 } as const;
const NOTHING_FITS: CostEstimationResponse = { ...base, basis: 'no_offers', cost_range_usd: { low: 0, expected: 0, high: 0 }, offers: null, nearest_offer: offer(7, 0.1623) };
const LIVE: CostEstimationResponse = {
  ...base,
  basis: 'live_offers',
  projected_cost_usd: 0.52,
  cost_range_usd: { low: 0.5, expected: 0.52, high: 0.4 },
  offers: { count: 2, min_dph: 0.1623, median_dph: 0.2, max_dph: 0.24, cheapest: offer(7, 0.1623), items: [offer(7, 0.1623), offer(8, 0.24, { gpu_name: 'RTX 4090', download_usd: null, inet_down_cost: null })] },
};

function api(answer: (input: { max_dph?: number; min_dph?: number }) => CostEstimationResponse) {
  const asked: unknown[] = [];
  return {
    asked,
    api: {
      listCatalog: async () => CATALOG,
      createEstimate: async (input: { max_dph?: number; min_dph?: number }) => {
        asked.push(input);
        return answer(input);
      },
    },
  };
}

describe('Estimate', () => {
  it('when nothing fits: says so, shows no cost, and one click raises the ceiling to the nearest offer', async () => {
    const fake = api((input) => ((input.max_dph ?? 0) >= 0.17 ? LIVE : NOTHING_FITS));
    view = mount(fake.api, <EstimatePage />);
    await until(() => document.querySelector('[data-basis="no_offers"]') !== null, 'the answer');
    expect(byTestId(document, 'estimate-basis').textContent).toBe('no offer fits');
    expect(byTestId(document, 'estimate-no-offer').textContent).toContain('No offer fits');
    expect(byTestId(document, 'estimate-no-offer').textContent).toContain('$0.10/h');
    // No figure for a machine that does not exist, and no talk of a missing key.
    expect(document.querySelector('[data-testid="estimate-expected"]')).toBeNull();
    expect(document.querySelector('[data-testid="estimate-no-key"]')).toBeNull();
    expect(byTestId(document, 'estimate-result').textContent).not.toMatch(/Expected cost|marketplace key/);
    const nearest = byTestId(document, 'estimate-nearest').textContent ?? '';
    expect(nearest).toContain('1× RTX 3090');
    expect(nearest).toContain('$0.19 download');
    // The short form ($0.16/h) and the ceiling offered ($0.17/h) differ: the exact rate says why.
    expect(byTestId(document, 'estimate-nearest-exact').textContent).toBe('$0.1623/h exactly');
    expect(byTestId(document, 'estimate-raise-ceiling').textContent).toBe('Raise Max $/h to $0.17/h');
    click(byTestId(document, 'estimate-raise-ceiling'));
    expect(useUiStore.getState().estimate.max_dph).toBe('0.17');
    await until(() => document.querySelector('[data-basis="live_offers"]') !== null, 'the live answer');
    expect(byTestId(document, 'estimate-cheapest-download').textContent).toContain('$0.19 download');
    // The table's total is machine time plus the download: 2 h × $0.1623 + $0.19.
    const firstRow = document.querySelectorAll('[data-testid="offers-table"] tbody tr')[0]?.textContent ?? '';
    expect(firstRow).toContain('$0.19');
    expect(firstRow).toContain('$0.51');
    // Counted in plain English: "2 offers fit", never "2 offers fits".
    expect(document.body.textContent).toContain('2 offers fit');
    expect(document.body.textContent).not.toContain('offers fits');
  });

  it("invalid inputs grey the result and say what is wrong in the form's words; nothing is asked", async () => {
    const fake = api(() => LIVE);
    useUiStore.setState({ estimate: { ...DEFAULT_ESTIMATE_FORM, max_dph: '2' } });
    view = mount(fake.api, <EstimatePage />);
    await until(() => document.querySelector('[data-stale="false"]') !== null, 'the answer');
    const asked = fake.asked.length;
    change(byTestId<HTMLInputElement>(document, 'estimate-min'), '0.5');
    change(byTestId<HTMLInputElement>(document, 'estimate-max'), '0.1');
    await until(() => document.querySelector('[data-stale="true"]') !== null, 'the greyed result');
    expect(byTestId(document, 'estimate-basis').textContent).toBe('out of date');
    expect(byTestId(document, 'estimate-stale').textContent).toContain('Max $/h must be at least Min $/h');
    expect(document.body.textContent).not.toMatch(/min_dph|>=|Too small/);
    await new Promise((r) => setTimeout(r, 400));
    expect(fake.asked.length).toBe(asked);
  });

  it('"Launch on this" hands the model, price range, reliability and duration to Launch', async () => {
    const fake = api(() => LIVE);
    useUiStore.setState({ estimate: { model: 'qwen2.5:32b', min_dph: '0.05', max_dph: '1', reliability_pct: '98', hours: '2' } });
    view = mount(fake.api, <EstimatePage />);
    await until(() => document.querySelector('[data-testid="launch-on-8"]') !== null, 'the offers');
    click(byTestId(document, 'launch-on-8'));
    expect(useUiStore.getState().launchPrefill).toMatchObject({ kind: 'benchmark', patch: { target: 'marketplace', model: 'qwen2.5:32b', min_dph: '0.05', max_dph: '0.24', reliability_pct: '98', hours: '2' } });
    click(byTestId(document, 'launch-on-cheapest'));
    expect(useUiStore.getState().launchPrefill?.patch).toMatchObject({ max_dph: '1' });
  });

  it('a marketplace that does not answer is said apart from a missing key, with what was asked; neither shows a price', async () => {
    const range = { ...base, basis: 'price_range', projected_cost_usd: 0.35, cost_range_usd: { low: 0, expected: 0.35, high: 0.7 }, offers: null } as const;
    const down: CostEstimationResponse = {
      ...range,
      warning: 'The live offer search failed (POST /bundles/ failed: could not reach console.vast.ai (ECONNREFUSED)), so this is estimated from the price range only.',
      marketplace_status: { state: 'unreachable', message: 'POST /bundles/ failed: could not reach console.vast.ai (ECONNREFUSED)', api_url: 'https://console.vast.ai/api/v0' },
    };
    const noKey: CostEstimationResponse = { ...range, warning: 'No VAST_API_KEY set: estimated from the price range only, not live offers.', marketplace_status: { state: 'no_key', message: 'no marketplace key', api_url: null } };
    let answer = down;
    const fake = api(() => answer);
    view = mount(fake.api, <EstimatePage />);
    await until(() => document.querySelector('[data-testid="estimate-no-live"]') !== null, 'the answer');
    const notice = byTestId(document, 'estimate-no-live');
    expect(notice.dataset.state).toBe('unreachable');
    expect(byTestId(document, 'estimate-no-live-title').textContent).toBe('The marketplace does not answer.');
    expect(notice.textContent).toContain('https://console.vast.ai/api/v0');
    expect(notice.textContent).toContain('ECONNREFUSED');
    expect(notice.textContent).not.toContain('VAST_API_KEY');
    expect(byTestId(document, 'estimate-result').textContent).not.toContain('$0.35');
    expect(document.querySelector('[data-testid="estimate-expected"]')).toBeNull();

    answer = noKey;
    click(byTestId(document, 'estimate-retry'));
    await until(() => byTestId(document, 'estimate-no-live').dataset.state === 'no_key', 'the no-key answer');
    expect(byTestId(document, 'estimate-no-live').textContent).toContain('VAST_API_KEY');
    expect(byTestId(document, 'estimate-result').textContent).not.toContain('$0.35');
  });

  it('the greyed, out-of-date result keeps the words of the last valid inputs', async () => {
    const fake = api(() => NOTHING_FITS);
    useUiStore.setState({ estimate: { ...DEFAULT_ESTIMATE_FORM, model: 'qwen2.5:32b', max_dph: '0.1', reliability_pct: '99' } });
    view = mount(fake.api, <EstimatePage />);
    await until(() => document.querySelector('[data-testid="estimate-no-offer"]') !== null, 'the answer');
    expect(byTestId(document, 'estimate-no-offer').textContent).toContain('reliability 99 % or more');
    change(byTestId<HTMLInputElement>(document, 'estimate-reliability'), '150');
    await until(() => document.querySelector('[data-stale="true"]') !== null, 'the greyed result');
    expect(byTestId(document, 'estimate-no-offer').textContent).toContain('reliability 99 % or more');
    expect(byTestId(document, 'estimate-no-offer').textContent).not.toContain('150');
  });
});
