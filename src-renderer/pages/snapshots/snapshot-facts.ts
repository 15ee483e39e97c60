import type { SnapshotSummary } from '../../../shared';

/** Who uses a snapshot, as links: a suite ("suite starter"), a job ("job 1f3c…"), or a plain holder. */
export type UseOf = { kind: 'suite' | 'job' | 'other'; id: string; text: string };

export function usesOf(usedBy: readonly string[]): UseOf[] {
  return usedBy.map((text) => {
    const m = /^(suite|job) (\S+)$/.exec(text);
    return m ? { kind: m[1] as 'suite' | 'job', id: m[2] ?? '', text } : { kind: 'other', id: '', text };
  });
}

/** The counts a list row shows, in kubectl's words. */
export function countsLine(s: Pick<SnapshotSummary, 'counts'>): string {
  const c = s.counts;
  const part = (n: number, one: string, many: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
  return [part(c.pods, 'pod', 'pods'), part(c.events, 'event', 'events'), part(c.nodes, 'node', 'nodes'), part(c.logs, 'log', 'logs')].join(' · ');
}
