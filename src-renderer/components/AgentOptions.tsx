import { AGENT_SOURCE_WORDS, type AgentList } from '../../shared';

/**
 * The options of an agent select (Launch, Settings): each registered agent with where it comes from,
 * and the current value first when it is not in the list, marked once the list is known, so a saved
 * or typed name is never silently replaced.
 */
export function AgentOptions({ value, list }: { value: string; list: AgentList | undefined }) {
  const agents = list?.agents ?? [];
  const unknown = value !== '' && !agents.some((a) => a.name === value);
  return (
    <>
      {unknown ? (
        <option value={value}>
          {value}
          {list ? ' (not registered)' : ''}
        </option>
      ) : null}
      {agents.map((a) => (
        <option key={a.name} value={a.name}>
          {a.name} — {AGENT_SOURCE_WORDS[a.source]}
        </option>
      ))}
    </>
  );
}
