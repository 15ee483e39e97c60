import { Cluster, appNamespace, baseCluster, event, job, jobPod, linesAfter, stamp, webApp } from '../builder';
import { C, WRONG, raw, verdictBlock } from '../patterns';
import type { StarterScenario } from '../scenario';

/** A one-off reindex job: each attempt is OOMKilled, and after three the Job gives up (BackoffLimitExceeded). Both facts are the answer. */

const JOB = 'reindex-catalog-2026-12';

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-job-oom-backoff',
    name: 'Starter: a reindex job OOMKilled three times, then BackoffLimitExceeded',
    description: 'reindex-catalog-2026-12 loads the whole catalog (1.9 M products) in memory under a 1Gi limit; each of its three attempts is OOMKilled (exit 137) and the Job fails with BackoffLimitExceeded (backoffLimit 2).',
    recordedAt: '2026-12-01T16:40:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'catalog', '500d');
  const j = job(c, {
    namespace: 'catalog',
    name: JOB,
    created: c.ago('38m'),
    backoffLimit: 2,
    containers: [{ name: 'reindex', image: 'ghcr.io/acme/catalog-tools:9.2.0', args: ['reindex', '--all', '--batch-size=0'], resources: { requests: { cpu: '1', memory: '512Mi' }, limits: { memory: '1Gi' } } }],
    end: { failed: '6m40s', reason: 'BackoffLimitExceeded' },
  });
  const attempts: [number, string, string][] = [[0, '37m55s', '28m10s'], [1, '27m50s', '18m02s'], [2, '16m40s', '6m45s']];
  for (const [i, started, ended] of attempts) {
    const start = c.clock.ago(started);
    const p = jobPod(c, j, { node: nodes[i as 0 | 1 | 2], created: stamp(start - 4_000), seed: `try${i}`, states: { reindex: { state: { terminated: { startedAt: stamp(start), finishedAt: c.ago(ended), exitCode: 137, reason: 'OOMKilled' } } } } });
    const ran = c.clock.ago(ended) - start;
    c.log('catalog', p.metadata.name, 'reindex', { current: linesAfter('py', start, [[1_100, 'INFO reindex: loading all products (batch size 0 = everything)'], [Math.round(ran * 0.45), 'INFO reindex: 1,000,000 products loaded (rss 742 MiB)'], [Math.round(ran * 0.86), 'INFO reindex: 1,600,000 products loaded (rss 968 MiB)']]) });
    event(c, { on: j.object, reason: 'SuccessfulCreate', message: `Created pod: ${p.metadata.name}`, first: `${Math.round((c.clock.rec - start + 4_000) / 1000)}s`, component: 'job-controller' });
  }
  event(c, { on: j.object, reason: 'BackoffLimitExceeded', type: 'Warning', message: 'Job has reached the specified backoff limit', first: '6m40s', component: 'job-controller' });
  webApp(c, { namespace: 'catalog', name: 'catalog', image: 'ghcr.io/acme/catalog:9.2.0', replicas: 2, created: '500d', rolled: '6d', revision: 44 }, nodes);
  return c;
}

