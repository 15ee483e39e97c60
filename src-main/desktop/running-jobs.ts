import { isStreamReset, type BenchdeskClient, type JobEvent } from '../../shared';

/**
 * The number of running jobs, for the tray tooltip and the dock/taskbar badge. It is recounted on
 * the events that change a job's status (from the live feed, no polling), with at most one count
 * in flight: events that arrive meanwhile trigger exactly one more count afterwards.
 */

const STATUS_EVENTS = new Set(['job.queued', 'job.running', 'job.succeeded', 'job.failed', 'job.cancelled']);

export function isStatusEvent(event: Pick<JobEvent, 'event'>): boolean {
  return STATUS_EVENTS.has(event.event);
}

/** The badge's text: empty for none, "99+" past two digits. */
export function badgeText(running: number): string {
  if (running <= 0) return '';
  return running > 99 ? '99+' : String(running);
}

export function trayTooltip(running: number, phase: 'running' | 'background' | 'closing' = 'running'): string {
  if (phase === 'closing') return 'benchdesk — releasing machines and stopping jobs before quitting';
  const jobs = running === 0 ? 'no jobs running' : `${running} ${running === 1 ? 'job' : 'jobs'} running`;
  return phase === 'background' ? `benchdesk — ${jobs} (in the background)` : `benchdesk — ${jobs}`;
}

/** Counts running jobs with listJobs, following the cursor (the running set is small: the concurrency limit). */
export async function countRunningJobs(client: Pick<BenchdeskClient, 'listJobs'>, signal?: AbortSignal): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  for (let page = 0; page < 100; page += 1) {
    const res = await client.listJobs({ status: 'running', limit: 200, ...(cursor ? { cursor } : {}) }, signal ? { signal } : undefined);
    count += res.jobs.length;
    if (!res.next_cursor) break;
    cursor = res.next_cursor;
  }
  return count;
}

export class RunningJobsTracker {
  private inFlight: Promise<void> | undefined;
  private again = false;
  private last: number | undefined;

  constructor(
    private readonly options: {
      count: () => Promise<number>;
      /** Called when the number changes (and once for the first count). */
      onChange: (running: number) => void;
      onError?: (err: unknown) => void;
    },
  ) {}

  get current(): number | undefined {
    return this.last;
  }

  /** Recounts now (or once more after the count in flight). Resolves when the count is applied. */
  refresh(): Promise<void> {
    if (this.inFlight) {
      this.again = true;
      return this.inFlight;
    }
    this.inFlight = (async () => {
      do {
        this.again = false;
        try {
          const n = await this.options.count();
          if (n !== this.last) {
            this.last = n;
            this.options.onChange(n);
          }
        } catch (err) {
          this.options.onError?.(err);
        }
      } while (this.again);
    })().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  /** Feed every job event here; only status changes cause a recount. */
  onEvent(event: Pick<JobEvent, 'event'>): void {
    if (isStatusEvent(event)) void this.refresh();
  }
}

/**
 * Follows the tenant's live event feed and keeps the tracker current until `signal` aborts.
 * The feed is `streamEvents` of the in-process client: the same feed the renderer and SSE use.
 */
export async function followRunningJobs(
  client: Pick<BenchdeskClient, 'listJobs' | 'streamEvents'>,
  tracker: RunningJobsTracker,
  signal: AbortSignal,
): Promise<void> {
  await tracker.refresh();
  const feed = client.streamEvents({}, { signal });
  try {
    for await (const event of feed) {
      if (signal.aborted) break;
      // A reset means events were missed: count again from the store.
      if (isStreamReset(event)) void tracker.refresh();
      else tracker.onEvent(event);
    }
  } catch (err) {
    if (!signal.aborted) throw err;
  }
}
