import { describe, expect, it } from 'vitest';
import { errorTypeOf, roundMs, timed, type EventInput } from './timed';

/** A failure with a snake_case code, as providers and the engine's JobFailure carry one. */
class CodedError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

describe('timed', () => {
  it('emits started, then ok with a duration rounded to 0.1 ms and the labels done() adds', async () => {
    const events: EventInput[] = [];
    const value = await timed((e) => void events.push(e), 'x.step', async () => 42, { labels: { a: 1 }, done: (v) => ({ message: `got ${v}`, labels: { v } }) });
    expect(value).toBe(42);
    expect(events.map((e) => e.status)).toEqual(['started', 'ok']);
    expect(events[1]).toMatchObject({ event: 'x.step', message: 'got 42', labels: { a: 1, v: 42 } });
    const ms = events[1]?.duration_ms ?? -1;
    expect(ms).toBeGreaterThanOrEqual(0);
    expect(Math.round(ms * 10)).toBe(ms * 10);
  });

  it('emits error with the error code (or class name) and rethrows', async () => {
    const events: EventInput[] = [];
    const failing = timed((e) => void events.push(e), 'x.step', async () => {
      throw new CodedError('no_offers', 'no offer fits');
    });
    await expect(failing).rejects.toThrow('no offer fits');
    expect(events.at(-1)).toMatchObject({ status: 'error', error_type: 'no_offers', message: 'no offer fits' });
    await expect(timed(() => undefined, 'y', async () => Promise.reject(new TypeError('bad')))).rejects.toThrow('bad');
  });

  it('awaits an async sink in order; with a sync sink the step starts in the same tick', async () => {
    const order: string[] = [];
    await timed(async (e) => {
      await new Promise((r) => setTimeout(r, 5));
      order.push(e.status);
    }, 'x', async () => void order.push('run'));
    expect(order).toEqual(['started', 'run', 'ok']);

    let ran = false;
    const p = timed(() => undefined, 'x', async () => {
      ran = true;
    });
    expect(ran).toBe(true);
    await p;
  });
});

describe('errorTypeOf / roundMs', () => {
  it('prefers a snake_case code, else the class name', () => {
    expect(errorTypeOf(Object.assign(new Error('x'), { code: 'instance_failed' }))).toBe('instance_failed');
    expect(errorTypeOf(Object.assign(new Error('x'), { code: 'ECONNRESET' }))).toBe('Error');
    expect(errorTypeOf(new TypeError('x'))).toBe('TypeError');
    expect(errorTypeOf('boom')).toBe('error');
  });
  it('rounds to 0.1 ms', () => {
    expect(roundMs(12.345)).toBe(12.3);
    expect(roundMs(0.04)).toBe(0);
  });
});

describe('timed with a failure reported as a value', () => {
  it('closes with an error event carrying the error_type done() names, and returns the value', async () => {
    const events: EventInput[] = [];
    const value = await timed((e) => void events.push(e), 'x.release', async () => ({ verified: false }), {
      done: (r) => ({ message: 'not confirmed', labels: { verified: r.verified }, error_type: 'unverified' }),
    });
    expect(value).toEqual({ verified: false });
    expect(events.map((e) => e.status)).toEqual(['started', 'error']);
    expect(events[1]).toMatchObject({ error_type: 'unverified', message: 'not confirmed', labels: { verified: false } });
  });
});
