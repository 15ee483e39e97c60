import { beforeEach, describe, expect, it } from 'vitest';
import { ev } from '../test-helpers';
import { appendEvents, useEventStreamStore } from './event-stream';

describe('appendEvents', () => {
  it('appends newer events and keeps the same list when nothing is new', () => {
    const a = appendEvents([], [ev(1, 'job.queued'), ev(2, 'job.running')]);
    expect(a.map((e) => e.seq)).toEqual([1, 2]);
    const b = appendEvents(a, [ev(3, 'phase.provision', 'started')]);
    expect(b.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(appendEvents(b, [])).toBe(b);
  });

  it('drops duplicates from a resumed stream and merges out-of-order batches by seq', () => {
    const list = appendEvents([], [ev(1, 'a'), ev(2, 'b'), ev(4, 'd')]);
    const merged = appendEvents(list, [ev(2, 'b'), ev(3, 'c'), ev(5, 'e')]);
    expect(merged.map((e) => `${e.seq}${e.event}`)).toEqual(['1a', '2b', '3c', '4d', '5e']);
    expect(appendEvents(merged, [ev(5, 'e'), ev(1, 'a')]).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('useEventStreamStore', () => {
  beforeEach(() => useEventStreamStore.setState({ streams: {} }));

  it('keeps one log per job, with its stream state, and forgets it on drop', () => {
    const s = useEventStreamStore.getState();
    s.setState('a', 'live');
    s.append('a', [ev(1, 'job.running', 'info', { job_id: 'a' })]);
    s.append('b', [ev(2, 'job.queued', 'info', { job_id: 'b' })]);
    s.append('a', [ev(1, 'job.running', 'info', { job_id: 'a' }), ev(3, 'phase.warmup', 'started', { job_id: 'a' })]);
    const state = useEventStreamStore.getState().streams;
    expect(state.a?.events.map((e) => e.seq)).toEqual([1, 3]);
    expect(state.a?.state).toBe('live');
    expect(state.b?.events).toHaveLength(1);
    expect(state.b?.state).toBe('connecting');
    s.setState('a', 'error', 'gone');
    expect(useEventStreamStore.getState().streams.a).toMatchObject({ state: 'error', error: 'gone' });
    s.drop('a');
    expect(useEventStreamStore.getState().streams.a).toBeUndefined();
    expect(useEventStreamStore.getState().streams.b).toBeDefined();
  });

  it('does not notify subscribers when a batch adds nothing', () => {
    const s = useEventStreamStore.getState();
    s.append('a', [ev(1, 'x')]);
    let calls = 0;
    const unsub = useEventStreamStore.subscribe(() => calls++);
    s.append('a', [ev(1, 'x')]);
    unsub();
    expect(calls).toBe(0);
  });
});
