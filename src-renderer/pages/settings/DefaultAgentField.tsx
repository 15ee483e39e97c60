import type { ReactNode } from 'react';
import { AgentOptions } from '../../components/AgentOptions';
import { Field } from '../../components/Field';
import { useAgents } from '../../queries/choices';

/**
 * The default agent: a select of the agents this server registered (GET /v1/agents), the same list Launch offers.
 * '' means "not set" (jobs use builtin). While the list loads the select is disabled; when it cannot be read the
 * saved value stays selectable and a retry is offered, so the rest of the form can still be saved.
 */
export function DefaultAgentField({ value, error, effect, onChange }: { value: string; error: string | null; effect: ReactNode; onChange: (v: string) => void }) {
  const agents = useAgents();
  const list = agents.data?.agents ?? [];
  const known = value === '' || list.some((a) => a.name === value);
  const state = agents.isError ? 'error' : agents.isPending ? 'loading' : 'ready';
  const hint = agents.isError ? (
    <>
      The registered agents could not be read ({agents.error.problem.detail || agents.error.message}).{' '}
      <button type="button" className="button button-small" onClick={() => void agents.refetch()} data-testid="set-agent-retry">
        Retry
      </button>
    </>
  ) : agents.isPending ? (
    'Reading the registered agents…'
  ) : agents.data.warnings.length > 0 ? (
    `The agents Launch offers. Ignored driver entries: ${agents.data.warnings.join('; ')}`
  ) : (
    'The agents Launch offers: built in, bundled drivers and drivers you registered.'
  );
  const notRegistered = agents.data && !known ? `Agent '${value}' is not registered on this server; choose one from the list` : null;
  return (
    <Field label="Agent" hint={<>{hint} {effect}</>} error={error ?? notRegistered} testId="field-default_agent">
      <select value={value} onChange={(e) => onChange(e.target.value)} disabled={state === 'loading'} data-testid="set-agent" data-state={state} aria-busy={state === 'loading'}>
        <option value="">{state === 'loading' ? 'Loading agents…' : 'Not set (builtin)'}</option>
        <AgentOptions value={value} list={agents.data} />
      </select>
    </Field>
  );
}
