/** How the registry talks to an out-of-process driver: one action call, one result. */
export type DriverCallOptions = {
  signal?: AbortSignal;
  /** Each line the driver writes to stderr (stdio drivers only). */
  onStderr?: (line: string) => void;
  /** Overrides the transport's time limit for this call. */
  timeoutMs?: number;
};

export interface DriverTransport {
  /** For messages and listings: the command line or URL. */
  readonly description: string;
  /** Sends `{action, params}` and returns the driver's `result` (unvalidated: the caller parses it per action). */
  call(action: string, params: Record<string, unknown>, options?: DriverCallOptions): Promise<unknown>;
}

export const DEFAULT_DRIVER_TIMEOUT_MS = 300_000;

/** The `version` our own drivers report to `info`. */
export const DRIVER_VERSION = '1';

/**
 * Environment variable through which the registry tells our own driver processes (holmes,
 * k8sgpt) how long their CLI may run. Not under BENCHDESK_DRIVER_, which names drivers.
 */
export const AGENT_TIMEOUT_ENV = 'BENCHDESK_AGENT_TIMEOUT_MS';
