import { OBJECT_KINDS } from '../kube-objects';
import { GetResourcesArgsSchema } from '../kube-wire';
import { describeObject } from './describe-object';
import { defineTool } from './tool';

export const getResourcesTool = defineTool({
  name: 'get_resources',
  description:
    'List objects of another kind with the fields a diagnosis needs: services (selector, ports), endpoints (ready addresses), ' +
    'persistentvolumeclaims/persistentvolumes/storageclasses, configmaps (keys), resourcequotas (used/hard), jobs (conditions), ' +
    'cronjobs (schedule, suspend), networkpolicies (rules), ingresses (backends), roles and rolebindings, deployments (replicas, strategy, images, nodeSelector), statefulsets, daemonsets, replicasets.',
  properties: {
    kind: { type: 'string', description: `One of: ${OBJECT_KINDS.join(', ')} (kubectl short names such as svc, pvc, netpol, quota, cj work too).` },
    namespace: { type: 'string', description: 'Only this namespace. Omit for all namespaces.' },
    name: { type: 'string', description: 'Only the object with this name.' },
  },
  required: ['kind'],
  args: GetResourcesArgsSchema,
  async run({ kind, namespace, name }, { kube, signal }) {
    const objects = (await kube.listObjects(kind, namespace, signal)).filter((x) => !name || (x.metadata as { name?: unknown } | undefined)?.name === name);
    const scope = `${name ? ` named ${name}` : ''}${namespace ? ` in namespace ${namespace}` : ' in all namespaces'}`;
    if (objects.length === 0) return `No ${kind}${scope}.`;
    return `${objects.length} ${kind}${scope}:\n${objects.map((x) => describeObject(kind, x)).join('\n')}`;
  },
});
