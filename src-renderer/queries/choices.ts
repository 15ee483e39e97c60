import { useQuery } from '@tanstack/react-query';
import type { AgentList, MarketplaceTemplateList } from '../../shared';
import type { BenchdeskApiError } from '../../shared/client';
import { useApi } from '../bridge';

/** The Launch form's choices: the agents and the marketplace's templates (neither changes often). */
export const choiceKeys = {
  agents: ['agents'] as const,
  templates: (q: string) => ['templates', q] as const,
};

export function useAgents() {
  const api = useApi();
  return useQuery<AgentList, BenchdeskApiError>({
    queryKey: choiceKeys.agents,
    queryFn: ({ signal }) => api.listAgents({}, { signal }),
    staleTime: 5 * 60_000,
  });
}

/** Templates by name or hash (`q`); '' lists the recommended ones. The server keeps the marketplace's answers a while too. */
export function useTemplates(q: string, enabled = true) {
  const api = useApi();
  return useQuery<MarketplaceTemplateList, BenchdeskApiError>({
    queryKey: choiceKeys.templates(q),
    queryFn: ({ signal }) => api.searchTemplates(q ? { q } : {}, { signal }),
    enabled,
    staleTime: 5 * 60_000,
  });
}
