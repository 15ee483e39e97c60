/** The app's pages (design §8). Only Overview has content in step 1; the rest say so honestly. */
export const PAGES = [
  { id: 'overview', label: 'Overview', ready: true, summary: 'Connection to the benchdesk API.' },
  {
    id: 'estimate',
    label: 'Estimate',
    ready: false,
    summary: 'Cost estimate form, live marketplace offers, and charts of offer prices and cost against duration.',
  },
  {
    id: 'launch',
    label: 'Launch',
    ready: false,
    summary: 'Benchmark, agent and LLM-instance forms with inline validation, a pre-flight estimate and a spend confirmation.',
  },
  { id: 'jobs', label: 'Jobs', ready: false, summary: 'Job list with filters and live status, fast with 10,000 jobs.' },
  {
    id: 'job-detail',
    label: 'Job detail',
    ready: false,
    summary: 'Phase timeline, live event stream, the answer rendered as markdown, cost, and cancel.',
  },
  { id: 'models', label: 'Models', ready: false, summary: 'Marketplace catalog, and the models of a backend with their running state.' },
  {
    id: 'compare',
    label: 'Compare',
    ready: false,
    summary: 'Benchmarks side by side: model, GPU, durations, tokens/s and $ per run.',
  },
  {
    id: 'settings',
    label: 'Settings',
    ready: false,
    summary: 'API token (show, copy, rotate), marketplace key, defaults and data directory.',
  },
] as const;

export type PageId = (typeof PAGES)[number]['id'];
export type PageInfo = (typeof PAGES)[number];

export function pageInfo(id: PageId): PageInfo {
  const page = PAGES.find((p) => p.id === id);
  if (!page) throw new Error(`unknown page ${id}`);
  return page;
}
