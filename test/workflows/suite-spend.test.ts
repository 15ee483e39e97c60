import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_FAKE_MODELS } from '../fakes/ollama';
import { OLLAMA_TEMPLATE_HASH, defaultOffers } from '../fakes/vast';
import { mustVast, startHarness, submit, waitForEnd, type Harness } from './harness';

/**
 * Issue 34 item 7: a suite on the marketplace with a judge and no max_cost_usd gets the default
 * spend limit of the settings, as every job that rents does: it is stopped at the limit, its
 * machine released.
 */

const BIG_MODEL = 'qwen2.5:32b';
const JUDGE_MODEL = 'qwen2.5:7b';

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
});

describe('a marketplace suite with a judge', () => {
  it('runs under the default spend limit when it sets none: stopped at it, machine released', async () => {
    const h = await startHarness({
      vast: { offers: defaultOffers().map((o) => ({ ...o, inet_down_cost: 0 })) },
      ollama: { models: DEFAULT_FAKE_MODELS, registry: [{ name: BIG_MODEL, size: 19_851_336_256, family: 'qwen2', parameter_size: '32.8B' }] },
      extra: { workflowTuning: { waitTimeoutMs: 8_000, pollIntervalMs: 5, releaseRetryDelayMs: 5, costUpdateIntervalMs: 50 } },
    });
    harnesses.push(h);
    h.bd.settings.updateAppSettings({ default_max_cost_usd: 0.00004 });
    h.ollama.setKnobs({ firstByteDelayMs: 30_000 });
    const id = await submit(h, 'suite', {
      suite_id: 'starter',
      scenario_ids: ['crashloop-db-password'],
      marketplace: true,
      template_hash: OLLAMA_TEMPLATE_HASH,
      max_dph: 0.5,
      model: BIG_MODEL,
      judge: { model: JUDGE_MODEL },
      estimated_duration_seconds: 1,
      backend_warmup: false,
    });
    const { job, events } = await waitForEnd(h, id, 30_000);
    expect(job.status, job.error ?? '').toBe('failed');
    expect(job.error_code).toBe('budget_exceeded');
    expect(events.find((e) => e.event === 'cost.update')?.labels.max_cost_usd).toBe(0.00004);
    const instanceId = job.resources?.marketplace_instance_id ?? -1;
    expect(mustVast(h).state.instances.get(instanceId)?.destroyed).toBe(true);
  });
});
