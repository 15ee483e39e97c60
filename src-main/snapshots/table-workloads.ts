import { jsonNumber as n, jsonObject as o, jsonObjects as a, jsonString as s, type Json } from '../../shared/json-read';
import { ageAt, humanDuration, podDisplay, restartsText } from '../../shared/kube-display';
import { col, NAME, AGE, nameOf, ageOf, orNone, formatLabels, formatLabelSelector, containerCells, templateSpec, type Printer } from './table-format';

/** Table printers of pods and their controllers (see table.ts). */

export const pods: Printer = {
  columns: [
    NAME,
    col('Ready', 'The aggregate readiness state of this pod for accepting traffic.'),
    col('Status', 'The aggregate status of the containers in this pod.'),
    col('Restarts', 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.'),
    AGE,
    col('IP', 'IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.', { priority: 1 }),
    col('Node', 'NodeName is a request to schedule this pod onto a specific node.', { priority: 1 }),
    col('Nominated Node', 'nominatedNodeName is set only when this pod preempts other pods on the node.', { priority: 1 }),
    col('Readiness Gates', 'If specified, all readiness gates will be evaluated for pod readiness.', { priority: 1 }),
  ],
  cells(pod, now) {
    const display = podDisplay(pod);
    const spec = o(pod.spec);
    const status = o(pod.status);
    const podIp = s(a(status.podIPs)[0]?.ip) || s(status.podIP);
    const gates = a(spec.readinessGates);
    let readinessGates = '<none>';
    if (gates.length > 0) {
      const conditions = a(status.conditions);
      const trueGates = gates.filter((g) => conditions.find((c) => s(c.type) === s(g.conditionType))?.status === 'True').length;
      readinessGates = `${trueGates}/${gates.length}`;
    }
    return [
      nameOf(pod),
      display.ready,
      display.status,
      restartsText(display, now),
      ageOf(pod, now),
      orNone(podIp),
      orNone(s(spec.nodeName)),
      orNone(s(status.nominatedNodeName)),
      readinessGates,
    ];
  },
};

const WIDE_WORKLOAD = [
  col('Containers', 'Names of each container in the template.', { priority: 1 }),
  col('Images', 'Images referenced by each container in the template.', { priority: 1 }),
  col('Selector', 'Label selector for pods.', { priority: 1 }),
];

export const deployments: Printer = {
  columns: [
    NAME,
    col('Ready', 'Number of the pod with ready state'),
    col('Up-to-date', 'Total number of non-terminated pods targeted by this deployment that have the desired template spec.', { type: 'integer' }),
    col('Available', 'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.', { type: 'integer' }),
    AGE,
    ...WIDE_WORKLOAD,
  ],
  cells(d, now) {
    const spec = o(d.spec);
    const status = o(d.status);
    const desired = spec.replicas === undefined ? 1 : n(spec.replicas);
    const [containers, images] = containerCells(templateSpec(d));
    return [nameOf(d), `${n(status.readyReplicas)}/${desired}`, n(status.updatedReplicas), n(status.availableReplicas), ageOf(d, now), containers, images, formatLabelSelector(spec.selector)];
  },
};

export const replicasets: Printer = {
  columns: [
    NAME,
    col('Desired', 'Number of desired pods.', { type: 'integer' }),
    col('Current', 'Replicas is the most recently observed number of replicas.', { type: 'integer' }),
    col('Ready', 'The number of ready replicas for this replica set.', { type: 'integer' }),
    AGE,
    ...WIDE_WORKLOAD,
  ],
  cells(rs, now) {
    const spec = o(rs.spec);
    const status = o(rs.status);
    const [containers, images] = containerCells(templateSpec(rs));
    return [nameOf(rs), spec.replicas === undefined ? 1 : n(spec.replicas), n(status.replicas), n(status.readyReplicas), ageOf(rs, now), containers, images, formatLabelSelector(spec.selector)];
  },
};

export const statefulsets: Printer = {
  columns: [
    NAME,
    col('Ready', 'Number of the pod with ready state'),
    AGE,
    col('Containers', 'Names of each container in the template.', { priority: 1 }),
    col('Images', 'Images referenced by each container in the template.', { priority: 1 }),
  ],
  cells(sts, now) {
    const spec = o(sts.spec);
    const [containers, images] = containerCells(templateSpec(sts));
    return [nameOf(sts), `${n(o(sts.status).readyReplicas)}/${spec.replicas === undefined ? 1 : n(spec.replicas)}`, ageOf(sts, now), containers, images];
  },
};

export const daemonsets: Printer = {
  columns: [
    NAME,
    col('Desired', 'The total number of nodes that should be running the daemon pod.', { type: 'integer' }),
    col('Current', 'The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.', { type: 'integer' }),
    col('Ready', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.', { type: 'integer' }),
    col('Up-to-date', 'The total number of nodes that are running updated daemon pod', { type: 'integer' }),
    col('Available', 'The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available.', { type: 'integer' }),
    col('Node Selector', 'NodeSelector is a selector which must be true for the pod to fit on a node.'),
    AGE,
    ...WIDE_WORKLOAD,
  ],
  cells(ds, now) {
    const status = o(ds.status);
    const [containers, images] = containerCells(templateSpec(ds));
    return [
      nameOf(ds),
      n(status.desiredNumberScheduled),
      n(status.currentNumberScheduled),
      n(status.numberReady),
      n(status.updatedNumberScheduled),
      n(status.numberAvailable),
      formatLabels(o(templateSpec(ds)).nodeSelector),
      ageOf(ds, now),
      containers,
      images,
      formatLabelSelector(o(ds.spec).selector),
    ];
  },
};

/** The Job's STATUS column (Kubernetes 1.30+): the terminal or suspended condition, else Running. */
function jobStatus(job: Json): string {
  const conditions = a(o(job.status).conditions).filter((c) => s(c.status) === 'True');
  const has = (type: string) => conditions.some((c) => s(c.type) === type);
  if (has('Complete')) return 'Complete';
  if (has('Failed')) return 'Failed';
  if (has('FailureTarget')) return 'FailureTarget';
  if (has('SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  if (has('Suspended')) return 'Suspended';
  return 'Running';
}

export const jobs: Printer = {
  columns: [
    NAME,
    col('Status', 'Status of the job.'),
    col('Completions', 'The desired number of successfully finished pods the job should be run with.'),
    col('Duration', 'Time required to complete the job.'),
    AGE,
    ...WIDE_WORKLOAD,
  ],
  cells(job, now) {
    const spec = o(job.spec);
    const status = o(job.status);
    const succeeded = n(status.succeeded);
    let completions: string;
    if (spec.completions !== undefined && spec.completions !== null) completions = `${succeeded}/${n(spec.completions)}`;
    else {
      const parallelism = spec.parallelism === undefined ? 0 : n(spec.parallelism);
      completions = parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
    }
    const start = typeof status.startTime === 'string' ? Date.parse(status.startTime) : NaN;
    const end = typeof status.completionTime === 'string' ? Date.parse(status.completionTime) : NaN;
    const duration = Number.isNaN(start) ? '' : humanDuration((Number.isNaN(end) ? now : end) - start);
    const [containers, images] = containerCells(templateSpec(job));
    return [nameOf(job), jobStatus(job), completions, duration, ageOf(job, now), containers, images, formatLabelSelector(spec.selector)];
  },
};

export const cronjobs: Printer = {
  columns: [
    NAME,
    col('Schedule', 'The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.'),
    col('Timezone', 'The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones.'),
    col('Suspend', 'This flag tells the controller to suspend subsequent executions.', { type: 'boolean' }),
    col('Active', 'A list of pointers to currently running jobs.', { type: 'integer' }),
    col('Last Schedule', 'Information when was the last time the job was successfully scheduled.'),
    AGE,
    ...WIDE_WORKLOAD,
  ],
  cells(cj, now) {
    const spec = o(cj.spec);
    const status = o(cj.status);
    const jobSpec = o(o(spec.jobTemplate).spec);
    const [containers, images] = containerCells(o(o(jobSpec.template).spec));
    const last = typeof status.lastScheduleTime === 'string' ? ageAt(status.lastScheduleTime, now) : '<none>';
    return [
      nameOf(cj),
      s(spec.schedule),
      orNone(s(spec.timeZone)),
      spec.suspend === true,
      a(status.active).length,
      last,
      ageOf(cj, now),
      containers,
      images,
      formatLabelSelector(jobSpec.selector),
    ];
  },
};
