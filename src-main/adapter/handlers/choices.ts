import type { AgentList } from '../../../shared';
import type { AgentRegistry } from '../../agents/registry';
import type { TemplateSearch } from '../../app/templates';
import { parseInput } from '../parse-input';
import type { OperationHandlers } from '../types';

type ChoiceOperation = 'listAgents' | 'searchTemplates';

export type ChoiceHandlerDeps = {
  agents: Pick<AgentRegistry, 'describeAgents' | 'warnings'>;
  templates: TemplateSearch;
};

/** What the Launch form offers to choose from: the registered agents and the marketplace's templates. */
export function choiceHandlers(deps: ChoiceHandlerDeps): Pick<OperationHandlers, ChoiceOperation> {
  return {
    async listAgents(_ctx, input) {
      parseInput('listAgents', input);
      const agents: AgentList['agents'] = deps.agents
        .describeAgents()
        .map((a) => ({ name: a.name, source: a.source, transport: a.transport }))
        .sort((a, b) => a.name.localeCompare(b.name));
      return { agents, warnings: [...deps.agents.warnings] };
    },
    async searchTemplates(_ctx, input) {
      return deps.templates(parseInput('searchTemplates', input));
    },
  };
}
