import { Cluster, appNamespace, baseCluster, crashLoopReplica, crashed, deployment, event, lines, linesAfter, replica, replicaSet, startedAt, webApp } from '../builder';
import { C, WRONG, raw, verdictBlock } from '../patterns';
import { podOf, waiting, type StarterScenario } from '../scenario';

/** A rollback to 6.1 that cannot read the index 7.0 migrated; beside it, a pod with many old restarts that is the red herring. */

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-crashloop-rollback-schema',
    name: 'Starter: search-indexer crash-loops after a rollback (schema too new) — with an old-restarts red herring',
    description: 'search-indexer was rolled back from 7.0 to 6.1 26 minutes ago; 7.0 had migrated the index schema to version 7, which 6.1 refuses to open: it exits at start and crash-loops. metrics-exporter, next to it, shows 11 restarts — all from an OOM episode six days ago; it has run fine since.',
    recordedAt: '2026-12-04T11:10:00Z',
  });
  const { nodes } = baseCluster(c);
  appNamespace(c, 'search', '260d');
  const container = (image: string) => ({ name: 'indexer', image, env: [{ name: 'INDEX_DIR', value: '/data/index' }], resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { memory: '2Gi' } } });
  const d = deployment(c, { namespace: 'search', name: 'search-indexer', replicas: 1, created: c.ago('260d'), rolled: c.ago('26m'), revision: 33, recreate: true, unavailableSince: '26m', containers: [container('ghcr.io/acme/search-indexer:6.1.4')] });
  replicaSet(c, d, { revision: 32, replicas: 0, containers: [container('ghcr.io/acme/search-indexer:7.0.0')], created: c.ago('2d') });
  crashLoopReplica(c, d.current, {
    node: nodes[1],
    created: '26m',
    container: 'indexer',
    image: 'ghcr.io/acme/search-indexer:6.1.4',
    restarts: 10,
    finishedAgo: '4m2s',
    ranMs: 3_400,
    exitCode: 1,
    log: (s) => [
      ...linesAfter('iso', s, [[900, 'INFO  search-indexer 6.1.4 starting'], [2_800, 'INFO  opening index at /data/index']]),
      ...linesAfter('iso', s, [[3_300, 'ERROR fatal: cannot open index']]),
      'java.lang.IllegalStateException: index schema version 7 is newer than this build supports (6); refusing to downgrade',
      '\tat com.acme.search.index.SchemaGuard.check(SchemaGuard.java:41)',
      '\tat com.acme.search.Indexer.main(Indexer.java:88)',
    ],
  });
  event(c, { on: d.deploy, reason: 'ScalingReplicaSet', message: `Scaled up replica set ${d.current.name} from 0 to 1`, first: '26m', component: 'deployment-controller' });
  const exporter = deployment(c, { namespace: 'search', name: 'metrics-exporter', replicas: 1, created: c.ago('260d'), rolled: c.ago('21d'), revision: 4, containers: [{ name: 'exporter', image: 'ghcr.io/acme/search-metrics-exporter:1.3.0', resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '128Mi' } } }] });
  const last = crashed(c, '6d2h', 40 * 60_000, 137, 'OOMKilled');
  const ex = replica(c, exporter.current, { node: nodes[0], created: c.ago('21d'), states: { exporter: { state: { running: c.ago('6d1h58m') }, restarts: 11, last } } });
  c.log('search', ex.metadata.name, 'exporter', { current: [...linesAfter('iso', startedAt(ex), [[500, 'exporter listening on :9102']]), ...lines(c, 'iso', [['31s', 'scrape ok (412 series)']])], previous: linesAfter('iso', Date.parse(last.startedAt), [[500, 'exporter listening on :9102'], [39 * 60_000, 'WARN cardinality 88211 series, memory 121Mi']]) });
  webApp(c, { namespace: 'search', name: 'search-api', image: 'ghcr.io/acme/search-api:6.3.1', replicas: 2, created: '260d', rolled: '4d', revision: 27, requestLog: 'GET /search?q=boots 200 31ms' }, nodes);
  return c;
}

const built = build();
const POD = podOf(built, 'search', 'search-indexer-', waiting('CrashLoopBackOff'));
const INDEX = String.raw`\bindex\b|schema|format|version 7|\bv7\b`;

