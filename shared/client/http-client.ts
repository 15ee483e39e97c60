import { STREAM_OPERATION_NAMES, UNARY_OPERATION_NAMES, type BenchdeskClient, type CallOptions } from '../operations';
import { streamOperation } from './event-stream';
import { createTransport } from './transport';

/**
 * The typed client over the local /v1 HTTP API. Web-standard globals only (fetch, AbortSignal,
 * TextDecoder), so the renderer's browser mode, the CLI and scripts all use this one client:
 * transport.ts sends one request, event-stream.ts follows a live stream.
 */
export type HttpClientOptions = {
  /** e.g. `http://127.0.0.1:8080`; '' = the page's own origin. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer`; null/undefined when auth is disabled. */
  token?: string | null | undefined;
  /** Sent as `X-Tenant-ID` when set. */
  tenant?: string | undefined;
  fetch?: typeof fetch;
  /** Reconnect backoff for streams. */
  retry?: { initialMs: number; maxMs: number };
  /** Reconnect a stream that sent nothing (not even a heartbeat) for this long. */
  idleTimeoutMs?: number;
};

export function createHttpClient(options: HttpClientOptions): BenchdeskClient {
  const transport = createTransport(options);
  const streamOptions = { retry: options.retry ?? { initialMs: 1_000, maxMs: 30_000 }, idleTimeoutMs: options.idleTimeoutMs ?? 75_000 };
  const client: Record<string, unknown> = {};
  for (const name of UNARY_OPERATION_NAMES) client[name] = (input: unknown, o?: CallOptions) => transport.unary(name, input, o);
  for (const name of STREAM_OPERATION_NAMES) client[name] = (input: unknown, o?: CallOptions) => streamOperation(transport, name, input, o, streamOptions);
  return client as BenchdeskClient;
}
