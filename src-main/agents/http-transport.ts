import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import { DriverHttpAcceptedSchema, DriverHttpJobSchema } from './driver-wire';
import { AgentError, agentCodeOfWire, errorMessage, formatDuration } from './errors';
import { DEFAULT_DRIVER_TIMEOUT_MS, type DriverCallOptions, type DriverTransport } from './transport';

/**
 * The HTTP driver transport (remote driver sidecars): POST {url}/v1/actions/{action} with
 * {params} → {job_id}, then poll GET {url}/v1/jobs/{job_id} until the job is terminal. Bounded in
 * time and response size, abortable; a cancel is passed on to the sidecar (best effort).
 */

const SUCCESS = new Set(['succeeded', 'success', 'completed']);
const FAILURE = new Set(['failed', 'error', 'cancelled', 'canceled']);
const MAX_POLL_FAILURES = 3;

export type HttpTransportOptions = {
  url: string;
  label?: string;
  token?: string;
  tenant?: string;
  timeoutMs?: number;
  /** Upper bound of the poll interval; polling starts faster and backs off to this. */
  pollIntervalMs?: number;
  maxResponseBytes?: number;
  fetch?: typeof fetch;
};

async function readBounded(res: Response, max: number, label: string): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > max) throw new AgentError('output_too_large', `${label} sent a response of ${declared} bytes (limit ${max})`);
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      throw new AgentError('output_too_large', `${label} sent more than ${max} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export class HttpDriverTransport implements DriverTransport {
  readonly description: string;
  private readonly base: string;
  private readonly label: string;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: HttpTransportOptions) {
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new AgentError('invalid_driver', `driver URL is not a valid URL: ${options.url}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new AgentError('invalid_driver', `driver URL must be http:// or https://: ${options.url}`);
    }
    this.base = url.href.replace(/\/+$/, '');
    this.description = this.base;
    this.label = options.label ?? `HTTP driver at ${this.base}`;
    this.fetchImpl = options.fetch ?? fetch;
  }

  async call(action: string, params: Record<string, unknown>, callOptions: DriverCallOptions = {}): Promise<unknown> {
    if (callOptions.signal?.aborted) throw new AgentError('cancelled', `${this.label} was cancelled before it started`);
    const timeoutMs = callOptions.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_DRIVER_TIMEOUT_MS;
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = callOptions.signal ? AbortSignal.any([callOptions.signal, deadline]) : deadline;
    let jobId: string | null = null;
    try {
      const accepted = await this.request('POST', `/v1/actions/${encodeURIComponent(action)}`, { params }, signal, DriverHttpAcceptedSchema);
      jobId = accepted.job_id;
      return await this.poll(jobId, signal);
    } catch (err) {
      if (callOptions.signal?.aborted) {
        if (jobId) void this.cancelRemote(jobId);
        throw new AgentError('cancelled', `${this.label} was cancelled`, {}, { cause: err });
      }
      if (deadline.aborted) {
        if (jobId) void this.cancelRemote(jobId);
        throw new AgentError('timeout', `${this.label} did not finish within ${formatDuration(timeoutMs)}`, {}, { cause: err });
      }
      throw err;
    }
  }

  private async poll(jobId: string, signal: AbortSignal): Promise<unknown> {
    const maxInterval = this.options.pollIntervalMs ?? 1000;
    let interval = Math.min(100, maxInterval);
    let failures = 0;
    for (;;) {
      let job: z.infer<typeof DriverHttpJobSchema>;
      try {
        job = await this.request('GET', `/v1/jobs/${encodeURIComponent(jobId)}`, undefined, signal, DriverHttpJobSchema);
        failures = 0;
      } catch (err) {
        // A blip while polling is retried; a response that breaks the protocol is not.
        if (signal.aborted || !(err instanceof AgentError && err.code === 'http') || ++failures >= MAX_POLL_FAILURES) throw err;
        job = { status: 'pending' };
      }
      const status = job.status.toLowerCase();
      if (SUCCESS.has(status)) return job.result ?? {};
      if (FAILURE.has(status)) {
        throw new AgentError(agentCodeOfWire(job.code), `${this.label} reported job ${status}: ${job.error ?? job.message ?? '(no message)'}`);
      }
      await sleep(interval, undefined, { signal });
      interval = Math.min(interval * 2, maxInterval);
    }
  }

  private async request<T>(method: string, path: string, body: unknown, signal: AbortSignal, schema: z.ZodType<T>): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.options.token) {
      headers.authorization = `Bearer ${this.options.token}`;
      headers['x-api-key'] = this.options.token;
    }
    if (this.options.tenant) headers['x-tenant-id'] = this.options.tenant;

    let res: Response;
    try {
      res = await this.fetchImpl(`${this.base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (err) {
      throw new AgentError('http', `${this.label} is unreachable (${method} ${path}): ${errorMessage(err)}`, {}, { cause: err });
    }
    const text = await readBounded(res, this.options.maxResponseBytes ?? 4 * 1024 * 1024, this.label);
    if (!res.ok) {
      throw new AgentError('http', `${this.label} answered HTTP ${res.status} to ${method} ${path}: ${text.slice(0, 300)}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new AgentError('invalid_json', `${this.label} answered ${method} ${path} with non-JSON: ${text.slice(0, 200)}`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new AgentError('invalid_response', `${this.label} answered ${method} ${path} with an unexpected shape: ${parsed.error.issues[0]?.message ?? ''}`);
    }
    return parsed.data;
  }

  private async cancelRemote(jobId: string): Promise<void> {
    try {
      await this.fetchImpl(`${this.base}/v1/jobs/${encodeURIComponent(jobId)}/cancel`, {
        method: 'POST',
        headers: this.options.token ? { authorization: `Bearer ${this.options.token}` } : {},
        signal: AbortSignal.timeout(2000),
      });
    } catch {
      // Best effort: the sidecar's own limits end the job otherwise.
    }
  }
}
