import { afterEach, describe, expect, it } from 'vitest';
import { API_PATHS, JobEventSchema, type JobEvent } from '../../shared';
import { bodies } from '../helpers/handlers';
import { TOKENS, makeBench, removeDir, waitFor, waitForStatus, type TestBench } from '../helpers/bench';
import { openSse, type SseFrame, type SseStream } from '../helpers/sse';

const benches: TestBench[] = [];
const streams: SseStream[] = [];
afterEach(async () => {
  for (const s of streams.splice(0)) await s.close();
  for (const t of benches.splice(0)) {
    await t.close();
    await removeDir(t.dir);
  }
});

async function setup(sseHeartbeatMs?: number): Promise<{ t: TestBench; base: string }> {
  const t = await makeBench({ start: true, ...(sseHeartbeatMs ? { sseHeartbeatMs } : {}) });
  benches.push(t);
  const port = (t.bd.app.server.address() as { port: number }).port;
  return { t, base: `http://127.0.0.1:${port}` };
}

const auth = (tenant: keyof typeof TOKENS = 'default'): Record<string, string> => ({
  authorization: `Bearer ${TOKENS[tenant]}`,
  ...(tenant === 'default' ? {} : { 'x-tenant-id': tenant }),
});

async function submit(base: string, path: string, body: Record<string, unknown>, tenant: keyof typeof TOKENS = 'default'): Promise<string> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { ...auth(tenant), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(202);
  return ((await res.json()) as { job_id: string }).job_id;
}

async function sse(url: string, headers: Record<string, string>): Promise<SseStream> {
  const s = await openSse(url, headers);
  streams.push(s);
  return s;
}

function eventOf(frame: SseFrame): JobEvent {
  const event = JobEventSchema.parse(JSON.parse(frame.data ?? 'null'));
  expect(frame.id).toBe(String(event.seq));
  return event;
}

const isTerminal = (f: SseFrame) => f.data !== undefined && /"event":"job\.(succeeded|failed|cancelled)"/.test(f.data);

