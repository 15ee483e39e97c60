import { Cluster, appNamespace, baseCluster, cronJob, cronJobName, job, jobPod, linesAfter, stamp, webApp } from '../builder';
import { WRONG, raw, verdictBlock } from '../patterns';
import type { StarterScenario } from '../scenario';

/** Nothing failed: the CronJob was suspended during an incident three days ago and never resumed. */

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-cronjob-suspended',
    name: 'Starter: the daily report stopped — its CronJob is suspended',
    description: 'daily-sales-report (06:30 every day) was suspended on Friday during the warehouse incident and nobody resumed it. Its last job, Friday\'s, completed; there have been no jobs since, and nothing is failing.',
    recordedAt: '2026-12-01T10:15:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'analytics', '400d');
  const container = { name: 'report', image: 'ghcr.io/acme/sales-report:1.8.3', args: ['--day=yesterday', '--mail-to=sales-leads@acme.example'], resources: { requests: { cpu: '500m', memory: '512Mi' }, limits: { memory: '1Gi' } } };
  const day = 86_400_000;
  const runAt = (daysAgo: number) => Date.UTC(2026, 11, 1, 6, 30) - daysAgo * day;
  const cj = cronJob(c, { namespace: 'analytics', name: 'daily-sales-report', schedule: '30 6 * * *', timeZone: 'Europe/London', created: c.ago('400d'), suspend: true, containers: [container], lastSchedule: stamp(runAt(4)), lastSuccess: stamp(runAt(4) + 4 * 60_000) });
  for (const daysAgo of [6, 5, 4]) {
    const start = runAt(daysAgo);
    const ago = (ms: number) => `${Math.round((c.clock.rec - ms) / 1000)}s`;
    const j = job(c, { namespace: 'analytics', name: cronJobName('daily-sales-report', start), created: stamp(start), owner: cj, containers: [container], end: { complete: ago(start + 4 * 60_000 + 2_000) } });
    const p = jobPod(c, j, { node: nodes[daysAgo % 3 as 0 | 1 | 2], created: stamp(start), states: { report: { state: { terminated: { startedAt: stamp(start + 5_000), finishedAt: stamp(start + 4 * 60_000), exitCode: 0, reason: 'Completed' } } } } });
    c.log('analytics', p.metadata.name, 'report', { current: linesAfter('py', start + 5_000, [[700, 'INFO report: building sales for yesterday'], [232_000, 'INFO report: mailed to sales-leads@acme.example (3 attachments)']]) });
  }
  webApp(c, { namespace: 'analytics', name: 'dashboard', image: 'ghcr.io/acme/dashboard:4.2.0', replicas: 2, created: '400d', rolled: '20d', revision: 16 }, nodes);
  return c;
}

export const cronjobSuspended: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'cronjob-suspended',
    title: 'The daily job stopped: its CronJob is suspended',
    question: 'The sales leads have not received the daily sales report since Friday. It comes from a scheduled job in the analytics namespace. Is it failing?',
    expected: [
      {
        finding: 'no: the CronJob daily-sales-report is suspended (suspend: true) — no job has been created since Friday\'s, which completed',
        any_of: [String.raw`suspend\w*|\bpaused\b|disabled|turned off|switched off|stopped scheduling|on hold`],
        all_of: [[String.raw`daily-sales-report|cron ?job|schedul\w*|report|\bjobs?\b`]],
      },
      {
        finding: 'resume it (suspend: false) — and run the missed days by hand if needed',
        any_of: [String.raw`suspend\W{1,3}false|un-?suspend\w*|resum\w*|re-?enabl\w*|(turn|switch)\w*\b.{0,24}\bback on|un-?paus\w*|set suspend (back )?to false`],
      },
    ],
    must_not: [
      WRONG.crashLoop,
      WRONG.oom,
      WRONG.imagePull,
      String.raw`(job|report|runs?)\b.{0,20}(is |are |was |were |has been |have been |keeps? )(fail\w*|crash\w*|erroring)`,
      String.raw`BackoffLimitExceeded|DeadlineExceeded|backoff ?limit`,
      String.raw`(mail|smtp)\b.{0,30}(fail\w*|refus\w*|down)`,
      String.raw`(time ?zone)\b.{0,30}(wrong|incorrect|misconfigured)|wrong time ?zone`,
      String.raw`(warehouse|database|\bdb\b)\b.{0,20}(is|are) (still )?(down|unreachable)`,
    ],
    tags: ['job-failure', 'medium', 'cronjob', 'jobs', 'nothing-failing'],
    difficulty: 'medium',
    verdict: { healthy: false, causes: [{ category: 'job-failure', objects: ['cronjob/analytics/daily-sales-report'] }] },
    fixtures: [
      { label: 'correct', note: 'the spec read', answer: 'It is not failing — it is not running. The CronJob analytics/daily-sales-report has suspend: true; its last schedule time is Friday 06:30 and that job completed in four minutes. No job has been created since. Resume it (kubectl patch cronjob daily-sales-report -n analytics -p \'{"spec":{"suspend":false}}\') and run the missed days by hand.' },
      { label: 'correct', note: 'other words', answer: 'Somebody paused the schedule on Friday — the report job itself is fine, it just has not been started since then. Switch the cron job back on.' },
      { label: 'correct', note: 'with a verdict', answer: `Suspended, not failing: daily-sales-report has suspend: true since Friday.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'job-failure', objects: ['cronjob/analytics/daily-sales-report'] }], fix: 'set suspend: false' })}` },
      { label: 'wrong', note: 'keywords, wrong: claims the jobs fail', answer: 'The daily-sales-report job has been failing every morning since Friday with BackoffLimitExceeded; the CronJob schedule itself is fine.' },
      { label: 'wrong', note: 'wrong cause', answer: 'The report runs, but mailing fails: the SMTP relay refuses the connection.' },
      { label: 'wrong', note: 'negation of the cause', answer: 'The CronJob is not suspended; its schedule 30 6 * * * is in the wrong time zone, so it runs at night.' },
      { label: 'wrong', note: 'raw output', answer: raw(`NAME                 SCHEDULE     TIMEZONE        SUSPEND   ACTIVE   LAST SCHEDULE   AGE\ndaily-sales-report   30 6 * * *   Europe/London   True      0        4d3h            400d`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods', args: { namespace: 'analytics' } }, { tool: 'list_warning_events', args: { namespace: 'analytics' } }, { tool: 'get_resources', args: { kind: 'cj', namespace: 'analytics' } }],
    facts: [/All \d+ pods in namespace analytics look healthy/, /No Warning events in namespace analytics/, /analytics\/daily-sales-report: schedule "30 6 \* \* \*" Europe\/London suspend true active 0 lastSchedule 2026-11-27T06:30:00Z/],
    objects: [{ path: '/apis/batch/v1/namespaces/analytics/cronjobs/daily-sales-report', facts: [/"suspend":true/, /"lastScheduleTime":"2026-11-27T06:30:00Z"/] }],
  },
};
