import { describe, expect, it } from 'vitest';
import { ev } from '../../test-helpers';
import { eventLevel, filterEvents, labelsText } from './event-filter';

describe('event log filters', () => {
  const events = [
    ev(1, 'job.queued'),
    ev(2, 'phase.provision', 'started'),
    ev(3, 'marketplace.instance.create', 'error', { message: 'offer 42 was taken', error_type: 'OfferGone' }),
    ev(4, 'agent.stderr', 'info', { message: 'WARNING: slow cluster', labels: { agent: 'holmes' } }),
    ev(5, 'agent.tool_call', 'ok', { labels: { tool: 'get_pod_logs', namespace: 'shop' } }),
    ev(6, 'job.failed', 'info', { message: 'the llmserver did not answer' }),
  ];

  it('tells errors and warnings from routine steps', () => {
    expect(events.map(eventLevel)).toEqual(['normal', 'normal', 'error', 'warn', 'normal', 'error']);
    expect(eventLevel({ event: 'x.step', status: 'ok', error_type: 'Retry' })).toBe('warn');
  });

  it('filters by level and by words in the name, message and labels', () => {
    const seqs = (f: Parameters<typeof filterEvents>[1]) => filterEvents(events, f).map((e) => e.seq);
    expect(seqs({ level: 'all', text: '' })).toEqual([1, 2, 3, 4, 5, 6]);
    expect(seqs({ level: 'error', text: '' })).toEqual([3, 6]);
    expect(seqs({ level: 'warn', text: '' })).toEqual([3, 4, 6]);
    expect(seqs({ level: 'all', text: 'SHOP' })).toEqual([5]);
    expect(seqs({ level: 'all', text: 'agent holmes' })).toEqual([4]);
    expect(seqs({ level: 'error', text: 'taken' })).toEqual([3]);
    expect(seqs({ level: 'all', text: 'nothing' })).toEqual([]);
    expect(filterEvents(events, { level: 'all', text: '  ' })).toBe(events);
  });

  it('writes labels as key=value, empty ones left out', () => {
    expect(labelsText({ labels: { tool: 'x', n: 2, empty: '', none: null, ok: true } })).toBe('tool=x n=2 ok=true');
  });
});
