import { normaliseBackendUrl } from '../llm/backend-url';

/**
 * A job request's backend URLs in the form the server uses them: a bare `host:port` (accepted, and
 * read as http://) becomes `http://host:port`, so the request the API echoes back (the job record)
 * is a URL, as its `format: uri` says (issue 34 item 9). A URL that does not read is left as it
 * is: the job's validation names it.
 */
export function withNormalisedBackendUrls<T>(request: T): T {
  if (typeof request !== 'object' || request === null) return request;
  const record = request as Record<string, unknown>;
  let out: Record<string, unknown> = record;
  const url = normalised(record.backend_url);
  if (url !== undefined) out = { ...out, backend_url: url };
  const judge = record.judge;
  if (typeof judge === 'object' && judge !== null) {
    const judgeUrl = normalised((judge as Record<string, unknown>).backend_url);
    if (judgeUrl !== undefined) out = { ...out, judge: { ...judge, backend_url: judgeUrl } };
  }
  return out as T;
}

function normalised(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = normaliseBackendUrl(value);
    return url === value ? undefined : url;
  } catch {
    return undefined;
  }
}
