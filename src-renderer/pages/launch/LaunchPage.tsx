import { Page } from '../../components/Page';
import { ToggleGroup } from '../../components/ToggleGroup';
import { useUiStore } from '../../state/ui-store';
import type { JobKind } from '../../../shared';
import { KIND_LABELS } from '../../lib/job';
import { carriedFields, carriedInWords } from './launch-carry';
import { LAUNCH_KINDS } from './launch-kinds';
import './launch.css';

/** Launch: one entry per job kind (launch-kinds.ts), each with its own form. */
/** Switching kind carries what the form holds (the model, the offer's price range and rent mode) to the next kind's form. */
function useSwitchKind(kind: JobKind) {
  const setKind = useUiStore((s) => s.setLaunchKind);
  const prefill = useUiStore((s) => s.prefillLaunch);
  return (next: JobKind) => {
    const current = useUiStore.getState().launchDrafts[kind];
    const patch = current && next !== 'suite' && kind !== 'suite' ? carriedFields(current, kind, next) : null;
    if (patch) prefill(next, patch, `the ${KIND_LABELS[kind]} form (its ${carriedInWords(patch)})`, true);
    else setKind(next);
  };
}

export function LaunchPage() {
  const kind = useUiStore((s) => s.launchKind);
  const setKind = useSwitchKind(kind);
  const entry = LAUNCH_KINDS.find((k) => k.kind === kind) ?? LAUNCH_KINDS[0];
  if (!entry) return null;
  return (
    <Page title="Launch" subtitle="Start a benchmark, an agent run, an LLM instance, a serving benchmark or a suite run. Fields start from your saved defaults and are checked as you type, with the rules the API applies." testId="page-launch">
      <div className="launch-kind-row">
        <ToggleGroup
          label="Job kind"
          size="large"
          className="launch-kinds"
          value={entry.kind}
          options={LAUNCH_KINDS.map((k) => ({ value: k.kind, label: k.label, testId: `launch-kind-${k.kind}` }))}
          onChange={setKind}
        />
        <p className="muted launch-what">{entry.what}</p>
      </div>
      <entry.Form key={entry.kind} kind={entry.kind} />
    </Page>
  );
}
