import { GetNodeConditionsArgsSchema, type KubeNode } from '../kube-wire';
import { oneLine } from './format';
import { defineTool } from './tool';

const PRESSURE = ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'NetworkUnavailable'];

function describeNode(node: KubeNode): { healthy: boolean; text: string } {
  const conditions = node.status?.conditions ?? [];
  const problems: string[] = [];
  const ready = conditions.find((c) => c.type === 'Ready');
  if (!ready || ready.status !== 'True') {
    const detail = ready ? `Ready=${ready.status}${ready.reason ? ` ${ready.reason}` : ''}${ready.message ? `: ${oneLine(ready.message, 200)}` : ''}` : 'no Ready condition';
    problems.push(`NotReady (${detail})`);
  }
  for (const c of conditions) {
    if (PRESSURE.includes(c.type) && c.status === 'True') problems.push(`${c.type}${c.message ? ` (${oneLine(c.message, 150)})` : ''}`);
  }
  if (node.spec?.unschedulable) problems.push('cordoned (SchedulingDisabled)');
  const taints = (node.spec?.taints ?? []).filter((t) => t.effect === 'NoSchedule' || t.effect === 'NoExecute');
  if (taints.length) problems.push(`taints: ${taints.map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`).join(', ')}`);
  return { healthy: problems.length === 0, text: `- ${node.metadata.name}: ${problems.length ? problems.join('; ') : 'Ready'}` };
}

export const getNodeConditionsTool = defineTool({
  name: 'get_node_conditions',
  description:
    'Show every node with its health: NotReady nodes (Ready False/Unknown), memory/disk/PID pressure, network unavailable, ' +
    'cordoned (unschedulable) nodes and NoSchedule/NoExecute taints.',
  properties: {
    node: { type: 'string', description: 'Only this node. Omit for all nodes.' },
  },
  args: GetNodeConditionsArgsSchema,
  async run({ node }, { kube, signal }) {
    const nodes = (await kube.listNodes(signal)).filter((n) => !node || n.metadata.name === node);
    if (nodes.length === 0) return node ? `Node ${node} not found.` : 'No nodes found.';
    const described = nodes.map(describeNode);
    const unhealthy = described.filter((d) => !d.healthy).length;
    return `${nodes.length} nodes, ${unhealthy} with problems:\n${described.map((d) => d.text).join('\n')}`;
  },
});
