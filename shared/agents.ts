import { z } from 'zod';

/**
 * The agents a job can ask (GET /v1/agents): the built-in one, the bundled holmes/k8sgpt drivers,
 * and drivers registered in settings or the environment. The Launch form's agent select lists them.
 */
export const AgentEntrySchema = z.object({
  name: z.string(),
  /** builtin: ours, in-process; bundled: holmes/k8sgpt through our own drivers; settings / environment: registered by the user. */
  source: z.enum(['builtin', 'bundled', 'settings', 'environment']).describe('builtin · bundled (holmes, k8sgpt) · settings · environment'),
  transport: z.enum(['in-process', 'stdio', 'http']),
});
export type AgentEntry = z.infer<typeof AgentEntrySchema>;

export const AgentListSchema = z.object({
  /** Sorted by name. */
  agents: z.array(AgentEntrySchema),
  /** Driver entries that were ignored (a bad name or command line), so the user can fix them. */
  warnings: z.array(z.string()),
});
export type AgentList = z.infer<typeof AgentListSchema>;

/** Where an agent comes from, in words: the app's agent selects and `benchdesk agents` say it the same way. */
export const AGENT_SOURCE_WORDS: Record<AgentEntry['source'], string> = {
  builtin: 'built in',
  bundled: 'bundled driver',
  settings: 'registered in settings',
  environment: 'registered in the environment',
};
