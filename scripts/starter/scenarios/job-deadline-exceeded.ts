import { Cluster, appNamespace, baseCluster, cronJob, cronJobName, job, jobPod, linesAfter, stamp, webApp } from '../builder';
import { C, WRONG, raw, verdictBlock } from '../patterns';
import type { StarterScenario } from '../scenario';

/** The nightly export ran into its one-hour deadline: the job controller killed it at 71 %, its pod is gone, only the Job says why. */

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-job-deadline-exceeded',
    name: 'Starter: the nightly invoice export hit its active deadline',
    description: 'export-invoices runs at 02:00 with activeDeadlineSeconds 3600. Tonight it had 4.1 M invoices to export (the month-end batch) instead of ~2.6 M, ran out of time at 71 %, and the job controller terminated it: Job Failed, reason DeadlineExceeded. Its pod was deleted with it; the two previous nights completed in 43 and 47 minutes.',
    recordedAt: '2026-12-01T09:05:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'billing', '210d');
  const container = { name: 'export', image: 'ghcr.io/acme/invoice-export:2.3.0', args: ['--since=yesterday', '--format=parquet', '--dest=s3://acme-finance/invoices/'], resources: { requests: { cpu: '1', memory: '1Gi' }, limits: { memory: '2Gi' } } };
  const day = 86_400_000;
  const night = (daysAgo: number) => Date.UTC(2026, 11, 1, SCHEDULE_HOUR) - daysAgo * day;
  const cj = cronJob(c, { namespace: 'billing', name: 'export-invoices', schedule: '0 2 * * *', timeZone: 'Etc/UTC', created: c.ago('180d'), containers: [container], lastSchedule: stamp(night(0)), lastSuccess: stamp(night(1) + 47 * 60_000), activeDeadlineSeconds: 3600 });
  for (const [daysAgo, minutes] of [[2, 43], [1, 47]] as const) {
    const start = night(daysAgo);
    const ago = (ms: number) => `${Math.round((c.clock.rec - ms) / 1000)}s`;
    const j = job(c, { namespace: 'billing', name: cronJobName('export-invoices', start), created: stamp(start), owner: cj, activeDeadlineSeconds: 3600, backoffLimit: 2, containers: [container], end: { complete: ago(start + minutes * 60_000 + 3_000) } });
    const p = jobPod(c, j, { node: nodes[daysAgo], created: stamp(start), states: { export: { state: { terminated: { startedAt: stamp(start + 6_000), finishedAt: stamp(start + minutes * 60_000), exitCode: 0, reason: 'Completed' } } } } });
    c.log('billing', p.metadata.name, 'export', { current: linesAfter('iso', start + 6_000, [[900, `INFO export start: ${daysAgo === 2 ? '2,540,112' : '2,688,905'} invoices`], [minutes * 60_000 - 8_000, 'INFO export done: wrote 38 parquet files to s3://acme-finance/invoices/']]) });
  }
  const tonight = night(0);
  const agoText = (ms: number) => `${Math.round((c.clock.rec - ms) / 1000)}s`;
  job(c, { namespace: 'billing', name: cronJobName('export-invoices', tonight), created: stamp(tonight), owner: cj, activeDeadlineSeconds: 3600, backoffLimit: 2, containers: [container], end: { failed: agoText(tonight + 3_600_000 + 1_000), reason: 'DeadlineExceeded' } });
  webApp(c, { namespace: 'billing', name: 'invoice-api', image: 'ghcr.io/acme/invoice-api:4.6.2', replicas: 2, created: '210d', rolled: '16d', revision: 11 }, nodes);
  return c;
}

const SCHEDULE_HOUR = 2;

