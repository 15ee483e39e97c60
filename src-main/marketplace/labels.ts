/**
 * The label benchdesk puts on every machine it rents: `benchdesk:<install_id>:<job_id>`. The install id
 * tells one data dir's machines from another's (a teammate, a second laptop, the CLI in `--local` mode
 * on another data dir), so one install never counts another's machines as its orphans. Labels of
 * older versions, `benchdesk:<job_id>`, stay readable: they are ours when one of our job records names them.
 */

export const LABEL_PREFIX = 'benchdesk:';
/** An install id: lower-case letters and digits (one `:`-free label segment). */
export const INSTALL_ID_PATTERN = /^[a-z0-9]{6,32}$/;
/** Longest job id a label may carry (job ids are UUIDs). */
const MAX_JOB_ID = 128;

export function jobLabel(installId: string, jobId: string): string {
  return `${LABEL_PREFIX}${installId}:${jobId}`;
}

/** The label versions before install ids wrote. */
export function legacyJobLabel(jobId: string): string {
  return `${LABEL_PREFIX}${jobId}`;
}

/** Every label a job's machine may carry (ours, then the older form): what a label lookup searches. */
export function labelsOfJob(installId: string, jobId: string): string[] {
  return [jobLabel(installId, jobId), legacyJobLabel(jobId)];
}

/** `installId` null: the older label form, which names no install. */
export type ParsedLabel = { installId: string | null; jobId: string };

/** What a `benchdesk:` label says, or null for any other label (not ours to touch). */
export function parseLabel(label: string | null | undefined): ParsedLabel | null {
  if (!label?.startsWith(LABEL_PREFIX)) return null;
  const rest = label.slice(LABEL_PREFIX.length);
  const colon = rest.indexOf(':');
  if (colon < 0) return rest.length > 0 && rest.length <= MAX_JOB_ID ? { installId: null, jobId: rest } : null;
  const installId = rest.slice(0, colon);
  const jobId = rest.slice(colon + 1);
  if (!INSTALL_ID_PATTERN.test(installId) || jobId.length === 0 || jobId.length > MAX_JOB_ID || jobId.includes(':')) return null;
  return { installId, jobId };
}
