/**
 * What a failed job's `error_code` means, in the user's words: the CLI and the app show the title
 * and what to do next beside the job's own `error`. Keyed on the code, so every front end says the
 * same thing. Codes not listed here are shown as they are.
 */

/** The ways asking an agent can fail, kept apart across the driver protocol (the driver wire error's `code`). */
export const AGENT_JOB_ERROR_CODES = ['agent_not_installed', 'agent_timeout', 'agent_bad_output', 'agent_failed'] as const;
export type AgentJobErrorCode = (typeof AGENT_JOB_ERROR_CODES)[number];

export type JobErrorWording = { title: string; next: string };

export const JOB_ERROR_WORDING: Readonly<Record<string, JobErrorWording>> = {
  agent_not_installed: {
    title: 'The agent is not installed',
    next: 'Install the agent program on the machine that runs benchdesk (the error says how), or choose another agent.',
  },
  agent_timeout: {
    title: 'The agent did not answer in time',
    next: 'Its processes were stopped. Try a smaller or already-loaded model, or allow more time with BENCHDESK_AGENT_TIMEOUT_S (default 300 s).',
  },
  agent_bad_output: {
    title: 'The agent answered something benchdesk cannot read',
    next: 'Its output did not follow the driver protocol; the agent.stderr events show what it printed. Check the agent’s version.',
  },
  agent_failed: {
    title: 'The agent failed',
    next: 'It ran and reported an error; the message and the agent.stderr events say why (often the model backend or the cluster).',
  },
  interrupted: {
    title: 'Interrupted',
    next: 'The server stopped while this job ran; any machine it rented was released. Submit it again.',
  },
  budget_exceeded: {
    title: 'Spend limit reached',
    next: 'The job was stopped and its machine released when its cost reached max_cost_usd. Raise the limit to let it run longer.',
  },
  serving_failed: {
    title: 'Every serving request failed',
    next: 'Nothing could be measured; the error is the first request’s failure (often a model the llmserver does not have, or a server that refuses the load). The serving.level events show each level.',
  },
};

/** The wording for a job's error_code, or null for none or an unknown code. */
export function jobErrorWording(code: string | null | undefined): JobErrorWording | null {
  return code ? (JOB_ERROR_WORDING[code] ?? null) : null;
}
