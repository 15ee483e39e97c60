import { useEffect, useState } from 'react';
import { useUiStore } from '../../state/ui-store';
import { Notice } from '../../components/States';
import { Field } from '../../components/Field';
import { Panel } from '../../components/Page';
import { ErrorState, Loading } from '../../components/States';
import { formatCount } from '../../lib/format';
import { useSuite, useSuites } from '../../queries/suites';
import { hrefOf, ROUTES } from '../../router/routes';
import { RunSuiteForm } from '../suites/RunSuiteForm';

/**
 * Launch's Suite kind: choose a suite, then the same Run form as the Suites page (scenarios, model,
 * agent, backend or one rented machine, judge). The Suites page is where suites are read,
 * recorded, imported and exported.
 */
export function SuiteLaunch() {
  const suites = useSuites();
  // Handed over by a snapshot's page or a suite run's "Edit and re-run": read once, then cleared.
  const handed = useUiStore((s) => s.launchSuite);
  const clearHanded = useUiStore((s) => s.clearSuiteLaunch);
  const [given] = useState(handed);
  useEffect(() => {
    if (handed) clearHanded();
  }, [handed, clearHanded]);
  const [suiteId, setSuiteId] = useState(given?.suiteId ?? 'starter');
  const suite = useSuite(suiteId);

  if (suites.isError) return <ErrorState error={suites.error} onRetry={() => void suites.refetch()} />;
  if (suites.isPending) return <Loading height={160} />;
  return (
    <>
      {given ? (
        <Notice tone="info" testId="launch-carried">
          Filled in from {given.from}. Check the fields, then run.
        </Notice>
      ) : null}
      <Panel title="Suite" testId="launch-suite">
        <div className="form-grid">
          <Field label="Suite" hint={<a href={hrefOf(ROUTES.suites)}>Read its scenarios, record a cluster or import a suite on the Suites page</a>}>
            <select value={suiteId} onChange={(e) => setSuiteId(e.target.value)} data-testid="launch-suite-select">
              {suites.data.suites.map((s) => (
                <option key={s.suite_id} value={s.suite_id}>
                  {s.name} ({formatCount(s.scenario_count, 'scenario')})
                </option>
              ))}
            </select>
          </Field>
        </div>
      </Panel>
      {suite.isError ? <ErrorState error={suite.error} onRetry={() => void suite.refetch()} /> : suite.data ? <RunSuiteForm key={suite.data.suite_id} suite={suite.data} initial={given?.suiteId === suite.data.suite_id ? given.request : null} /> : <Loading height={240} />}
    </>
  );
}
