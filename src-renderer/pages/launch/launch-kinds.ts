import type { ComponentType } from 'react';
import type { JobKind } from '../../../shared';
import { JobRequestForm } from './JobRequestForm';
import { SuiteLaunch } from './SuiteLaunch';

/**
 * The kinds Launch offers, in order. Each brings its own form (a kind with other fields adds an
 * entry with its own component; the shared pieces are ModelField, AgentField, TemplateField,
 * SpendConfirm and the pure helpers of launch-form.ts and spend.ts).
 */
export type LaunchKindEntry = {
  kind: JobKind;
  label: string;
  what: string;
  Form: ComponentType<{ kind: JobKind }>;
};

export const LAUNCH_KINDS: readonly LaunchKindEntry[] = [
  { kind: 'benchmark', label: 'Benchmark', what: 'Provision (or use) an LLM backend, warm it up, ask an agent, tear down; every phase timed and costed.', Form: JobRequestForm },
  { kind: 'agentic-agent', label: 'Agent', what: 'Ask an agent a question against an LLM backend you already run.', Form: JobRequestForm },
  { kind: 'llm-instance', label: 'LLM instance', what: 'Check an existing llmserver, or rent a GPU machine running one and keep it up.', Form: JobRequestForm },
  {
    kind: 'serving-benchmark',
    label: 'Serving',
    what: 'Measure how fast a model is served, as vllm bench serve does (Ollama or an OpenAI-compatible engine: vLLM, SGLang, TGI, llama.cpp): TTFT, TPOT, ITL, tokens/s and goodput per concurrency or request-rate level, and $ per million tokens on a rented GPU.',
    Form: JobRequestForm,
  },
  {
    kind: 'suite',
    label: 'Suite',
    what: 'Score an agent and a model on a suite of recorded incidents: accuracy, latency and $ per correct answer, on an existing backend or one rented machine.',
    Form: SuiteLaunch,
  },
];
