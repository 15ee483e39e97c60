import { ListUnhealthyPodsArgsSchema } from '../kube-wire';
import { qualified } from './format';
import { describePodProblems } from './pod-health';
import { defineTool } from './tool';

export const listUnhealthyPodsTool = defineTool({
  name: 'list_unhealthy_pods',
  description:
    'List pods that are not healthy: crash-looping (CrashLoopBackOff), failing to pull images (ImagePullBackOff/ErrImagePull), ' +
    'OOMKilled or failing containers with restarts, unschedulable Pending pods, Failed pods and unready containers. ' +
    'Shows phase, waiting reasons, restart counts and the last termination reason and exit code.',
  properties: {
    namespace: { type: 'string', description: 'Only this namespace. Omit for all namespaces.' },
  },
  args: ListUnhealthyPodsArgsSchema,
  async run({ namespace }, { kube, signal }) {
    const pods = await kube.listPods(namespace, signal);
    const lines: string[] = [];
    for (const pod of pods) {
      const problems = describePodProblems(pod);
      if (problems) lines.push(`- ${qualified(pod.metadata.namespace, pod.metadata.name)}: ${problems}`);
    }
    const scope = namespace ? `in namespace ${namespace}` : 'in all namespaces';
    if (lines.length === 0) return `All ${pods.length} pods ${scope} look healthy.`;
    return `${lines.length} unhealthy pods ${scope} (of ${pods.length}):\n${lines.join('\n')}`;
  },
});
