import { ListNamespacesArgsSchema } from '../kube-wire';
import { defineTool } from './tool';

export const listNamespacesTool = defineTool({
  name: 'list_namespaces',
  description: 'List the namespaces of the Kubernetes cluster with their phase (Active or Terminating).',
  properties: {},
  args: ListNamespacesArgsSchema,
  async run(_args, { kube, signal }) {
    const namespaces = await kube.listNamespaces(signal);
    if (namespaces.length === 0) return 'No namespaces found.';
    const lines = namespaces.map((ns) => `- ${ns.metadata.name} (${ns.status?.phase ?? 'unknown phase'})`);
    return `${namespaces.length} namespaces:\n${lines.join('\n')}`;
  },
});
