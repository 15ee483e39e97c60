import { ServingWorkloadFields } from './ServingWorkloadFields';
import type { DraftBinding } from './use-launch-draft';

/**
 * The serving benchmark's load (design §13b): levels of concurrency or request rate, requests or a
 * duration per level, the dataset, the tokens asked, the SLOs and the warm-up. Mounted in the
 * Launch form's "What to run" panel for the serving kind.
 */
export function ServingLoadFields({ form }: { form: DraftBinding }) {
  return <ServingWorkloadFields draft={form.draft} set={form.set} errorOf={form.errorOf} touch={form.touch} />;
}
