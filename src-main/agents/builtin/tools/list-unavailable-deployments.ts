import { ListUnavailableDeploymentsArgsSchema, type KubeDeployment } from '../kube-wire';
import { oneLine, qualified } from './format';
import { defineTool } from './tool';

/** The API omits counts that are 0 (availableReplicas and friends): a missing count is 0. */
function describe(d: KubeDeployment): string | null {
  const desired = d.spec?.replicas ?? 1;
  const s = d.status;
  const available = s?.availableReplicas ?? 0;
  const ready = s?.readyReplicas ?? 0;
  const updated = s?.updatedReplicas ?? 0;
  const unavailable = s?.unavailableReplicas ?? Math.max(0, desired - available);
  const badConditions = (s?.conditions ?? []).filter(
    (c) => (c.type === 'Available' || c.type === 'Progressing' || c.type === 'ReplicaFailure') && c.status !== (c.type === 'ReplicaFailure' ? 'False' : 'True'),
  );
  if (available >= desired && unavailable === 0 && badConditions.length === 0) return null;
  const conds = badConditions.map((c) => `${c.type}=${c.status}${c.reason ? ` ${c.reason}` : ''}${c.message ? `: ${oneLine(c.message, 200)}` : ''}`);
  return `${available}/${desired} available (ready ${ready}, updated ${updated}, unavailable ${unavailable})${conds.length ? `; ${conds.join('; ')}` : ''}`;
}

export const listUnavailableDeploymentsTool = defineTool({
  name: 'list_unavailable_deployments',
  description:
    'List deployments that do not have all desired replicas available, with their replica counts and failing conditions ' +
    '(e.g. MinimumReplicasUnavailable, ProgressDeadlineExceeded).',
  properties: {
    namespace: { type: 'string', description: 'Only this namespace. Omit for all namespaces.' },
  },
  args: ListUnavailableDeploymentsArgsSchema,
  async run({ namespace }, { kube, signal }) {
    const deployments = await kube.listDeployments(namespace, signal);
    const lines: string[] = [];
    for (const d of deployments) {
      const problem = describe(d);
      if (problem) lines.push(`- ${qualified(d.metadata.namespace, d.metadata.name)}: ${problem}`);
    }
    const scope = namespace ? `in namespace ${namespace}` : 'in all namespaces';
    if (lines.length === 0) return `All ${deployments.length} deployments ${scope} are fully available.`;
    return `${lines.length} deployments ${scope} are not fully available (of ${deployments.length}):\n${lines.join('\n')}`;
  },
});
