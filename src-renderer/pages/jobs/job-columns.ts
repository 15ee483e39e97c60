/**
 * The Jobs list's columns. The optional ones appear by window width (a question, the agent and
 * the sweep from 1440 px, the job id from 1800 px, the kind from 1100 px) unless the user chose
 * which to show; the grid's template follows the shown columns. Pure, so it is unit-tested.
 */
export type JobColumnId = 'status' | 'kind' | 'model' | 'question' | 'agent' | 'sweep' | 'created' | 'duration' | 'cost' | 'message' | 'id';
export type OptionalColumn = 'kind' | 'question' | 'agent' | 'sweep' | 'id';

export const OPTIONAL_COLUMNS: readonly { id: OptionalColumn; label: string; from: number }[] = [
  { id: 'kind', label: 'Kind', from: 1100 },
  { id: 'question', label: 'Question', from: 1440 },
  { id: 'agent', label: 'Agent', from: 1440 },
  { id: 'sweep', label: 'Sweep', from: 1440 },
  { id: 'id', label: 'Job ID', from: 1800 },
];

/** Each column's track in the grid, in order. */
const TRACKS: Record<JobColumnId, string> = {
  status: '100px',
  kind: '92px',
  model: 'minmax(90px, 0.8fr)',
  question: 'minmax(140px, 1.6fr)',
  agent: '76px',
  sweep: 'minmax(80px, 0.6fr)',
  created: '112px',
  duration: '80px',
  cost: '76px',
  message: 'minmax(150px, 2fr)',
  id: 'minmax(100px, 150px)',
};
const ORDER: readonly JobColumnId[] = ['status', 'kind', 'model', 'question', 'agent', 'sweep', 'created', 'duration', 'cost', 'message', 'id'];

/** The columns shown at this width, or those chosen (null: by width). */
export function shownColumns(width: number, chosen: readonly OptionalColumn[] | null): JobColumnId[] {
  const optional = new Set<string>(chosen ?? OPTIONAL_COLUMNS.filter((c) => width >= c.from).map((c) => c.id));
  return ORDER.filter((id) => !OPTIONAL_COLUMNS.some((c) => c.id === id) || optional.has(id));
}

export function gridTemplate(columns: readonly JobColumnId[]): string {
  return columns.map((c) => TRACKS[c]).join(' ');
}