export const crashloopRollbackSchema: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'crashloop-rollback-schema',
    title: 'Crash loop after a rollback, beside a pod with old restarts (red herring)',
    question: 'Search results stopped updating about 25 minutes ago, right after we rolled search-indexer back to 6.1. In the search namespace we also see a pod with 11 restarts. Which pod is the problem, and why?',
    expected: [
      {
        finding: 'search-indexer (6.1.4) crash-loops: it exits at start',
        any_of: [C.crashLoop, C.exitsAtStart, String.raw`exit(s|ed)?\W{1,3}(with )?(code|status) 1\b|exit code 1\b`],
        all_of: [[String.raw`search-indexer|indexer|6\.1|old (build|version|release|binary)|the rollback`]],
      },
      {
        finding: 'the index was migrated to schema version 7 by 7.0, and 6.1 refuses to open it (no downgrade): roll forward to 7.0 or restore a version-6 index',
        any_of: [
          String.raw`(schema|index (format|version)|on-disk (index )?format|version 7|\bv7\b|newer (index|schema|format))\b.{0,80}\b(newer|migrat\w*|upgrad\w*|incompatib\w*|downgrad\w*|not supported|unsupported|too new|refus\w*)`,
          String.raw`(migrat\w*|upgrad\w*|convert\w*|rewr(ote|itten))\b.{0,40}\b(index|schema|format)`,
          String.raw`(can ?not|can't|cannot|unable to|refus\w* to|won't|fails? to|does ?n[o']t|could ?n[o']t) (open|read|load|use|understand|support|start on|handle)\b`,
          String.raw`refus\w* to downgrade|\bno downgrade|(can ?not|can't|cannot) (be )?downgrade`,
          String.raw`(newer|too new|more recent) than (it|this|the old|6\.1)`,
        ],
        all_of: [[INDEX]],
      },
    ],
    must_not: [
      String.raw`metrics-exporter\b.{0,40}(is|was) (the (problem|cause|culprit)|crash-?looping|broken|failing)`,
      String.raw`(rais|increas|bump)\w* .{0,30}metrics-exporter|metrics-exporter('s)? memory limit`,
      WRONG.oom,
      WRONG.imagePull,
      WRONG.probe,
      String.raw`(disk|pvc|volume)\b.{0,30}(full|corrupt\w*|missing)`,
    ],
    tags: ['crash-loop', 'medium', 'red-herring', 'rollback', 'logs'],
    difficulty: 'medium',
    verdict: { healthy: false, causes: [{ category: 'crash-loop', objects: ['deployment/search/search-indexer', `pod/search/${POD}`] }] },
    fixtures: [
      { label: 'correct', note: 'the right pod, the right reason, the red herring dismissed', answer: `The problem is ${POD}: since the rollback it is in CrashLoopBackOff (10 restarts, exit code 1). Its log: "index schema version 7 is newer than this build supports (6); refusing to downgrade" — 7.0 migrated the index, and 6.1 cannot open it. Roll forward to 7.0 (and fix whatever the rollback was for), or restore a version-6 index. The metrics-exporter restarts are old: all from an OOM six days ago; it has run cleanly since.` },
      { label: 'correct', note: 'other words', answer: 'Going back to 6.1 broke indexing: the newer release had upgraded the on-disk index format, and the old build refuses to start on it, so Kubernetes keeps restarting it. The pod with 11 restarts is a leftover from last week and is healthy now.' },
      { label: 'correct', note: 'with a verdict', answer: `search-indexer 6.1 crash-loops: the index schema (v7) is newer than it supports.\n\n${verdictBlock({ healthy: false, causes: [{ category: 'crash-loop', objects: ['deployment/search/search-indexer'] }], fix: 'roll forward to 7.0 or restore a v6 index' })}` },
      { label: 'wrong', note: 'follows the red herring', answer: 'metrics-exporter is the problem: it has 11 restarts and was OOMKilled; raise its memory limit and search will update again.' },
      { label: 'wrong', note: 'right pod, wrong reason', answer: 'search-indexer crash-loops because its index volume is full; resize the disk.' },
      { label: 'wrong', note: 'negation of the cause', answer: 'The rollback is not the problem and the schema is compatible; search-indexer is OOMKilled while loading the index.' },
      { label: 'wrong', note: 'raw output', answer: raw(`search   ${POD}   0/1   CrashLoopBackOff   10 (4m2s ago)   26m\nsearch   metrics-exporter-…-…   1/1   Running   11 (6d ago)   21d`) },
    ],
  },
  proof: {
    calls: [{ tool: 'list_unhealthy_pods', args: { namespace: 'search' } }, { tool: 'get_pod_logs', args: { namespace: 'search', pod: POD, previous: true } }],
    facts: [new RegExp(`search/${POD}: .*CrashLoopBackOff.*exit code 1`), /index schema version 7 is newer than this build supports \(6\)/, /metrics-exporter-\w+-\w+: .*restarts: 11; last termination: OOMKilled, exit code 137 at 2026-11-28/],
  },
};
