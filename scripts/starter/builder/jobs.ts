import { stamp } from './clock';
import type { Cluster, Json, KubeObject } from './cluster';
import type { ContainerSpec } from './pods';
import { extrasSpec, replica, type Controller, type PodExtras, type Replica } from './workloads';

/**
 * Jobs and cron jobs. A job's pods are added with `replica()` like any controller's; its status
 * (active, succeeded, failed, ready, conditions) is computed from them and from how it ended.
 */

export type JobEnd =
  | { complete: string }
  | { failed: string; reason: 'BackoffLimitExceeded' | 'DeadlineExceeded'; message?: string };

export type JobOptions = {
  namespace: string;
  name: string;
  containers: ContainerSpec[];
  created: string;
  backoffLimit?: number;
  activeDeadlineSeconds?: number;
  owner?: KubeObject;
  extras?: PodExtras;
  end?: JobEnd;
};

export function job(c: Cluster, o: JobOptions): Controller {
  const uid = c.uid('Job', o.namespace, o.name);
  const labels = { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': o.name, 'controller-uid': uid, 'job-name': o.name };
  const object = c.add('jobs', {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: c.meta('Job', o.name, o.namespace, o.created, {
      labels,
      ...(o.owner ? { ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: o.owner.metadata.name, uid: o.owner.metadata.uid, controller: true, blockOwnerDeletion: true }] } : {}),
    }),
    spec: {
      parallelism: 1,
      completions: 1,
      backoffLimit: o.backoffLimit ?? 6,
      ...(o.activeDeadlineSeconds ? { activeDeadlineSeconds: o.activeDeadlineSeconds } : {}),
      completionMode: 'NonIndexed',
      suspend: false,
      podReplacementPolicy: 'TerminatingOrFailed',
      selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
      template: { metadata: { labels }, spec: { containers: o.containers.map((s) => ({ ...s, resources: s.resources ?? {}, imagePullPolicy: 'IfNotPresent' })), restartPolicy: 'Never', ...extrasSpec(o.extras) } },
    },
    status: {},
  });
  const ctl: Controller = { kind: 'Job', apiVersion: 'batch/v1', namespace: o.namespace, name: o.name, uid, labels, containers: o.containers, extras: o.extras ?? {}, object };
  c.finish(() => {
    const pods = c.podsOf(uid);
    const phase = (p: KubeObject) => (p.status as Json).phase;
    const succeeded = pods.filter((p) => phase(p) === 'Succeeded').length;
    const failed = pods.filter((p) => phase(p) === 'Failed').length;
    const active = pods.filter((p) => phase(p) === 'Running' || phase(p) === 'Pending').length;
    const start = stamp(Date.parse(o.created));
    const conditions: Json[] = [];
    if (o.end && 'complete' in o.end) {
      const at = c.ago(o.end.complete);
      conditions.push({ type: 'SuccessCriteriaMet', status: 'True', lastProbeTime: at, lastTransitionTime: at, reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' });
      conditions.push({ type: 'Complete', status: 'True', lastProbeTime: at, lastTransitionTime: at, reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' });
    } else if (o.end) {
      const at = c.ago(o.end.failed);
      const message = o.end.message ?? (o.end.reason === 'BackoffLimitExceeded' ? 'Job has reached the specified backoff limit' : 'Job was active longer than specified deadline');
      conditions.push({ type: 'FailureTarget', status: 'True', lastProbeTime: at, lastTransitionTime: at, reason: o.end.reason, message });
      conditions.push({ type: 'Failed', status: 'True', lastProbeTime: at, lastTransitionTime: at, reason: o.end.reason, message });
    }
    object.status = {
      ...(conditions.length ? { conditions } : {}),
      startTime: start,
      ...(o.end && 'complete' in o.end ? { completionTime: c.ago(o.end.complete) } : {}),
      ...(active ? { active } : {}),
      ...(succeeded ? { succeeded } : {}),
      ...(failed ? { failed } : {}),
      ready: pods.filter((p) => phase(p) === 'Running').length,
      terminating: 0,
      uncountedTerminatedPods: {},
    };
  });
  return ctl;
}

/** A job pod (named after its job, like the job controller names them). */
export function jobPod(c: Cluster, j: Controller, r: Replica): KubeObject {
  return replica(c, j, { restartPolicy: 'Never', ...r });
}

/** The name the CronJob controller gives the job of a scheduled time: the time in minutes since the epoch. */
export function cronJobName(cron: string, scheduledMs: number): string {
  return `${cron}-${Math.floor(scheduledMs / 60_000)}`;
}

export function cronJob(c: Cluster, o: { namespace: string; name: string; schedule: string; containers: ContainerSpec[]; created: string; suspend?: boolean; lastSchedule?: string; lastSuccess?: string; extras?: PodExtras; timeZone?: string; activeDeadlineSeconds?: number; backoffLimit?: number }): KubeObject {
  const object = c.add('cronjobs', {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: c.meta('CronJob', o.name, o.namespace, o.created, { generation: 1 }),
    spec: {
      schedule: o.schedule,
      ...(o.timeZone ? { timeZone: o.timeZone } : {}),
      concurrencyPolicy: 'Forbid',
      suspend: o.suspend ?? false,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 3,
      jobTemplate: { metadata: {}, spec: { backoffLimit: o.backoffLimit ?? 2, ...(o.activeDeadlineSeconds ? { activeDeadlineSeconds: o.activeDeadlineSeconds } : {}), template: { metadata: {}, spec: { containers: o.containers.map((s) => ({ ...s, resources: s.resources ?? {} })), restartPolicy: 'Never', ...extrasSpec(o.extras) } } } },
    },
    status: {
      ...(o.lastSchedule ? { lastScheduleTime: o.lastSchedule } : {}),
      ...(o.lastSuccess ? { lastSuccessfulTime: o.lastSuccess } : {}),
    },
  });
  return object;
}
