import { Cluster, appNamespace, baseCluster, deployment, event, evictedReplica, lines, linesAfter, replica, startedAt, webApp } from '../builder';
import { C, WRONG, raw, verdictBlock } from '../patterns';
import { type StarterScenario } from '../scenario';

/** A BestEffort importer with no memory limit fills a node: MemoryPressure, and the kubelet evicts pods. */

const NODE = 'ip-10-0-3-17.eu-west-1.compute.internal';

function build(): Cluster {
  const c = new Cluster({
    id: 'starter-node-memory-pressure',
    name: 'Starter: a node under memory pressure evicts pods',
    description: 'bulk-importer (no memory request or limit: BestEffort) grew to ~9.4 GiB on ip-10-0-3-17; the node reports MemoryPressure and the kubelet evicted the importer and two catalog pods. The replacements run on the other nodes.',
    recordedAt: '2026-11-25T07:35:00Z',
  });
  const { nodes } = baseCluster(c, { nodes: { 2: { pressure: { MemoryPressure: '6m' } } } });
  appNamespace(c, 'data', '60d');
  appNamespace(c, 'catalog', '500d');
  const importer = deployment(c, { namespace: 'data', name: 'bulk-importer', replicas: 1, created: c.ago('60d'), rolled: c.ago('2d'), revision: 5, containers: [{ name: 'importer', image: 'ghcr.io/acme/bulk-importer:0.9.4', args: ['--source=s3://acme-feeds/suppliers/', '--batch=500000'] }] });
  const message = `The node was low on resource: memory. Threshold quantity: 100Mi, available: 86532Ki. Container importer was using 9875408Ki, request is 0, has larger consumption of memory. `;
  evictedReplica(c, importer.current, { node: nodes[2], created: '2d', at: '5m40s', message, container: 'importer' });
  const again = replica(c, importer.current, { node: nodes[0], created: c.ago('5m39s') });
  c.log('data', again.metadata.name, 'importer', { current: linesAfter('py', startedAt(again), [[800, 'INFO importer: resuming from checkpoint batch 118 of 412'], [95_000, 'INFO importer: batch 119 loaded (500000 rows, resident 2.1 GiB)'], [260_000, 'INFO importer: batch 120 loaded (500000 rows, resident 4.3 GiB)']]) });

  const catalog = deployment(c, { namespace: 'catalog', name: 'catalog', replicas: 3, created: c.ago('500d'), rolled: c.ago('6d'), revision: 44, containers: [{ name: 'catalog', image: 'ghcr.io/acme/catalog:9.2.0', ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }], resources: { requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '1Gi' } } }] });
  for (const n of [nodes[0]]) {
    const p = replica(c, catalog.current, { node: n, created: c.ago('6d') });
    c.log('catalog', p.metadata.name, 'catalog', { current: [...linesAfter('iso', startedAt(p), [[1500, 'catalog 9.2.0 listening on :8080']]), ...lines(c, 'iso', [['22s', 'GET /v2/products/44120 200 9ms']])] });
  }
  for (const [i, used] of [[0, '402100Ki'], [1, '389760Ki']] as const) {
    evictedReplica(c, catalog.current, { node: nodes[2], created: '6d', at: `${5 - i}m12s`, seed: `ev${i}`, container: 'catalog', message: `The node was low on resource: memory. Threshold quantity: 100Mi, available: ${91000 + i * 4000}Ki. Container catalog was using ${used}, request is 256Mi, has larger consumption of memory. ` });
    const back = replica(c, catalog.current, { node: nodes[i], created: c.ago(`${5 - i}m11s`), seed: `back${i}` });
    c.log('catalog', back.metadata.name, 'catalog', { current: linesAfter('iso', startedAt(back), [[1500, 'catalog 9.2.0 listening on :8080']]) });
  }
  event(c, { on: nodes[2].object, reason: 'NodeHasInsufficientMemory', message: `Node ${NODE} status is now: NodeHasInsufficientMemory`, first: '6m', component: 'kubelet', host: NODE });
  event(c, { on: nodes[2].object, reason: 'EvictionThresholdMet', type: 'Warning', message: 'Attempting to reclaim memory', first: '6m', last: '4m10s', count: 3, component: 'kubelet', host: NODE });
  webApp(c, { namespace: 'catalog', name: 'search-gateway', image: 'ghcr.io/acme/search-gateway:3.0.2', replicas: 1, created: '200d', rolled: '20d', revision: 6 }, [nodes[1]]);
  return c;
}

