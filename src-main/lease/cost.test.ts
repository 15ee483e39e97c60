import { afterEach, describe, expect, it, vi } from 'vitest';
import { costOf, leaseCost, machineUsd, roundUsd } from './cost';
import { MemoryLeaseBook } from './lease-book';
import type { LeaseRecord } from './lease-record';
import { Ledger } from './ledger';
import { SpendGuard } from './spend-guard';

/** The one cost formula, its one rounding, the ledger's spend items and the one spend-limit check. */

const T0 = Date.parse('2026-11-22T10:00:00Z');

function lease(over: Partial<LeaseRecord> = {}): LeaseRecord {
  return {
    lease_id: 'job-1',
    tenant_id: 'default',
    owner: { kind: 'job', job_id: 'job-1', job_kind: 'benchmark' },
    label: 'benchdesk:aaaaaaaaaaaa:job-1',
    state: 'held',
    instance_id: 7,
    offer: null,
    dph_total: 0.36,
    disk_gb: 40,
    rented_at: new Date(T0).toISOString(),
    released_at: null,
    downloads: [],
    max_cost_usd: null,
    release_when_interrupted: true,
    hunt_until: null,
    release_error: null,
    created_at: new Date(T0).toISOString(),
    updated_at: new Date(T0).toISOString(),
    ...over,
  };
}

describe('the cost formula', () => {
  it('machine time × $/h plus every download at the host price, rounded to 1/1,000,000 $', () => {
    expect(machineUsd(0.36, T0, T0 + 3_600_000)).toBe(0.36);
    expect(machineUsd(0.36, T0, T0 + 10_000)).toBe(0.001);
    expect(machineUsd(0.36, T0 + 10_000, T0)).toBe(0);
    expect(roundUsd(0.1234565)).toBe(0.123457);
    const downloads = [
      { model: 'a', gb: 4.9, usd: 0.196, source: 'pull' as const },
      { model: 'b', gb: 2, usd: null, source: 'catalog' as const },
    ];
    expect(costOf({ dphTotal: 0.36, rentedAtMs: T0, releasedAtMs: null, downloads }, T0 + 1_800_000)).toEqual({
      dph_total: 0.36,
      rented_seconds: 1800,
      machine_usd: 0.18,
      download_gb: 6.9,
      download_usd: 0.196,
      cost_usd: 0.376,
      running: true,
    });
  });

  it('stops counting machine time at the release; nothing while nothing was rented', () => {
    const released = lease({ released_at: new Date(T0 + 600_000).toISOString(), state: 'released' });
    expect(leaseCost(released, T0 + 7_200_000)).toMatchObject({ cost_usd: 0.06, rented_seconds: 600, running: false });
    expect(leaseCost(lease({ dph_total: null, rented_at: null, state: 'renting' }), T0)).toMatchObject({ cost_usd: 0, running: false });
  });
});

describe('the ledger', () => {
  it('counts a tenant\'s leases on the day they were released (today while they bill), by the kind of work that held them', async () => {
    const ledger = new Ledger(new MemoryLeaseBook(), () => T0 + 3_600_000);
    await ledger.write(lease());
    await ledger.write(lease({ lease_id: 'sw-a-g0-a0', owner: { kind: 'sweep', sweep_id: 'sw-a', machine_id: 'sw-a-g0-a0', gpu: 'RTX 3090' }, released_at: new Date(T0 + 1_800_000).toISOString(), state: 'released' }));
    await ledger.write(lease({ lease_id: 'other', tenant_id: 'team-b' }));
    await ledger.write(lease({ lease_id: 'never', rented_at: null, dph_total: null, state: 'empty' }));
    const now = new Date(T0 + 3_600_000);
    const items = ledger.spendItems('default', now);
    expect(items.map((i) => [i.lease_id, i.kind, i.cost_usd, i.running_dph])).toEqual([
      ['job-1', 'benchmark', 0.36, 0.36],
      ['sw-a-g0-a0', 'sweep', 0.18, 0],
    ]);
    expect(ledger.sweepCost('sw-a')).toBe(0.18);
    expect(ledger.has('job-1')).toBe(true);
    expect(ledger.byInstance(7)?.lease_id).toBe('job-1');
  });

  it('a change is in memory (and heard) before the book has it: a write the disk refuses hides no cost', async () => {
    const book = new MemoryLeaseBook();
    book.put = async () => {
      throw new Error('ENOSPC: no space left on device');
    };
    const ledger = new Ledger(book, () => T0 + 3_600_000);
    const heard: string[] = [];
    ledger.onChange((l) => heard.push(l.state));
    await expect(ledger.write(lease({ downloads: [{ model: 'a', gb: 1, usd: 0.5, source: 'pull' }] }))).rejects.toThrow(/ENOSPC/);
    expect(heard).toEqual(['held']);
    expect(ledger.cost('job-1')?.cost_usd).toBe(0.86);
  });
});

describe('the spend-limit check', () => {
  afterEach(() => vi.useRealTimers());

  it('fires once when the cost reaches the limit, checked at least every 5 s on its own', async () => {
    vi.useFakeTimers();
    let cost = 0;
    const fired: number[] = [];
    const guard = new SpendGuard({ limit: 1, cost: () => cost, onExceeded: (c) => void fired.push(c), intervalMs: 60_000 }).start();
    cost = 1.2;
    // Even asked for a 60 s cadence, it looks within 5 s.
    await vi.advanceTimersByTimeAsync(5_000);
    expect(fired).toEqual([1.2]);
    cost = 3;
    expect(guard.check()).toBe(true);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(fired).toEqual([1.2]);
    guard.stop();
  });

  it('no limit never fires; a throwing cost or handler is reported, not thrown', () => {
    const errors: unknown[] = [];
    expect(new SpendGuard({ limit: null, cost: () => 99, onExceeded: () => undefined }).check()).toBe(false);
    const broken = new SpendGuard({
      limit: 1,
      cost: () => 2,
      onExceeded: () => {
        throw new Error('stop failed');
      },
      onError: (e) => void errors.push(e),
    });
    expect(broken.check()).toBe(true);
    expect(String(errors[0])).toMatch(/stop failed/);
  });
});
