import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_FAKE_MODELS } from '../fakes/ollama';
import { OLLAMA_TEMPLATE_HASH } from '../fakes/vast';
import { injectDiskFull, type DiskFull } from '../helpers/disk-full';
import { destroyCalls, getJob, line, mustVast, startHarness, submit, tempDir, waitForEvent, waitUntil, type Harness } from '../workflows/harness';

/**
 * The product on a full disk, through the HTTP API: writes answer 507 naming the data dir, health
 * says degraded, nothing refused shows up as a job, a job holding a rented machine still releases
 * it, and everything works again once space is freed, without a restart.
 */

const MODEL = 'qwen3:8b';
const FIRST_INSTANCE = 30000001;

const open: { h: Harness; disk: DiskFull }[] = [];
afterEach(async () => {
  for (const { h, disk } of open.splice(0)) {
    disk.full = false;
    disk.restore();
    await h.close();
  }
});

async function fullDiskHarness(): Promise<{ h: Harness; disk: DiskFull }> {
  const dir = await tempDir('benchdesk-fullapi-');
  // Installed before the product opens the data dir, so its long-lived handles are covered.
  const disk = await injectDiskFull(dir);
  const h = await startHarness({
    dataDir: dir,
    vast: true,
    ollama: { models: DEFAULT_FAKE_MODELS, registry: [{ name: MODEL, size: 5_200_000_000, family: 'qwen3', parameter_size: '8.2B' }] },
  });
  open.push({ h, disk });
  return { h, disk };
}

describe('a full data dir, through the API', () => {
  it('answers 507 and degraded health, lists no refused job, releases a rented machine, and recovers without a restart', async () => {
    const { h, disk } = await fullDiskHarness();
    const vast = mustVast(h);
    vast.setKnob('outcome', 'never_ready');
    const id = await submit(h, 'llm-instance', {
      marketplace: true,
      template_hash: OLLAMA_TEMPLATE_HASH,
      max_dph: 1,
      reliability: 0.99,
      model: MODEL,
    });
    await waitForEvent(h, id, (e) => line(e) === 'marketplace.instance.wait_running:info' && e.labels.actual_status === 'loading', 'the instance loading');
    expect((await h.get('/healthz')).body).toMatchObject({ status: 'ok' });

    disk.full = true;
    // A new job: 507 problem naming the data dir and the cause.
    const refused = await h.post('/v1/jobs/llm-instance', { backend_url: 'http://127.0.0.1:9' });
    expect(refused.status).toBe(507);
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(refused.body).toMatchObject({ status: 507, code: 'insufficient_storage' });
    expect(String(refused.body.detail)).toContain(h.dir);
    expect(String(refused.body.detail)).toContain('ENOSPC');

    const health = await h.get('/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'degraded' });
    expect(String(health.body.reason)).toContain(h.dir);

    // Only the job that was stored is listed.
    const listed = await h.get('/v1/jobs?limit=50');
    expect((listed.body.jobs as { job_id: string }[]).map((j) => j.job_id)).toEqual([id]);

    // Cancel the job holding the machine: its events cannot be written, the machine is released anyway.
    const cancel = await h.post(`/v1/jobs/${id}/cancel`, {});
    expect(cancel.status).toBe(202);
    await waitUntil(() => vast.state.instances.get(FIRST_INSTANCE)?.destroyed === true, 'the rented instance to be destroyed');
    expect(destroyCalls(vast, FIRST_INSTANCE).deletes).toBeGreaterThanOrEqual(1);
    // Its end is not durable yet, so it is not shown as ended; it is retried, not lost.
    expect((await getJob(h, id)).status).toBe('running');

    disk.full = false;
    await waitUntil(async () => (await h.get('/healthz')).body.status === 'ok', 'health to recover');
    const ended = await waitUntil(async () => {
      const job = await getJob(h, id);
      return job.status === 'cancelled' ? job : null;
    }, 'the job to end cancelled');
    expect(ended.finished_at).not.toBeNull();
    // Writes work again without a restart.
    const again = await h.post('/v1/jobs/llm-instance', { backend_url: 'http://127.0.0.1:9' });
    expect(again.status).toBe(202);
  });

  it('a machine destroyed while the disk is full is recorded as released once space returns, and stays so after a restart', async () => {
    const { h, disk } = await fullDiskHarness();
    const vast = mustVast(h);
    vast.setKnob('outcome', 'never_ready');
    const id = await submit(h, 'llm-instance', { marketplace: true, template_hash: OLLAMA_TEMPLATE_HASH, max_dph: 1, reliability: 0.99, model: MODEL });
    await waitForEvent(h, id, (e) => line(e) === 'marketplace.instance.wait_running:info' && e.labels.actual_status === 'loading', 'the instance loading');
    expect((await getJob(h, id)).resources).toMatchObject({ marketplace_instance_id: FIRST_INSTANCE, marketplace_instance_released: false });

    const warnings: string[] = [];
    const warn = vi.spyOn(h.bd.log, 'warn').mockImplementation((msg: string) => void warnings.push(msg));
    disk.full = true;
    expect((await h.post(`/v1/jobs/${id}/cancel`, {})).status).toBe(202);
    // The marketplace confirms the destroy while nothing can be written; the disk stays full until
    // the workflow is over and the engine retries the job's end.
    await waitUntil(() => vast.state.instances.get(FIRST_INSTANCE)?.destroyed === true, 'the rented instance to be destroyed');
    await waitUntil(() => warnings.some((w) => w.startsWith('cannot record the end of a job')), 'the end of the job to be retried');
    warn.mockRestore();
    disk.full = false;
    const ended = await waitUntil(async () => {
      const job = await getJob(h, id);
      return job.status === 'cancelled' ? job : null;
    }, 'the job to end cancelled');
    // From the marketplace's confirmation, not the state before the disk filled up.
    expect(ended.resources).toMatchObject({ marketplace_instance_id: FIRST_INSTANCE, marketplace_instance_released: true });
    const destroys = destroyCalls(vast, FIRST_INSTANCE).deletes;

    // After a restart (the journal and job files replayed) the record says the same, and nothing is released twice.
    const dir = h.dir;
    await h.closeProduct();
    const again = await startHarness({ dataDir: dir, start: true, reuse: { ollama: h.ollama, vast } });
    try {
      expect((await getJob(again, id)).resources).toMatchObject({ marketplace_instance_released: true });
      const listed = await again.get('/v1/marketplace/instances');
      expect(listed.status).toBe(200);
      expect(JSON.stringify(listed.body)).not.toContain(String(FIRST_INSTANCE));
      expect(destroyCalls(vast, FIRST_INSTANCE).deletes).toBe(destroys);
    } finally {
      await again.closeProduct();
    }
  });
});
