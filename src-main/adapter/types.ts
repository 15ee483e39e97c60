import type { OperationName, OperationOutput, StreamOperationName, UnaryOperationName } from '../../shared';

/** Who is calling, and what the transport can carry back besides the body (HTTP headers). */
export type OperationContext = {
  tenantId: string;
  signal?: AbortSignal | undefined;
  /** Filled by handlers for HTTP (Location, Idempotent-Replayed); other transports ignore it. */
  responseHeaders?: Record<string, string>;
  /**
   * Streams: how many live items may wait for a consumer that is not taking them. Past that the
   * stream ends and `onOverflow` runs (over HTTP the connection is closed and the client resumes
   * with Last-Event-ID). Without it, a default bound applies.
   */
  streamLimit?: { maxQueued: number; maxQueuedBytes?: number; onOverflow(): void };
};

export type UnaryHandler<O extends OperationName> = (ctx: OperationContext, input: unknown) => Promise<OperationOutput<O>>;
/** Resolves once the stream is open (a 404 rejects here, before any item), then yields items. */
export type StreamHandler<O extends OperationName> = (ctx: OperationContext, input: unknown) => Promise<AsyncIterable<OperationOutput<O>>>;

/**
 * One implementation of every operation, for every transport: HTTP routes, IPC and the in-process
 * client all call these, so the same input gives the same answer and the same problem everywhere.
 * Inputs are raw (unknown): each handler checks them with the operation's schema.
 */
export type OperationHandlers = { [O in UnaryOperationName]: UnaryHandler<O> } & { [O in StreamOperationName]: StreamHandler<O> };