describe('SSE /v1/jobs/{id}/events', () => {
  it('streams the backlog then live events with id: = seq, and ends after the terminal event', async () => {
    const { t, base } = await setup();
    const id = await submit(base, '/v1/jobs/benchmark', bodies.benchmark('hold'));
    await t.recorder.startedJob(id);
    const s = await sse(`${base}${API_PATHS.jobEvents(id)}`, auth());
    expect(s.status).toBe(200);
    expect(s.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(s.headers.get('cache-control')).toContain('no-cache');
    const backlog = await s.collect((f) => f.data?.includes('"job.running"') ?? false);
    expect(backlog.map((f) => eventOf(f).event)).toEqual(['job.queued', 'job.running']);

    t.recorder.release(id);
    const live = await s.collect(isTerminal);
    const events = live.map(eventOf);
    expect(events.at(-1)).toMatchObject({ event: 'job.succeeded', job_id: id, status: 'ok' });
    const seqs = [...backlog.map(eventOf), ...events].map((e) => e.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(new Set(seqs).size).toBe(seqs.length);
    // the stream ends after the terminal event
    expect(await s.next()).toBeUndefined();
    // and matches the stored events exactly
    expect((await t.bd.store.listEvents(id)).map((e) => e.seq)).toEqual(seqs);
  });

  it('resumes after Last-Event-ID without gaps or duplicates', async () => {
    const { t, base } = await setup();
    const id = await submit(base, '/v1/jobs/benchmark', bodies.benchmark('hold'));
    await t.recorder.startedJob(id);
    const first = await sse(`${base}${API_PATHS.jobEvents(id)}`, auth());
    const got = await first.collect((f) => f.data?.includes('"job.queued"') ?? false);
    const lastId = got.at(-1)?.id ?? '';
    await first.close();

    t.recorder.release(id);
    await waitForStatus(t.bd, id, 'succeeded');
    const resumed = await sse(`${base}${API_PATHS.jobEvents(id)}`, { ...auth(), 'last-event-id': lastId });
    const rest = (await resumed.collect(isTerminal)).map(eventOf);
    // Read the stored events only now: the engine stores a job's end before its terminal event, so a read right
    // after the status turned could miss that event.
    const all = await t.bd.store.listEvents(id);
    expect(rest.map((e) => e.seq)).toEqual(all.filter((e) => e.seq > Number(lastId)).map((e) => e.seq));
    expect(rest[0]?.event).toBe('job.running');
    expect(await resumed.next()).toBeUndefined();

    // ?after= does the same; Last-Event-ID wins over ?after=
    const viaQuery = await sse(`${base}${API_PATHS.jobEvents(id)}?after=${lastId}`, auth());
    expect((await viaQuery.collect(isTerminal)).map((f) => f.id)).toEqual(rest.map((e) => String(e.seq)));
    const both = await sse(`${base}${API_PATHS.jobEvents(id)}?after=0`, { ...auth(), 'last-event-id': String(all.at(-2)?.seq) });
    expect((await both.collect(isTerminal)).map((f) => f.id)).toEqual([String(all.at(-1)?.seq)]);
  });

  it('a stream for a finished job replays it and ends; resuming after the terminal event ends too', async () => {
    const { t, base } = await setup();
    const id = await submit(base, '/v1/jobs/llm-instance', bodies.llm('fail'));
    await waitForStatus(t.bd, id, 'failed');
    const s = await sse(`${base}${API_PATHS.jobEvents(id)}`, auth());
    const frames = await s.collect(isTerminal);
    expect(frames.map((f) => eventOf(f).event)).toEqual(['job.queued', 'job.running', 'job.failed']);
    expect(await s.next()).toBeUndefined();

    const lastSeq = frames.at(-1)?.id ?? '';
    const after = await sse(`${base}${API_PATHS.jobEvents(id)}`, { ...auth(), 'last-event-id': lastSeq });
    expect(after.status).toBe(200);
    // nothing is left to send: the server ends the stream instead of holding it open forever
    let frame: SseFrame | undefined;
    do frame = await after.next(5000);
    while (frame && frame.data === undefined);
    expect(frame).toBeUndefined();
  });

  it("hands out a finished job's whole stored log, events after the terminal one included (a kept machine's release), then ends", async () => {
    const { t, base } = await setup();
    const id = await submit(base, '/v1/jobs/llm-instance', bodies.llm('fail'));
    await waitForStatus(t.bd, id, 'failed');
    await waitFor(async () => (await t.bd.service.getJobEvents('default', id)).events.some((e) => e.event === 'job.failed'));
    await t.bd.engine.emit(id, { event: 'marketplace.instance.release', status: 'info', message: 'released by hand', duration_ms: null, error_type: null, labels: { instance_id: 7 } });
    const s = await sse(`${base}${API_PATHS.jobEvents(id)}`, auth());
    const frames = await s.collect((f) => f.data?.includes('marketplace.instance.release') ?? false);
    expect(frames.filter((f) => f.data !== undefined).map((f) => eventOf(f).event)).toEqual(['job.queued', 'job.running', 'job.failed', 'marketplace.instance.release']);
    let frame: SseFrame | undefined;
    do frame = await s.next(5000);
    while (frame && frame.data === undefined);
    expect(frame).toBeUndefined();
  });

  it('sends heartbeat comments while idle', async () => {
    const { t, base } = await setup(25);
    const id = await submit(base, '/v1/jobs/agentic-agent', bodies.agent('hang'));
    await t.recorder.startedJob(id);
    const s = await sse(`${base}${API_PATHS.jobEvents(id)}`, auth());
    const frames = await s.collect((f) => f.comment === 'heartbeat', { keepComments: true });
    expect(frames.some((f) => f.retry !== undefined)).toBe(true);
    const more = await s.collect((f) => f.comment === 'heartbeat', { keepComments: true });
    expect(more.at(-1)?.comment).toBe('heartbeat');
    // a cancel still reaches the open stream, which then ends
    const cancel = await fetch(`${base}${API_PATHS.jobCancel(id)}`, { method: 'POST', headers: auth() });
    expect(cancel.status).toBe(202);
    const end = await s.collect(isTerminal);
    expect(eventOf(end.at(-1) as SseFrame).event).toBe('job.cancelled');
  });

  it('another tenant gets a 404 problem, not a stream; no credentials is a 401', async () => {
    const { t, base } = await setup();
    const id = await submit(base, '/v1/jobs/agentic-agent', bodies.agent('hang'), 'acme');
    await t.recorder.startedJob(id);
    const other = await fetch(`${base}${API_PATHS.jobEvents(id)}`, { headers: { ...auth(), accept: 'text/event-stream' } });
    expect(other.status).toBe(404);
    expect(other.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await other.json()) as { code: string }).code).toBe('job_not_found');
    const anon = await fetch(`${base}${API_PATHS.jobEvents(id)}`, { headers: { accept: 'text/event-stream' } });
    expect(anon.status).toBe(401);
    await anon.body?.cancel();
    // the owner's stream sees its events only
    const s = await sse(`${base}${API_PATHS.jobEvents(id)}`, auth('acme'));
    const mine = await submit(base, '/v1/jobs/llm-instance', bodies.llm('ok')); // default tenant, runs meanwhile
    await waitForStatus(t.bd, mine, 'succeeded');
    await fetch(`${base}${API_PATHS.jobCancel(id)}`, { method: 'POST', headers: auth('acme') });
    const frames = (await s.collect(isTerminal)).map(eventOf);
    expect(frames.every((e) => e.job_id === id)).toBe(true);
  });

  it('HEAD with Accept: text/event-stream answers headers and does not hold a stream open', async () => {
    const { t, base } = await setup();
    const id = await submit(base, '/v1/jobs/benchmark', bodies.benchmark('hold'));
    await t.recorder.startedJob(id);
    const res = await fetch(`${base}${API_PATHS.jobEvents(id)}`, { method: 'HEAD', headers: { ...auth(), accept: 'text/event-stream' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    t.recorder.release(id);
    await waitForStatus(t.bd, id, 'succeeded');
  });

  it('a client hanging up unsubscribes the stream (no listener leak)', async () => {
    const { t, base } = await setup(20);
    const id = await submit(base, '/v1/jobs/benchmark', bodies.benchmark('hold'));
    await t.recorder.startedJob(id);
    const before = t.bd.engine.bus.listenerCount();
    const a = await sse(`${base}${API_PATHS.jobEvents(id)}`, auth());
    const b = await sse(`${base}${API_PATHS.jobEvents(id)}`, auth());
    await a.collect((f) => f.data?.includes('"job.running"') ?? false);
    await b.collect((f) => f.data?.includes('"job.running"') ?? false);
    expect(t.bd.engine.bus.listenerCount()).toBe(before + 2);
    await a.close();
    await b.close();
    await waitFor(() => t.bd.engine.bus.listenerCount() === before, 'the streams to unsubscribe');
    t.recorder.release(id);
    await waitForStatus(t.bd, id, 'succeeded');
  });

  it('the server closes cleanly while a stream is open', async () => {
    const { t, base } = await setup();
    const id = await submit(base, '/v1/jobs/benchmark', bodies.benchmark('hold'));
    await t.recorder.startedJob(id);
    const s = await sse(`${base}${API_PATHS.jobEvents(id)}`, auth());
    await s.collect((f) => f.data?.includes('"job.running"') ?? false);
    await t.close(); // must not wait for the client to hang up
    let frame: SseFrame | undefined;
    do frame = await s.next(5000).catch(() => undefined);
    while (frame);
    const job = await waitForStatus(t.bd, id, ['failed', 'succeeded']);
    expect(job).toMatchObject({ status: 'failed', error_code: 'interrupted' });
  });
});

describe('SSE /v1/events (every job of the tenant)', () => {
  const frames = (list: SseFrame[]) => list.filter((f) => f.data).map((f) => JobEventSchema.parse(JSON.parse(f.data as string)));

  it("streams status changes of every job of the tenant, and none of another tenant's", async () => {
    const { t, base } = await setup(200);
    const mine = await sse(`${base}${API_PATHS.events}`, { ...auth('default'), accept: 'text/event-stream' });
    const theirs = await sse(`${base}${API_PATHS.events}`, { ...auth('acme'), accept: 'text/event-stream' });
    expect(mine.status).toBe(200);
    expect(mine.headers.get('content-type')).toContain('text/event-stream');
    await waitFor(() => t.bd.engine.bus.listenerCount() === 2, 'both feeds to subscribe');
    const a = await submit(base, '/v1/jobs/llm-instance', bodies.llm('ok'));
    const b = await submit(base, '/v1/jobs/agentic-agent', bodies.agent('ok'));
    const acmeJob = await submit(base, '/v1/jobs/llm-instance', bodies.llm('ok'), 'acme');
    await waitForStatus(t.bd, acmeJob, 'succeeded');
    const seen: JobEvent[] = [];
    await mine.collect((f) => {
      if (f.data) seen.push(JobEventSchema.parse(JSON.parse(f.data)));
      return [a, b].every((id) => seen.some((e) => e.job_id === id && e.event === 'job.succeeded'));
    });
    expect(new Set(seen.map((e) => e.job_id))).toEqual(new Set([a, b]));
    expect(seen.filter((e) => e.job_id === a).map((e) => e.event)).toEqual(expect.arrayContaining(['job.queued', 'job.running', 'job.succeeded']));
    const acmeSeen = frames(await theirs.collect((f) => f.data !== undefined && JSON.parse(f.data).event === 'job.succeeded'));
    expect(acmeSeen.every((e) => e.job_id === acmeJob)).toBe(true);
  });

  it('resumes after Last-Event-ID with what it missed, in order, without duplicates', async () => {
    const { t, base } = await setup(200);
    const id = await submit(base, '/v1/jobs/llm-instance', bodies.llm('ok'));
    await waitForStatus(t.bd, id, 'succeeded');
    const res = await fetch(`${base}${API_PATHS.jobEvents(id)}`, { headers: auth() });
    const events = ((await res.json()) as { events: JobEvent[] }).events;
    const from = events[1]?.seq as number;
    const resumed = await sse(`${base}${API_PATHS.events}`, { ...auth(), accept: 'text/event-stream', 'last-event-id': String(from) });
    const got = frames(await resumed.collect((f) => f.data !== undefined && JSON.parse(f.data).event === 'job.succeeded'));
    expect(got.map((e) => e.seq)).toEqual(events.filter((e) => e.seq > from).map((e) => e.seq));
  });

  it('needs credentials', async () => {
    const { base } = await setup();
    const res = await fetch(`${base}${API_PATHS.events}`, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
  });
});
