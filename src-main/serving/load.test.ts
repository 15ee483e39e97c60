import { describe, expect, it } from 'vitest';
import { closedLoop, runLevel, type SendRequest } from './load';
import type { RequestOutcome } from './request';

const sample = (ttftMs: number): RequestOutcome => ({ ok: true, ttftMs, e2eMs: ttftMs + 10, tpotMs: 1, itlMs: [1], outputTokens: 11, promptTokens: 5, evalCount: 11, evalDurationNs: 11e6 });

/** A send whose requests finish when the test says, recording how many are in flight. */
function gatedSend() {
  const pending: { index: number; finish: (o: RequestOutcome) => void; fail: (e: Error) => void }[] = [];
  const sent: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const send: SendRequest = (index, signal) =>
    new Promise<RequestOutcome>((resolve, reject) => {
      sent.push(index);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const done = () => void inFlight--;
      signal.addEventListener('abort', () => {
        done();
        reject(new Error('aborted'));
      }, { once: true });
      pending.push({ index, finish: (o) => (done(), resolve(o)), fail: (e) => (done(), reject(e)) });
    });
  return { send, pending, sent, get inFlight() { return inFlight; }, get maxInFlight() { return maxInFlight; } };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('closedLoop', () => {
  it('keeps exactly c requests in flight until all are started, then drains', async () => {
    const g = gatedSend();
    const run = closedLoop(10, 4, 1, g.send, new AbortController().signal);
    await tick();
    expect(g.inFlight).toBe(4);
    for (let finished = 0; finished < 10; finished++) {
      await tick();
      const expected = Math.min(4, 10 - finished);
      expect(g.inFlight).toBe(expected);
      g.pending.shift()?.finish(sample(finished));
    }
    const outcomes = await run;
    expect(outcomes).toHaveLength(10);
    expect(g.maxInFlight).toBe(4);
    expect(g.sent).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('counts a send that throws as one failed request and goes on', async () => {
    let n = 0;
    const outcomes = await closedLoop(3, 2, 0, async () => {
      if (n++ === 1) throw new Error('connection reset');
      return sample(5);
    }, new AbortController().signal);
    expect(outcomes.filter((o) => !o.ok)).toEqual([{ ok: false, error: 'connection reset' }]);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(2);
  });

  it('rejects at once on abort, with every request in flight aborted, and starts no more', async () => {
    const g = gatedSend();
    const ac = new AbortController();
    const run = closedLoop(100, 8, 0, g.send, ac.signal);
    await tick();
    expect(g.inFlight).toBe(8);
    ac.abort(new Error('cancelled'));
    await expect(run).rejects.toThrow('cancelled');
    expect(g.inFlight).toBe(0);
    expect(g.sent).toHaveLength(8);
  });
});

describe('runLevel', () => {
  it('runs the warm-up requests first, leaves them out, and times the measured ones only', async () => {
    let clock = 0;
    const sent: number[] = [];
    const send: SendRequest = async (index) => {
      sent.push(index);
      clock += 100;
      return sample(index);
    };
    const run = await runLevel({ concurrency: 2, requests: 4, warmup: 3, firstIndex: 10 }, send, new AbortController().signal, () => clock);
    expect(sent).toEqual([10, 11, 12, 13, 14, 15, 16]);
    expect(run.outcomes.map((o) => (o.ok ? o.ttftMs : -1))).toEqual([13, 14, 15, 16]);
    // 4 measured requests × 100 on the test clock; the 3 warm-up ones (300) are outside the window.
    expect(run.durationMs).toBe(400);
  });
});
