import type { AgentTool } from './tool';
import { getNodeConditionsTool } from './get-node-conditions';
import { getPodLogsTool } from './get-pod-logs';
import { getResourcesTool } from './get-resources';
import { listNamespacesTool } from './list-namespaces';
import { listUnavailableDeploymentsTool } from './list-unavailable-deployments';
import { listUnhealthyPodsTool } from './list-unhealthy-pods';
import { listWarningEventsTool } from './list-warning-events';

export type { AgentTool, ToolContext, ToolOutcome } from './tool';

/** The built-in agent's read-only tool set, in the order the model sees them. */
export const KUBERNETES_TOOLS: readonly AgentTool[] = [
  listUnhealthyPodsTool,
  listWarningEventsTool,
  getPodLogsTool,
  listUnavailableDeploymentsTool,
  getNodeConditionsTool,
  getResourcesTool,
  listNamespacesTool,
];

/** The tools whose output makes the cluster summary for models without tool support. */
export const SUMMARY_TOOLS: readonly AgentTool[] = [
  listUnhealthyPodsTool,
  listWarningEventsTool,
  listUnavailableDeploymentsTool,
  getNodeConditionsTool,
];
