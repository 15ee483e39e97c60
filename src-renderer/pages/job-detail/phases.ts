import type { JobEvent, PhaseRecord } from '../../../shared';

export type PhaseBar = {
  name: string;
  status: 'running' | 'ok' | 'error' | 'skipped';
  /** ms since the first phase started. */
  offsetMs: number;
  durationMs: number;
};

/**
 * The phase timeline from the job's `phase.<name>` events (started, then ok/error with
 * duration_ms): live while the job runs, a still-open phase grows up to `now`. After the job the
 * result's `phases` (which also lists skipped ones) is used when present.
 */
export function phaseBars(events: readonly JobEvent[], resultPhases: readonly (Omit<PhaseRecord, 'name'> & { name: string })[] | null, now: number): PhaseBar[] {
  if (resultPhases && resultPhases.length > 0) {
    const t0 = Math.min(...resultPhases.map((p) => Date.parse(p.started_at)));
    return resultPhases.map((p) => ({ name: p.name, status: p.status, offsetMs: Math.max(0, Date.parse(p.started_at) - t0), durationMs: p.duration_ms }));
  }
  const bars: PhaseBar[] = [];
  const open = new Map<string, PhaseBar>();
  let t0: number | null = null;
  for (const e of events) {
    if (!e.event.startsWith('phase.')) continue;
    const name = e.event.slice('phase.'.length);
    const at = Date.parse(e.recorded_at);
    if (e.status === 'started') {
      t0 ??= at;
      const bar: PhaseBar = { name, status: 'running', offsetMs: at - t0, durationMs: Math.max(0, now - at) };
      open.set(name, bar);
      bars.push(bar);
    } else if (e.status === 'ok' || e.status === 'error') {
      const bar = open.get(name);
      const duration = e.duration_ms ?? 0;
      if (bar) {
        bar.status = e.status;
        bar.durationMs = duration;
        open.delete(name);
      } else {
        t0 ??= at - duration;
        bars.push({ name, status: e.status, offsetMs: at - duration - t0, durationMs: duration });
      }
    }
  }
  return bars;
}

export type ToolCall = { seq: number; tool: string; args: string; ok: boolean; durationMs: number | null; resultChars: number | null; step: number | null; error: string | null; at: string };

/** The agent's tool calls, from its `agent.tool_call` events. */
export function toolCalls(events: readonly JobEvent[]): ToolCall[] {
  return events
    .filter((e) => e.event === 'agent.tool_call')
    .map((e) => ({
      seq: e.seq,
      tool: typeof e.labels.tool === 'string' ? e.labels.tool : 'tool',
      args: typeof e.labels.arguments === 'string' ? e.labels.arguments : '',
      ok: e.status !== 'error',
      durationMs: e.duration_ms,
      resultChars: typeof e.labels.result_chars === 'number' ? e.labels.result_chars : null,
      step: typeof e.labels.step === 'number' ? e.labels.step : null,
      error: e.status === 'error' ? e.message : null,
      at: e.recorded_at,
    }));
}
