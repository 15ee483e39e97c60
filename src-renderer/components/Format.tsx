import { elapsedMs, formatAbsolute, formatDph, formatDuration, formatRelative, formatUsd } from '../lib/format';
import { useNow } from './useNow';

/** Dollars; `perHour` adds "/h". Tabular digits so live values do not shift the layout. */
export function Money({ usd, perHour = false, title }: { usd: number | null | undefined; perHour?: boolean; title?: string }) {
  return (
    <span className="num" title={title}>
      {perHour ? formatDph(usd) : formatUsd(usd)}
    </span>
  );
}

/** A duration in ms; with `since` (and no `ms`) it counts up live from that timestamp. */
export function Duration({ ms, since, until }: { ms?: number | null; since?: string | null; until?: string | null }) {
  if (ms === undefined && since) return <LiveDuration since={since} until={until ?? null} />;
  return <span className="num">{formatDuration(ms ?? null)}</span>;
}

function LiveDuration({ since, until }: { since: string; until: string | null }) {
  const now = useNow();
  return <span className="num">{formatDuration(elapsedMs(since, until, now))}</span>;
}

/** "5 min ago", with the absolute local time on hover (and for screen readers via <time>). */
export function RelativeTime({ iso }: { iso: string | null | undefined }) {
  const now = useNow();
  if (!iso) return <span className="muted">—</span>;
  return (
    <time dateTime={iso} title={formatAbsolute(iso)}>
      {formatRelative(iso, now)}
    </time>
  );
}

/** A machine's cost counting up live: its rate × the time since it was rented, plus what its model downloads cost (billed once). */
export function RunningCost({ dph, since, until, downloadUsd }: { dph: number; since: string; until?: string | null; downloadUsd?: number | null }) {
  const now = useNow();
  const ms = elapsedMs(since, until ?? null, now) ?? 0;
  const download = downloadUsd ?? 0;
  return (
    <span className="num" title={`${formatDph(dph)} × ${formatDuration(ms)}${download > 0 ? ` + ${formatUsd(download)} download` : ''}`}>
      {formatUsd((dph * ms) / 3_600_000 + download)}
    </span>
  );
}
