import type { z } from 'zod';
import type { ChatToolDefinition, ToolParameterSchema } from '../../../llm/chat-types';
import { isAbortError } from '../kube-errors';
import type { KubeReader } from '../kube-client';
import { truncateHead } from './truncate';

/**
 * A read-only cluster tool the model may call: its Ollama definition, a zod schema for the
 * arguments the model writes, and a function producing bounded plain text. Invalid arguments and
 * Kubernetes failures come back as an error text for the model, never as a thrown error;
 * cancellation is the only thing that propagates.
 */

export type ToolContext = { kube: KubeReader; signal?: AbortSignal };
export type ToolOutcome = { ok: boolean; content: string };

export interface AgentTool {
  readonly name: string;
  readonly definition: ChatToolDefinition;
  execute(rawArgs: unknown, ctx: ToolContext): Promise<ToolOutcome>;
}

export type ToolSpec<S extends z.ZodType> = {
  name: string;
  description: string;
  properties: Record<string, ToolParameterSchema>;
  required?: string[];
  args: S;
  run(args: z.output<S>, ctx: ToolContext): Promise<string>;
};

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}

export function defineTool<S extends z.ZodType>(spec: ToolSpec<S>): AgentTool {
  const definition: ChatToolDefinition = {
    type: 'function',
    function: {
      name: spec.name,
      description: spec.description,
      parameters: { type: 'object', properties: spec.properties, ...(spec.required?.length ? { required: spec.required } : {}) },
    },
  };
  return {
    name: spec.name,
    definition,
    async execute(rawArgs, ctx) {
      const parsed = spec.args.safeParse(rawArgs ?? {});
      if (!parsed.success) {
        const expected = Object.keys(spec.properties).join(', ') || 'no arguments';
        return { ok: false, content: `error: invalid arguments for ${spec.name}: ${describeIssues(parsed.error)} (parameters: ${expected})` };
      }
      try {
        return { ok: true, content: truncateHead(await spec.run(parsed.data, ctx)) };
      } catch (err) {
        // Cancellation ends the agent; everything else is something the model should hear about.
        if (ctx.signal?.aborted || isAbortError(err)) throw err;
        const message = err instanceof Error ? err.message : String(err);
        return { ok: false, content: `error: ${message}` };
      }
    },
  };
}
