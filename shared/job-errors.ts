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
    next: 'The job was stopped and its machine released when its cost reached its spend limit. Raise the limit to let it run longer.',
  },
  llmserver_unreachable: {
    title: 'The llmserver did not answer',
    next: 'Check that the backend URL is right and that Ollama runs there (ollama serve), then run the job again.',
  },
  llmserver_error: {
    title: 'The llmserver answered with an error',
    next: 'The message says what it refused; the llmserver.* events have its answer.',
  },
  model_not_found: {
    title: 'The model is not on the llmserver',
    next: 'Pull it there (ollama pull <model>) or pick one the Models page lists for that backend.',
  },
  warmup_timeout: {
    title: 'The model did not load in time',
    next: 'Allow a longer warm-up timeout, or pick a smaller model.',
  },
  no_offers: {
    title: 'No offer fits',
    next: 'Nothing was rented. Raise Max $/h, lower the reliability or pick a smaller model; the Estimate page shows the nearest offer.',
  },
  offers_exhausted: {
    title: 'Every fitting offer was taken',
    next: 'Nothing was rented: the offers that fit were rented by others first. Run the job again, or raise Max $/h for more offers.',
  },
  template_not_found: {
    title: 'The template does not exist',
    next: 'Nothing was rented. Pick the template by name in the form (editing a template on Vast.ai gives it a new hash).',
  },
  instance_failed: {
    title: 'The rented machine did not start',
    next: 'The machine was released. Run the job again: the next rent takes another offer.',
  },
  instance_gone: {
    title: 'The rented machine disappeared',
    next: 'The marketplace removed it while it started (the host went away). Run the job again.',
  },
  marketplace_not_configured: {
    title: 'No marketplace key',
    next: 'Set VAST_API_KEY for the server (or add the key in Settings in the desktop app), then run the job again.',
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
