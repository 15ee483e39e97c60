/**
 * The agents module's public surface (design §5): the registry the engine asks agents through,
 * the driver loop behind `benchdesk driver <agent>`, and the error type.
 */
export {
  createAgentRegistry,
  ENV_DRIVER_PREFIX,
  type AgentAskOptions,
  type AgentAskParams,
  type AgentDescriptor,
  type AgentRegistry,
  type AgentRegistryOptions,
  type AgentSource,
  type AgentTransportKind,
  type ResolvedAgent,
} from './registry';
export { BUNDLED_DRIVER_NAMES, runDriver, type DriverIo, type RunDriverOptions } from './driver-main';
export { AGENT_ERROR_CODES, AgentError, isAgentError, type AgentErrorCode } from './errors';
export type { AgentEvent, AgentEventSink } from './events';
export { resolveKubeconfigPath } from './kubeconfig-path';
export { DEFAULT_MAX_STEPS, defaultLlmFactory, type LlmFactory } from './builtin';
export { DEFAULT_DRIVER_TIMEOUT_MS } from './transport';
