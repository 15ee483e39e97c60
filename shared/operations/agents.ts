import { z } from 'zod';
import { AgentListSchema } from '../agents';
import type { OperationDef } from './common';

/** The agents a job can ask. */
export const AGENT_OPERATIONS = {
  listAgents: {
    summary: 'The agents a job can ask: builtin, the bundled holmes and k8sgpt drivers, and registered drivers',
    description: 'Every agent this server knows, with where it comes from (built in, bundled, settings, environment) and how it is reached: the values `agent` takes in a job request.',
    tags: ['agents'],
    method: 'GET',
    path: '/v1/agents',
    input: z.object({}).strict(),
    output: AgentListSchema,
    status: 200,
  },
} as const satisfies Record<string, OperationDef>;
