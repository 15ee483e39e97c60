import type { AgentResult } from '../../../shared/results';
import type { DriverAskParams } from '../driver-wire';
import type { LlmChat } from '../../llm/chat-types';
import { backendClient } from '../../llm/open-backend';
import type { AgentEventSink } from '../events';
import { runBuiltinAgent, type BuiltinAgentOptions } from './agent';
import { loadKubeReader, type KubeReader, type KubeReaderOptions } from './kube-client';

export { DEFAULT_MAX_STEPS } from './agent';

/** Makes the chat client for a request's backend (tests inject a scripted one). */
export type LlmFactory = (params: Pick<DriverAskParams, 'backend_url' | 'backend_api' | 'backend_api_key'>) => LlmChat;

/** Ollama's /api/chat or an OpenAI-compatible /v1/chat/completions (tools as OpenAI `tools`/`tool_calls`), as the job resolved the API. */
export const defaultLlmFactory: LlmFactory = (params) => backendClient({ backendUrl: params.backend_url, apiKey: params.backend_api_key }, params.backend_api);

export type BuiltinAskOptions = {
  llmFactory?: LlmFactory;
  /** Replaces loading the kubeconfig (tests). */
  kubeFactory?: (kubeconfigPath: string) => Promise<KubeReader>;
  kubeOptions?: KubeReaderOptions;
  maxSteps?: number;
  chatOptions?: BuiltinAgentOptions['chatOptions'];
  signal?: AbortSignal;
  onEvent?: AgentEventSink;
};

/** The request's sampling over the configured options: temperature 0 unless asked, the seed when given. */
function samplingOf(params: DriverAskParams, configured: BuiltinAskOptions['chatOptions']): BuiltinAskOptions['chatOptions'] {
  if (params.temperature === undefined && params.seed === undefined) return configured;
  return { ...(configured ?? {}), temperature: params.temperature ?? configured?.temperature ?? 0, ...(params.seed !== undefined ? { seed: params.seed } : {}) };
}

/** One `ask` of the built-in agent: load the kubeconfig, connect to the LLM, run the loop. */
export async function askBuiltin(params: DriverAskParams, options: BuiltinAskOptions = {}): Promise<AgentResult> {
  const kube = await (options.kubeFactory ?? ((p: string) => loadKubeReader(p, options.kubeOptions)))(params.kubeconfig);
  try {
    const llm = (options.llmFactory ?? defaultLlmFactory)(params);
    return await runBuiltinAgent(params.question, {
      llm,
      kube,
      model: params.model,
      maxSteps: options.maxSteps,
      chatOptions: samplingOf(params, options.chatOptions),
      signal: options.signal,
      onEvent: options.onEvent,
    });
  } finally {
    await kube.close();
  }
}
