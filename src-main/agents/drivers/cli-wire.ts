import { z } from 'zod';

/** Output of the agent CLIs the bundled drivers run. Lenient: extra keys are dropped, omitted counts are absent. */

const Count = z.number().int().nonnegative();

// ---------------------------------------------------------------------------------------------
// HolmesGPT (`--json-output-file`, the LLMResult dump) and k8sgpt (`--output json`)

export const HolmesToolCallSchema = z.object({
  tool_call_id: z.string().nullish(),
  tool_name: z.string(),
  description: z.string().nullish(),
  result: z
    .object({
      status: z.string().nullish(),
      error: z.string().nullish(),
      return_code: z.number().nullish(),
      invocation: z.string().nullish(),
    })
    .nullish(),
});
export const HolmesLlmResultSchema = z.object({
  result: z.string().nullish(),
  tool_calls: z.array(HolmesToolCallSchema).nullish(),
  prompt_tokens: Count.nullish(),
  completion_tokens: Count.nullish(),
  total_tokens: Count.nullish(),
  total_cost: z.number().nullish(),
});
export type HolmesLlmResult = z.infer<typeof HolmesLlmResultSchema>;

export const K8sgptFailureSchema = z.object({
  Text: z.string(),
  KubernetesDoc: z.string().nullish(),
});
export const K8sgptResultSchema = z.object({
  kind: z.string(),
  name: z.string(),
  error: z.array(K8sgptFailureSchema).nullish(),
  details: z.string().nullish(),
  parentObject: z.string().nullish(),
});
export const K8sgptOutputSchema = z.object({
  provider: z.string().nullish(),
  errors: z.array(z.string()).nullish(),
  status: z.string(),
  problems: Count.nullish(),
  results: z.array(K8sgptResultSchema).nullish(),
});
export type K8sgptOutput = z.infer<typeof K8sgptOutputSchema>;
