import { describe, expect, it } from 'vitest';
import type { JobEvent } from '../../shared';
import { EventBus } from './event-bus';

function event(seq: number, jobId = 'j'): JobEvent {
  return { seq, job_id: jobId, event: 'x', status: 'info', message: null, duration_ms: null, error_type: null, labels: {}, recorded_at: new Date(0).toISOString() };
}

describe('EventBus replay ring', () => {
  it("replays the tenant's events after a seq, oldest first, across the ring's wrap-around", () => {
    const bus = new EventBus(4);
    for (let seq = 1; seq <= 6; seq++) bus.publish(seq % 2 === 0 ? 'a' : 'b', event(seq));
    // The ring holds seqs 3..6: 'a' has 4 and 6 of them.
    expect(bus.replay('a', 3)).toEqual({ events: [event(4), event(6)], complete: true, oldestSeq: 3, newestSeq: 6 });
    expect(bus.replay('a', 2).complete).toBe(true);
    expect(bus.replay('b', 0).events.map((e) => e.seq)).toEqual([3, 5]);
    expect(bus.replay('b', 0).complete).toBe(false);
  });

  it('is complete when nothing was missed, including an empty ring', () => {
    const bus = new EventBus(3);
    expect(bus.replay('a', 0)).toEqual({ events: [], complete: true, oldestSeq: null, newestSeq: 0 });
    bus.publish('a', event(1));
    expect(bus.replay('a', 0)).toEqual({ events: [event(1)], complete: true, oldestSeq: 1, newestSeq: 1 });
  });

  it('is not complete for a position from before the bus started (a restart): those events were never in it', () => {
    const bus = new EventBus(3, { startSeq: 1000 });
    expect(bus.replay('a', 5)).toEqual({ events: [], complete: false, oldestSeq: null, newestSeq: 1000 });
    bus.publish('a', event(1001));
    expect(bus.replay('a', 5).complete).toBe(false);
    expect(bus.replay('a', 1000)).toEqual({ events: [event(1001)], complete: true, oldestSeq: 1001, newestSeq: 1001 });
  });
});
