import type { CauseCategory, ScenarioInput } from '../../shared/suites';
import type { Cluster, Json, KubeObject } from './builder/cluster';

/**
 * One scenario of the starter suite as its author writes it: the scenario record (question,
 * findings, wrong causes, ground truth, labelled answers), the cluster it runs on, and the proof
 * that the built-in agent's tools reach the facts its findings need (test/suites/starter-replay).
 */

export type ToolCall = { tool: string; args?: Record<string, unknown> };

export type Proof = {
  /** Built-in agent tool calls, run on the replayed snapshot (no LLM)… */
  calls: ToolCall[];
  /** …whose joined output holds each of these facts… */
  facts: RegExp[];
  /** …and none of these (a red herring the tools must not blame). */
  absent?: RegExp[];
  /** Facts only the objects hold (what kubectl reads): API paths on the replay, and what their JSON must hold. */
  objects?: { path: string; facts: RegExp[] }[];
};

export type StarterScenario = {
  /** The scenario; its snapshot is `starter-<scenario_id>`. */
  scenario: Omit<ScenarioInput, 'snapshot_id' | 'tags'> & { tags: string[]; verdict: { healthy: boolean; causes: { category: CauseCategory; objects: string[] }[] } };
  build(): Cluster;
  proof: Proof;
};

export function snapshotIdOf(scenarioId: string): string {
  return `starter-${scenarioId}`;
}

/** A pod of the built cluster: the first in `namespace` whose name starts with `prefix` (and that `pick` accepts). */
export function podOf(c: Cluster, namespace: string, prefix: string, pick: (p: KubeObject) => boolean = () => true): string {
  const found = c.list('pods').find((p) => p.metadata.namespace === namespace && p.metadata.name.startsWith(prefix) && pick(p));
  if (!found) throw new Error(`no pod ${namespace}/${prefix}*`);
  return found.metadata.name;
}

/** Whether a pod's first container waits with this reason (CrashLoopBackOff, ImagePullBackOff…). */
export function waiting(reason: string): (p: KubeObject) => boolean {
  return (p) => (((p.status as Json).containerStatuses as Json[] | undefined) ?? []).some((s) => ((s.state as Json)?.waiting as Json | undefined)?.reason === reason);
}
