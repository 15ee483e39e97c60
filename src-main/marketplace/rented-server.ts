import { OLLAMA_CONTAINER_PORT } from './template';

/**
 * What a rented machine serves, as its template runs it (design §13b, reference §F.4): Ollama
 * (the model pulled after boot, port 11434) or vLLM (the model loaded at start from `MODEL_NAME`,
 * the OpenAI-compatible server on port 8000). The env a rent sends and the container port it
 * publishes and waits for follow from it.
 */

export type RentedServer = 'ollama' | 'vllm';

/** vLLM's OpenAI-compatible server inside the container (`vllm serve`, the vLLM template). */
export const VLLM_CONTAINER_PORT = 8000;

/** The container port the machine is reached on. */
export function serverPort(server: RentedServer): number {
  return server === 'vllm' ? VLLM_CONTAINER_PORT : OLLAMA_CONTAINER_PORT;
}

/**
 * The env that tells the template which model to serve: Ollama's template pulls `OLLAMA_MODEL`;
 * the vLLM template serves `MODEL_NAME` (a Hugging Face id), loading it at start.
 */
export function modelEnv(server: RentedServer, model: string): Record<string, string> {
  return server === 'vllm' ? { MODEL_NAME: model } : { OLLAMA_MODEL: model };
}

/** What the server is called in messages. */
export function serverName(server: RentedServer): string {
  return server === 'vllm' ? 'vLLM' : 'Ollama';
}
