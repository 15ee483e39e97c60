import { Page } from '../../components/Page';
import { useUiStore } from '../../state/ui-store';
import { LAUNCH_KINDS } from './launch-kinds';
import './launch.css';

/** Launch: one entry per job kind (launch-kinds.ts), each with its own form. */
export function LaunchPage() {
  const kind = useUiStore((s) => s.launchKind);
  const setKind = useUiStore((s) => s.setLaunchKind);
  const entry = LAUNCH_KINDS.find((k) => k.kind === kind) ?? LAUNCH_KINDS[0];
  if (!entry) return null;
  const move = (delta: number) => {
    const i = LAUNCH_KINDS.findIndex((k) => k.kind === entry.kind);
    const next = LAUNCH_KINDS[(i + delta + LAUNCH_KINDS.length) % LAUNCH_KINDS.length];
    if (next) {
      setKind(next.kind);
      requestAnimationFrame(() => document.querySelector<HTMLElement>(`[data-testid="launch-kind-${next.kind}"]`)?.focus());
    }
  };
  return (
    <Page title="Launch" subtitle="Start a benchmark, an agent run or an LLM instance. Fields start from your saved defaults and are checked as you type, with the rules the API applies." testId="page-launch">
      <div className="launch-kinds">
        <div className="segmented segmented-lg" role="radiogroup" aria-label="Job kind">
          {LAUNCH_KINDS.map((k) => (
            <button
              key={k.kind}
              type="button"
              role="radio"
              aria-checked={entry.kind === k.kind}
              tabIndex={entry.kind === k.kind ? 0 : -1}
              className="segmented-item"
              onClick={() => setKind(k.kind)}
              onKeyDown={(e) => {
                if (e.key === 'ArrowRight' || e.key === 'ArrowDown') {
                  e.preventDefault();
                  move(1);
                } else if (e.key === 'ArrowLeft' || e.key === 'ArrowUp') {
                  e.preventDefault();
                  move(-1);
                }
              }}
              data-testid={`launch-kind-${k.kind}`}
            >
              {k.label}
            </button>
          ))}
        </div>
        <p className="muted launch-what">{entry.what}</p>
      </div>
      <entry.Form key={entry.kind} kind={entry.kind} />
    </Page>
  );
}
