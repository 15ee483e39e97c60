import type { SnapshotDocumentInput, Suite } from '../../../shared';
import { CreateSuiteInputSchema, STARTER_SUITE_ID } from '../../../shared';
import crashloopDbPassword from './snapshots/starter-crashloop-db-password.json';
import cronjobFailing from './snapshots/starter-cronjob-failing.json';
import healthy from './snapshots/starter-healthy.json';
import imagePullWrongTag from './snapshots/starter-image-pull-wrong-tag.json';
import nodeNotReadyEvicted from './snapshots/starter-node-notready-evicted.json';
import oomkilled from './snapshots/starter-oomkilled.json';
import pendingInsufficientCpu from './snapshots/starter-pending-insufficient-cpu.json';
import pendingUnboundPvc from './snapshots/starter-pending-unbound-pvc.json';
import readinessProbe from './snapshots/starter-readiness-probe.json';
import serviceSelector from './snapshots/starter-service-selector.json';
import { GENERATED_SCENARIOS, GENERATED_SNAPSHOTS } from './generated';
import suiteJson from './suite.json';

/**
 * The shipped `starter` suite (design §12, §12b): incidents, each on its own snapshot document
 * (benchdesk.snapshot/v1) kept beside this file, bundled into the program so it is present from
 * the first start without network or files to find. The first ten (suite.json, snapshots written
 * by hand) come first; the others are written with the builder of scripts/starter, which
 * generates their scenario and snapshot files and generated.ts.
 */

const HAND_WRITTEN = [
  crashloopDbPassword,
  imagePullWrongTag,
  oomkilled,
  pendingInsufficientCpu,
  pendingUnboundPvc,
  readinessProbe,
  serviceSelector,
  nodeNotReadyEvicted,
  cronjobFailing,
  healthy,
] as const;
const SNAPSHOTS = [...HAND_WRITTEN, ...GENERATED_SNAPSHOTS];

/** When the starter suite first shipped: its `created_at`. */
const SHIPPED_AT = '2026-11-20T09:30:00Z';

export type StarterSuite = { suite: Suite; snapshots: (SnapshotDocumentInput & { snapshot_id: string })[] };

export function starterSuite(): StarterSuite {
  // Checked like any suite: a bad regex in the shipped file fails at start-up and in its test, never in a run.
  const parsed = CreateSuiteInputSchema.parse({ ...suiteJson, scenarios: [...suiteJson.scenarios, ...GENERATED_SCENARIOS] });
  return {
    suite: { suite_id: STARTER_SUITE_ID, name: parsed.name, description: parsed.description, scenarios: parsed.scenarios, read_only: true, created_at: SHIPPED_AT },
    snapshots: SNAPSHOTS.map((doc) => structuredClone(doc) as unknown as SnapshotDocumentInput & { snapshot_id: string }),
  };
}
