import { AgentOptions } from '../../components/AgentOptions';
import { Field } from '../../components/Field';
import { useAgents } from '../../queries/choices';

/** The agent to ask: a select of the agents this server has registered. */
export function AgentField({ value, error, onChange, onBlur }: { value: string; error: string | null; onChange: (v: string) => void; onBlur: () => void }) {
  const agents = useAgents();
  const list = agents.data?.agents ?? [];
  const known = list.some((a) => a.name === value);
  const hint = agents.isError
    ? 'The agent list could not be read; the server checks the name when you launch.'
    : agents.data && agents.data.warnings.length > 0
      ? `Ignored driver entries: ${agents.data.warnings.join('; ')}`
      : 'builtin needs nothing else; holmes and k8sgpt need their command-line tools installed.';
  return (
    <Field label="Agent" hint={hint} error={error ?? (agents.data && value && !known ? `Agent '${value}' is not registered here` : null)}>
      <select name="agent" value={value} onChange={(e) => onChange(e.target.value)} onBlur={onBlur} data-testid="launch-agent" disabled={agents.isPending}>
        <AgentOptions value={value} list={agents.data} />
      </select>
    </Field>
  );
}