export const jobOomBackoff: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'job-oom-backoff',
    title: 'Job gives up after three OOMKilled attempts (two causes)',
    question: 'Our one-off catalog reindex job in the catalog namespace "failed" and the search index is still stale. What happened, and what do we change before running it again?',
    expected: [
      { finding: 'each attempt of the reindex job was OOMKilled (exit code 137) by its 1Gi memory limit', any_of: [C.oom] },
      {
        finding: 'after three failed attempts the Job stopped retrying: BackoffLimitExceeded (backoffLimit 2)',
        any_of: [
          C.backoffLimit,
          String.raw`(stopped|stops|gave up|gives up|no more|quit) (\w+ )?retr\w*|retries (were |are )?(exhausted|used up|ran out)|retry limit|ran out of (retries|attempts)`,
          String.raw`(three|3) (failed |failing |killed )?(attempts|tries|failures|pods|times)|gave up (after|on)`,
          String.raw`(third|last|final) (failure|attempt|try|pod)\b.{0,30}\b(ended|failed|killed|stopped|marked)`,
        ],
      },
      {
        finding: 'raise the memory limit or make it load in batches (--batch-size=0 loads everything)',
        any_of: [
          String.raw`(rais|increas|bump|more|higher|bigger|larger|doubl|extra)\w*\b.{0,40}\b(memory|limit|1 ?Gi)`,
          String.raw`(memory|limit)\b.{0,20}\b(to|of|at least) (~|about |around )?\d+ ?(Gi|Mi|G)`,
          String.raw`(load|process|read|import|run|do|use|smaller|in)\w* (it |the catalog |them |the products )?(in )?(batch|chunk|stream|pag)\w*|--batch-size=[1-9]|(stream|paginat|chunk)\w*`,
        ],
      },
    ],
    must_not: [
      C.deadline,
      WRONG.imagePull,
      String.raw`insufficient memory (on|in) (the )?nodes?|nodes? (ha(ve|s)|ran) (insufficient|not enough|out of) memory`,
      String.raw`\bnodes?\b.{0,30}(memory ?pressure|evict\w*)`,
      WRONG.crashLoop,
      WRONG.quota,
    ],
    tags: ['job-failure', 'hard', 'oom-killed', 'two-causes', 'jobs'],
    difficulty: 'hard',
    verdict: {
      healthy: false,
      causes: [
        { category: 'oom-killed', objects: [`job/catalog/${JOB}`] },
        { category: 'job-failure', objects: [`job/catalog/${JOB}`] },
      ],
    },
    fixtures: [
      { label: 'correct', note: 'both causes and the fix', answer: `${JOB} ran three pods; each was OOMKilled (exit code 137) after about ten minutes, at ~1.6 M of 1.9 M products — --batch-size=0 loads the whole catalog into memory and the container's limit is 1Gi. With backoffLimit 2 the third failure ended the Job: Failed, BackoffLimitExceeded. Before re-running, load in batches (e.g. --batch-size=50000) or raise the memory limit to ~2Gi.` },
      { label: 'correct', note: 'other words', answer: 'The job kept running out of memory — the kernel killed every attempt when it hit its 1Gi cap — and after the third try Kubernetes stopped retrying it (backoff limit reached). Give it more memory or process the catalog in chunks.' },
      { label: 'correct', note: 'with a two-cause verdict', answer: `OOMKilled three times, then BackoffLimitExceeded; increase the memory limit or use batches.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'oom-killed', objects: [`job/catalog/${JOB}`] }, { category: 'job-failure', objects: [`job/catalog/${JOB}`] }], fix: 'batch the reindex or raise the limit' })}` },
      { label: 'wrong', note: 'only one of the two causes: OOM without the job giving up', answer: 'The reindex pod is OOMKilled; raise its memory limit and it will finish.' },
      { label: 'wrong', note: 'keywords, wrong mechanism: a deadline', answer: 'The job exceeded its active deadline (DeadlineExceeded) while loading products; give it more time. Memory is not the problem.' },
      { label: 'wrong', note: 'negation of the cause', answer: 'Nothing was OOMKilled. The job failed because the catalog-tools image could not be pulled.' },
      { label: 'wrong', note: 'raw output', answer: raw(`NAME                                 READY   STATUS      RESTARTS   AGE\n${JOB}-xxxxx   0/1     OOMKilled   0          38m`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods', args: { namespace: 'catalog' } }, { tool: 'list_warning_events', args: { namespace: 'catalog' } }],
    facts: [new RegExp(`catalog/${JOB}-\\w+: phase Failed.*terminated: OOMKilled, exit code 137`), /BackoffLimitExceeded: Job has reached the specified backoff limit/],
  },
};