export const nodeMemoryPressure: StarterScenario = {
  build,
  scenario: {
    scenario_id: 'node-memory-pressure',
    title: 'Node memory pressure: a pod without limits gets pods evicted',
    question: 'A few minutes ago several pods in the catalog and data namespaces were killed and now show as Failed, then came back elsewhere. What happened, and will it happen again?',
    expected: [
      {
        finding: 'node ip-10-0-3-17 is under memory pressure (MemoryPressure) and the kubelet evicted pods from it',
        any_of: [C.memoryPressure],
        all_of: [[String.raw`ip-10-0-3-17|\bnodes?\b|worker|machine|host`], [String.raw`evict\w*|threw (the )?pods off|kick\w* (the |some )?pods|pushed (the |some )?pods off|reclaim\w* (the )?memory`]],
      },
      {
        finding: 'bulk-importer has no memory request or limit (BestEffort) and used ~9.4 GiB: it caused the pressure and will do it again where it runs now',
        any_of: [
          String.raw`\bno (memory |ram )?(requests?|limits?)\b`,
          String.raw`without (a |any )?(memory |ram )?(requests?|limits?)`,
          String.raw`best-?effort`,
          String.raw`request is 0`,
          String.raw`(unbounded|uncapped|unlimited|unrestricted) (memory|ram|growth|usage)`,
          String.raw`(grew|grows|swell\w*|swoll\w*|balloon\w*|used|using|uses|consum\w*|reached|climbed) (up )?(to )?(about |around |nearly |~)?9(\.\d+)? ?(GiB|Gi|G|GB)`,
          String.raw`(memory|ram) (hog|leak)|hogg\w* (the )?(memory|ram)`,
          String.raw`(set|add|give|cap|limit)\w*.{0,30}(memory |ram )?(requests?|limits?|memory)`,
        ],
        all_of: [[String.raw`importer`]],
      },
    ],
    must_not: [
      String.raw`catalog\b.{0,40}(memory leak|leak\w*|is the (cause|culprit)|caused|(used|using|uses) too much)`,
      String.raw`(rais|increas|bump)\w* (the )?catalog('s)? (memory )?limit`,
      String.raw`(disk|ephemeral[- ]storage) ?pressure|out of disk|ran out of (disk|storage)`,
      WRONG.nodeDown,
      WRONG.imagePull,
      WRONG.crashLoop,
      WRONG.oom,
    ],
    tags: ['node-pressure', 'medium', 'eviction', 'resources', 'nodes'],
    difficulty: 'medium',
    verdict: { healthy: false, causes: [{ category: 'node-pressure', objects: [`node/${NODE}`, 'deployment/data/bulk-importer'] }] },
    fixtures: [
      { label: 'correct', note: 'node, evictions and the culprit', answer: `Node ${NODE} went into MemoryPressure 6 minutes ago and the kubelet evicted pods to reclaim memory: bulk-importer first ("Container importer was using 9875408Ki, request is 0"), then two catalog pods. bulk-importer has no memory request or limit (BestEffort), so it can grow until a node starves — it is already at 4.3 GiB on ip-10-0-1-21. Give it a memory request and limit.` },
      { label: 'correct', note: 'other words', answer: "One worker ran low on RAM: the importer job has no memory limits at all and swelled to about 9.4 GiB, so the kubelet threw pods off that machine (evictions) to protect it. The importer is now doing the same on another worker; cap its memory." },
      { label: 'correct', note: 'with a verdict', answer: `Evictions for memory pressure on ip-10-0-3-17, caused by bulk-importer running BestEffort (no request, no limit).\n\n${verdictBlock({ healthy: false, causes: [{ category: 'node-pressure', objects: [`node/${NODE}`, 'deployment/data/bulk-importer'] }], fix: 'set memory requests and limits on bulk-importer' })}` },
      { label: 'wrong', note: 'keywords, wrong culprit', answer: 'catalog has a memory leak: its pods were evicted for using too much memory on ip-10-0-3-17, and catalog caused the memory pressure. bulk-importer was just collateral damage.' },
      { label: 'wrong', note: 'wrong resource', answer: 'The node ran out of disk: the pods were evicted for ephemeral-storage pressure on ip-10-0-3-17.' },
      { label: 'wrong', note: 'negation of the cause', answer: 'There is no memory pressure anywhere; the pods were OOMKilled by their own limits and restarted.' },
      { label: 'wrong', note: 'raw output', answer: raw(`NAME                         READY   STATUS    RESTARTS   AGE\ncatalog-...                  0/1     Evicted   0          6d\nbulk-importer-...            0/1     Evicted   0          2d`) },
    ],
  },
  proof: {
    calls: [{ tool: 'get_node_conditions' }, { tool: 'list_unhealthy_pods' }, { tool: 'list_warning_events' }],
    facts: [/ip-10-0-3-17\.eu-west-1\.compute\.internal: MemoryPressure \(kubelet has insufficient memory available\); taints: node\.kubernetes\.io\/memory-pressure:NoSchedule/, /data\/bulk-importer-\w+-\w+: phase Failed.*pod Failed: Evicted \(The node was low on resource: memory.*Container importer was using 9875408Ki, request is 0/, /catalog\/catalog-\w+-\w+: phase Failed.*Evicted/, /EvictionThresholdMet.*Attempting to reclaim memory/],
    objects: [{ path: '/apis/apps/v1/namespaces/data/deployments/bulk-importer', facts: [/"resources":\{\}/] }],
  },
};
