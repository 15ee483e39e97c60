import { ListWarningEventsArgsSchema, type KubeEvent } from '../kube-wire';
import { isoTime, oneLine, qualified, timeMs } from './format';
import { defineTool } from './tool';

const DEFAULT_LIMIT = 20;

/** Events created through events.k8s.io/v1 have no lastTimestamp, only eventTime. */
function eventTime(e: KubeEvent): Date | string | null | undefined {
  return e.lastTimestamp ?? e.series?.lastObservedTime ?? e.eventTime ?? e.metadata.creationTimestamp;
}

export const listWarningEventsTool = defineTool({
  name: 'list_warning_events',
  description:
    'List recent Warning events (newest first): back-offs, failed image pulls, failed scheduling, failing probes, OOM kills, ' +
    'failed mounts, with the object they are about and how many times they happened.',
  properties: {
    namespace: { type: 'string', description: 'Only this namespace. Omit for all namespaces.' },
    limit: { type: 'integer', description: `Most events to return (1-100, default ${DEFAULT_LIMIT}).` },
  },
  args: ListWarningEventsArgsSchema,
  async run({ namespace, limit }, { kube, signal }) {
    const events = (await kube.listWarningEvents(namespace, signal)).filter((e) => (e.type ?? 'Warning') === 'Warning');
    const scope = namespace ? `in namespace ${namespace}` : 'in all namespaces';
    if (events.length === 0) return `No Warning events ${scope}.`;
    events.sort((a, b) => (timeMs(eventTime(b)) ?? 0) - (timeMs(eventTime(a)) ?? 0));
    const shown = events.slice(0, limit ?? DEFAULT_LIMIT);
    const lines = shown.map((e) => {
      const obj = e.involvedObject;
      const target = `${obj.kind ?? '?'}/${qualified(obj.namespace, obj.name ?? '?')}`;
      const count = e.count ?? e.series?.count;
      return `- ${isoTime(eventTime(e)) ?? 'unknown time'} ${target} ${e.reason ?? ''}${count && count > 1 ? ` (x${count})` : ''}: ${oneLine(e.message)}`;
    });
    const more = events.length > shown.length ? ` (showing the newest ${shown.length})` : '';
    return `${events.length} Warning events ${scope}${more}:\n${lines.join('\n')}`;
  },
});
