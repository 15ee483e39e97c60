import { GetPodLogsArgsSchema } from '../kube-wire';
import { defineTool } from './tool';
import { MAX_TOOL_OUTPUT_CHARS, truncateTail } from './truncate';

const DEFAULT_TAIL_LINES = 50;

export const getPodLogsTool = defineTool({
  name: 'get_pod_logs',
  description:
    'Read the last lines of a container log of a pod. Use previous=true to read the log of the previous (crashed) instance ' +
    'of a restarting container, which usually shows why it crashed.',
  properties: {
    namespace: { type: 'string', description: 'Namespace of the pod.' },
    pod: { type: 'string', description: 'Pod name.' },
    container: { type: 'string', description: 'Container name; required when the pod has several containers.' },
    tail_lines: { type: 'integer', description: `Number of lines from the end (1-500, default ${DEFAULT_TAIL_LINES}).` },
    previous: { type: 'boolean', description: 'Read the previous terminated instance of the container (default false).' },
  },
  required: ['namespace', 'pod'],
  args: GetPodLogsArgsSchema,
  async run(args, { kube, signal }) {
    const tailLines = args.tail_lines ?? DEFAULT_TAIL_LINES;
    const previous = args.previous ?? false;
    const text = await kube.readPodLog(
      { namespace: args.namespace, pod: args.pod, container: args.container, tailLines, previous, limitBytes: 4 * MAX_TOOL_OUTPUT_CHARS },
      signal,
    );
    const what = `${previous ? 'previous ' : ''}log of ${args.namespace}/${args.pod}${args.container ? ` container ${args.container}` : ''} (last ${tailLines} lines)`;
    const body = text.trim().length === 0 ? '(no log output)' : text.trimEnd();
    return truncateTail(`${what}:\n${body}`, MAX_TOOL_OUTPUT_CHARS - 200);
  },
});
