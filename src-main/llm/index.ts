/** The llmserver (Ollama) layer: URL rules, client, model listing, warm-up, chat contract, errors. */
export * from './backend-url';
export * from './chat-types';
export * from './errors';
export * from './list-models';
export * from './llmserver-client';
export * from './model-entry';
export * from './model-name';
export * from './problem-map';
export type { WarmupOptions, WarmupResult } from './warmup';
