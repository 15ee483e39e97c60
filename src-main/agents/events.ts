import type { EventInput } from '../events/timed';

/** What agents report: the one event-input shape (the engine adds the job id and stores each). */
export type AgentEvent = EventInput;

/** Where agents report what they do. Synchronous: the engine's side keeps the order (see event-sink.ts). */
export type AgentEventSink = (event: AgentEvent) => void;

/** A sink that never lets a faulty listener break the agent. */
export function safeSink(sink: AgentEventSink | undefined): AgentEventSink {
  return (event) => {
    try {
      sink?.(event);
    } catch {
      // Recording is best effort; the agent's work matters more.
    }
  };
}