export const jobDeadlineExceeded: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'job-deadline-exceeded',
    title: 'Job killed at its active deadline',
    question: 'Finance did not get last night\'s invoice export. The export-invoices job in billing has run every night for months. What happened this time, and what should we change?',
    expected: [
      {
        finding: 'tonight\'s export-invoices job failed with DeadlineExceeded: it ran longer than its activeDeadlineSeconds (1 hour) and was terminated',
        any_of: [
          C.deadline,
          String.raw`(hit|reached|exceeded|ran past|ran over|overran|overshot|blew through|went over|passed) (its |the )?(\w+[- ])?(\w+[- ])?(time ?limit|deadline|timeout|time budget)`,
          String.raw`(ran|run\w*|took|was active|been active) (a lot |much )?(longer|more) than (its |the )?(\w+[- ])?(deadline|limit|allowed|hour|3600)`,
          String.raw`out of time|(stopped|killed|terminated|cut off) (it )?(at|after) (the |its )?(one|1|an)[- ]hour`,
        ],
      },
      {
        finding: 'raise activeDeadlineSeconds (the month-end batch is larger), or make the export faster / split it',
        any_of: [
          String.raw`(rais|increas|bump|extend|lengthen|doubl|longer|more|loosen|relax)\w*\b.{0,40}\b(activeDeadlineSeconds|deadline|time ?limit|timeout|time\b)`,
          String.raw`(activeDeadlineSeconds|deadline|time ?limit)\b.{0,30}\b(to|of) \d`,
          String.raw`\b(split|chunk|shard|paralleli[sz]e|batch)\w*\b.{0,40}\b(export|job|work|run|invoices|month)`,
          String.raw`(faster|speed (it )?up|optimi[sz]e)`,
        ],
      },
    ],
    must_not: [
      C.backoffLimit,
      WRONG.oom,
      WRONG.imagePull,
      String.raw`(s3|bucket)\b.{0,40}(denied|forbidden|AccessDenied|permission)`,
      WRONG.crashLoop,
      String.raw`(cron ?job|schedule)\b.{0,20}(is |was )?(suspended|paused|disabled)`,
    ],
    tags: ['job-failure', 'medium', 'jobs', 'cronjob', 'deadline'],
    difficulty: 'medium',
    verdict: { healthy: false, causes: [{ category: 'job-failure', objects: ['cronjob/billing/export-invoices', `job/billing/${cronJobName('export-invoices', Date.UTC(2026, 11, 1, SCHEDULE_HOUR))}`] }] },
    fixtures: [
      { label: 'correct', note: 'the Job condition read', answer: `Tonight's job ${cronJobName('export-invoices', Date.UTC(2026, 11, 1, SCHEDULE_HOUR))} is Failed with reason DeadlineExceeded ("Job was active longer than specified deadline"): the job template has activeDeadlineSeconds 3600 and the run was terminated at 03:00, so no export was written. The two previous nights completed in 43 and 47 minutes — tonight's month-end batch is bigger. Raise activeDeadlineSeconds (e.g. to 3 h) or split the export.` },
      { label: 'correct', note: 'other words', answer: 'The export did not crash; Kubernetes stopped it because it hit its one-hour time limit — the month-end volume made it run longer than usual. Give the job more time before the deadline or make it faster.' },
      { label: 'correct', note: 'with a verdict', answer: `export-invoices failed on its active deadline (DeadlineExceeded after 3600 s).\n\n${verdictBlock({ healthy: false, causes: [{ category: 'job-failure', objects: ['cronjob/billing/export-invoices'] }], fix: 'increase activeDeadlineSeconds' })}` },
      { label: 'wrong', note: 'keywords, wrong reason: backoff limit', answer: 'The job failed with BackoffLimitExceeded: its pod failed three times in a row. The deadline is not involved.' },
      { label: 'wrong', note: 'wrong cause', answer: 'The export pod was OOMKilled halfway through the month-end batch; raise its 2Gi memory limit.' },
      { label: 'wrong', note: 'negation of the cause', answer: 'The job did not time out. The CronJob is suspended, so it never ran last night.' },
      { label: 'wrong', note: 'raw output', answer: raw(`NAME                       STATUS     COMPLETIONS   DURATION   AGE\nexport-invoices-29409240   Complete   1/1           47m        31h\nexport-invoices-29410680   Failed     0/1           60m        7h5m`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods', args: { namespace: 'billing' } }, { tool: 'get_resources', args: { kind: 'jobs', namespace: 'billing' } }],
    facts: [/All \d+ pods in namespace billing look healthy/, /billing\/export-invoices-\d+: FailureTarget \(DeadlineExceeded: Job was active longer than specified deadline\); Failed \(DeadlineExceeded: .*activeDeadlineSeconds 3600/],
    objects: [{ path: `/apis/batch/v1/namespaces/billing/jobs/${cronJobName('export-invoices', Date.UTC(2026, 11, 1, SCHEDULE_HOUR))}`, facts: [/"activeDeadlineSeconds":3600/, /"type":"Failed","status":"True".{0,120}"reason":"DeadlineExceeded","message":"Job was active longer than specified deadline"/] }],
  },
};
