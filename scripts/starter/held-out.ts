import type { StarterScenario } from './scenario';

/**
 * Held-out probes (issue 30's generalisation check): two answers per builder-written scenario — one
 * right in words its findings did not list, one wrong that uses the scenario's keywords — written
 * from each scenario's story before its patterns were rewritten for the statement scorer, then
 * scored once with the patterns as they were: **45 of 64 agreed** (14 of the 32 right ones, 31 of
 * the 32 wrong ones). That figure, not the agreement on fixtures the patterns were tuned to, is
 * the honest estimate of how the rules read an answer nobody has tried. They are fixtures now
 * (merged after each scenario's own), so a later change that breaks them shows.
 */

export type Probe = { answer: string; label: 'correct' | 'wrong'; note: string };

export const HELD_OUT_PROBES: Record<string, Probe[]> = {
  'configmap-missing-key': [
    { label: 'correct', note: 'held-out probe: other words (the key "isn\'t there" said in its own clause)', answer: "storefront 2.5.0 can't come up: its env var FEATURE_FLAGS points at a key named feature-flags in the storefront-config config map, and that key isn't there — the map holds features.json. Kubernetes therefore refuses to create the container, and the rollout waits on that pod forever. Rename the reference to features.json or add the key." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (bad JSON in the key, a readiness failure)', answer: "The rollout is blocked because the storefront-config ConfigMap's feature-flags key holds invalid JSON, so storefront 2.5.0 fails its readiness probe on /healthz and never becomes Ready. Fix the JSON in feature-flags." },
  ],
  'crashloop-bad-args': [
    { label: 'correct', note: 'held-out probe: other words (typo, usage text, status 2)', answer: "The new invoice-api 4.7.0 pod dies right after it starts: its args say --confg=/etc/invoice/config.yaml (a typo for -config), the binary doesn't recognise the flag, prints its usage text and exits with status 2. Kubernetes restarts it with back-off, so the rollout never progresses; the 4.6.2 pods keep serving. Correct the flag in the deployment spec." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (the config file missing)', answer: "invoice-api 4.7.0 restarts because it cannot read its config file /etc/invoice/config.yaml — the ConfigMap mounted there is missing, so the --confg flag points at nothing. Create the ConfigMap." },
  ],
  'crashloop-panic-release': [
    { label: 'correct', note: 'held-out probe: other words (Go panic, back-off)', answer: "pricing-engine 3.2.0 hits a Go panic ('assignment to entry in nil map') while it loads its pricing rules, exits with code 2, and Kubernetes keeps restarting it in back-off. The Deployment won't retire the 3.1.4 pods until a new one is ready, so the release is stalled. Roll back to 3.1.4 and fix the nil map initialisation in the rules loader." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (OOM, the panic a symptom)', answer: "pricing-engine 3.2.0 is OOMKilled while loading its rules — the panic in the log is just a symptom of the memory limit. Raise the memory limit of the pricing-engine container to 1Gi." },
  ],
  'image-pull-private-registry': [
    { label: 'correct', note: 'held-out probe: other words (401 Unauthorized, anonymous pull)', answer: "ledger-sync's image lives in the private ghcr.io/acme-private org, and the Deployment has no imagePullSecrets, so ghcr.io answers 401 Unauthorized to the kubelet's anonymous pull and the pods sit waiting for an image. Add the ghcr-pull secret to ledger-sync's pod spec (as ledger-api does)." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (a missing tag, credentials cleared)', answer: "ledger-sync's image tag does not exist on ghcr.io — the registry credentials are fine since ledger-api pulls from the same registry with ghcr-pull. Fix the tag to one that was pushed." },
  ],
  'image-pull-arch-mismatch': [
    { label: 'correct', note: 'held-out probe: other words (Graviton, x86, no matching platform)', answer: "The pod that never starts is on ip-10-0-3-17, the arm64 (Graviton m7g) node the autoscaler added two days ago. report-api 2.8.0 is only published for linux/amd64, so containerd finds no matching platform in the manifest and the pull fails there, while the copy on an x86 node runs. Build a multi-arch image or pin report-api to amd64 nodes with a nodeSelector on kubernetes.io/arch." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (registry rate limit, every architecture fine)', answer: "report-api 2.8.0's image pull fails because the registry rate-limits the new node ip-10-0-3-17 (too many requests); the image itself is fine for every architecture. Wait, or add a pull secret." },
  ],
  'oom-sidecar': [
    { label: 'correct', note: 'held-out probe: other words (the kernel kills envoy, exit 137)', answer: "payments is healthy; the fault is inside the checkout pods. Their envoy proxy container has a 64Mi memory limit, and with sale traffic it exceeds it and the kernel kills it (exit 137, reason OOMKilled). While envoy restarts, checkout's outbound calls to payments fail, which is why the checkout logs blame payments. Give envoy a larger memory limit, e.g. 256Mi." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (payments down, the app container OOM)', answer: "The payments service is down: checkout logs connection refused to payments, and the checkout container itself is OOMKilled under the sale load. Scale payments up and raise the checkout app container's memory." },
  ],
  'node-memory-pressure': [
    { label: 'correct', note: 'held-out probe: other words (ran short of RAM, BestEffort, eviction threshold)', answer: "ip-10-0-3-17 ran short of RAM: bulk-importer in data has no memory request or limit (BestEffort QoS) and grew to about 9.4 GiB, so the node hit its memory eviction threshold and the kubelet evicted the importer and two catalog pods; they were rescheduled onto the other nodes. It will recur whenever the importer runs there, unless you give bulk-importer requests and limits." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (catalog OOMKilled by its own limits, bulk-importer cleared)', answer: "The catalog pods were OOMKilled by their own memory limits, and ip-10-0-3-17 is NotReady. bulk-importer is not involved. Raise the catalog memory limits." },
  ],
  'unschedulable-node-selector': [
    { label: 'correct', note: 'held-out probe: other words (no node carries the label)', answer: "ml-inference's new pods can't be placed anywhere: the pod template requires node.kubernetes.io/instance-type=g5.xlarge, and since the g5 node group was deleted last week no node carries that label. With the Recreate strategy the old pods were stopped first, so nothing serves. Drop or update the nodeSelector (or bring back a g5 node)." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (insufficient resources, the selector cleared)', answer: "ml-inference is Pending because the nodes have insufficient GPU and CPU for its requests; the nodeSelector is correct and matches the g5 nodes. Add a bigger node group." },
  ],
  'unschedulable-gpu-taint': [
    { label: 'correct', note: 'held-out probe: other words (no toleration, the scheduler won\'t put it there)', answer: "llm-server requests nvidia.com/gpu: 1, and the only node with a GPU, ip-10-0-4-8, carries the taint nvidia.com/gpu=present:NoSchedule. llm-server's pod spec has no toleration for it (the test job had one), so the scheduler won't put it there and the other nodes have no GPU at all. Add a toleration for nvidia.com/gpu to the deployment." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (device plugin down, the taint cleared)', answer: "llm-server is stuck because the NVIDIA device plugin on the GPU node isn't running, so the node advertises 0 GPUs; the taint is fine since the test job ran there. Reinstall the device plugin." },
  ],
  'pvc-zone-conflict': [
    { label: 'correct', note: 'held-out probe: other words (EBS attaches only in its zone, the only node cordoned)', answer: "kafka-2 is Pending. Its volume (the PV behind data-kafka-2) is an EBS disk in eu-west-1c, and EBS can only attach within its zone; the only eu-west-1c node, ip-10-0-3-17, is still cordoned after this morning's maintenance. So the scheduler finds no node with a matching volume zone. Uncordon ip-10-0-3-17 and kafka-2 will start." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (an unbound claim, the node cleared)', answer: "kafka-2 is Pending because its PVC data-kafka-2 is unbound: the storage class doesn't exist anymore. The node ip-10-0-3-17 is fine and schedulable. Recreate the storage class." },
  ],
  'pvc-multi-attach': [
    { label: 'correct', note: 'held-out probe: other words (attach refused, RollingUpdate deadlock, Recreate)', answer: "The wiki volume wiki-data is ReadWriteOnce and still attached to the node where the old wiki pod runs; the upgrade's new pod landed on the other node, so the EBS attach is refused (Multi-Attach error) and the new pod waits in ContainerCreating. Deadlock: RollingUpdate keeps the old pod until the new one is ready. Use strategy: Recreate for wiki (or pin it to one node) so the old pod releases the disk first." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (a slow image pull, the volume cleared)', answer: "The new wiki pod is stuck in ContainerCreating because the wiki:1.43.0 image is very large and still pulling; the volume wiki-data is fine. Wait for the pull, or pre-pull the image." },
  ],
  'liveness-probe-timeout': [
    { label: 'correct', note: 'held-out probe: other words (killed by its own liveness check, gives up after 1 second)', answer: "search-api is being killed by its own liveness check: /healthz waits on Elasticsearch's cluster-health call, which takes 1.2–2.5 s under morning load, but the check gives up after 1 second. After three misses in a row the kubelet restarts the container (exit 143), dropping in-flight searches — the connection resets. Increase timeoutSeconds or make /healthz not call Elasticsearch." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (Elasticsearch failing, OOM, the probe cleared)', answer: "Elasticsearch is overloaded and failing: its slow cluster health makes search-api return errors, and search-api is OOMKilled (exit 143). Scale Elasticsearch and raise search-api's memory; the liveness probe is not the issue." },
  ],
  'deployment-scaled-zero': [
    { label: 'correct', note: 'held-out probe: other words (replicas: 0, no pods behind the Service)', answer: "Someone set recommendations to replicas: 0 about 35 minutes ago (during the load-test clean-up), so its Service has no pods behind it; the storefront's calls to recommendations get connection refused and it hides the widget. Scale recommendations back to 3." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (a selector mismatch with 3 replicas running)', answer: "recommendations' Service selector doesn't match its pods' labels, so the endpoints list is empty; the deployment has its 3 replicas running. Fix the selector." },
  ],
  'ingress-backend-renamed': [
    { label: 'correct', note: 'held-out probe: other words (points at a Service that no longer exists, no upstream)', answer: "The upgrade renamed the web Service from frontend to web-frontend. The shop-public Ingress isn't part of the chart and still points shop.example.com at service frontend port 80, which no longer exists, so ingress-nginx has no upstream and returns 503. Change the Ingress backend to web-frontend." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (readiness failures empty web-frontend)', answer: "ingress-nginx returns 503 because the web-frontend pods are failing their readiness probe, so the Service web-frontend has no ready endpoints. Fix the readiness probe path." },
  ],
  'netpol-default-deny': [
    { label: 'correct', note: 'held-out probe: other words (dropped by the network, only admits monitoring)', answer: "Connections from orders-api to orders-db are dropped by the network: 42 minutes ago the hardening change put a default-deny-ingress policy on the data namespace that only admits traffic from monitoring. orders-api's connection attempts time out, so it can't get a DB connection and goes unready. Add a NetworkPolicy in data allowing ingress from the shop namespace (orders-api) on 5432." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (a changed password, the policy dismissed)', answer: "orders-db is rejecting orders-api's login: the database password changed during the hardening, and the default-deny-ingress policy has nothing to do with it as it only applies to monitoring. Update the secret." },
  ],
  'netpol-egress-dns': [
    { label: 'correct', note: 'held-out probe: other words (CoreDNS cleared first, port 53 not allowed)', answer: "Don't restart CoreDNS, it's healthy and other namespaces resolve fine. The restrict-egress policy applied an hour ago to payments-gateway only allows egress on 443 and to the data namespace on 5432, so its pods can't send anything to kube-dns on port 53 and every lookup times out. Add an egress rule to kube-system on UDP/TCP 53." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (CoreDNS blamed, the policy called unrelated)', answer: "CoreDNS is failing to answer payments-gateway's queries; restart CoreDNS. The restrict-egress NetworkPolicy allows port 443 and 5432, so it is unrelated." },
  ],
  'dns-coredns-crashloop': [
    { label: 'correct', note: 'held-out probe: other words (restarting over and over, typo in the forward line)', answer: "Cluster DNS is gone: both coredns pods in kube-system are restarting over and over because the Corefile in the coredns ConfigMap has a typo in the forward line ('10.0.0.2:53x'). The typo was made two days ago but the old pods never reloaded; the node group upgrade rescheduled them and the new ones refuse to parse it. Fix the forward address to 10.0.0.2:53." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (CNI broken on new nodes, the ConfigMap cleared)', answer: "The new nodes from the upgrade are NotReady because the VPC CNI is broken, so pods can't reach port 53. The coredns ConfigMap looks fine. Roll back the node group." },
  ],
  'dns-upstream-timeout': [
    { label: 'correct', note: 'held-out probe: other words (its forwarder stopped replying, SERVFAIL)', answer: "It's external name resolution: CoreDNS itself runs fine and answers cluster names, but its forwarder, the VPC resolver at 10.0.0.2, stopped replying after the network ACL change 35 minutes ago. Every lookup of api.stripe.com therefore returns SERVFAIL, and payments can't call Stripe. Revert the ACL so CoreDNS can reach 10.0.0.2 on port 53." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (CoreDNS crash-looping)', answer: "CoreDNS is crash-looping in kube-system, so DNS is down for everything; payments can't resolve api.stripe.com. Restart CoreDNS." },
  ],
  'node-notready-cni': [
    { label: 'correct', note: 'held-out probe: other words (never turned Ready, IMDS hop limit)', answer: "The new node ip-10-0-2-34 never turned Ready. On it, the aws-node pod (the VPC CNI) keeps crashing because it can't reach the instance metadata endpoint 169.254.169.254 — launch template v7 set the IMDS hop limit to 1, which blocks containers. Without a working network plugin the kubelet reports the runtime network not ready and the node keeps its not-ready taint, so report-builder stays Pending. Set the hop limit to 2 in the launch template." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (insufficient cpu, the new node called Ready)', answer: "report-builder is Pending because the pods request more CPU than any node has (insufficient cpu); the new node ip-10-0-2-34 is Ready but too small. Use a bigger instance type." },
  ],
  'job-deadline-exceeded': [
    { label: 'correct', note: 'held-out probe: other words (killed by its own time limit)', answer: "Last night's export-invoices run was killed by its own time limit: the job has activeDeadlineSeconds: 3600 and the month-end batch (4.1 M invoices instead of ~2.6 M) needed longer. It got to 71% after an hour, and the Job controller terminated it with reason DeadlineExceeded. Raise the deadline (e.g. 2.5 h) or split the month-end export." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (OOM and backoff limit, the deadline dismissed)', answer: "export-invoices failed because its pod was OOMKilled at 71% of the month-end batch, then hit its backoff limit. Raise the memory limit; the deadline is not the problem." },
  ],
  'job-oom-backoff': [
    { label: 'correct', note: 'held-out probe: other words (killed by the kernel for exceeding the memory limit, stopped retrying)', answer: "reindex-catalog-2026-12 pulls all 1.9 M products into memory, but its container may only use 1Gi: all three attempts were killed by the kernel for exceeding the memory limit (exit 137). After the third, the Job controller stopped retrying (backoffLimit 2 reached), so the Job is Failed. Give it more memory (say 4Gi) or make it stream in batches." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (a deadline, OOM denied)', answer: "The reindex job failed because it exceeded its activeDeadlineSeconds and timed out; the pods were not OOMKilled, exit 137 is just the SIGKILL from the deadline. Raise the deadline." },
  ],
  'cronjob-suspended': [
    { label: 'correct', note: 'held-out probe: other words (paused, suspend: true)', answer: "Nothing is failing: the daily-sales-report CronJob has been paused (suspend: true) since Friday's warehouse incident, so the scheduler hasn't created a job since then. Friday's run completed fine. Resume it by setting spec.suspend back to false." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (runs failing, suspension denied)', answer: "Yes, daily-sales-report is failing: each run since Friday hits its backoff limit because the warehouse database is down. The CronJob is not suspended. Fix the DB connection." },
  ],
  'quota-exceeded': [
    { label: 'correct', note: 'held-out probe: other words (caps CPU requests, refused when creating)', answer: "The marketing namespace's ResourceQuota (compute-quota) caps CPU requests at 4 cores; 3800m is already requested and each campaign-api pod asks for 500m, so the ReplicaSet is refused when it tries to create the 3rd and 4th pods. Raise the quota or lower the pods' CPU request." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (insufficient node cpu, the quota cleared)', answer: "The two extra campaign-api pods are Pending with insufficient cpu on the nodes; the quota has room left. Add a node." },
  ],
  'quota-requires-limits': [
    { label: 'correct', note: 'held-out probe: other words (rejects every pod, no resources declared)', answer: "The API server rejects every notifier pod at creation: team-quota in notifications constrains requests and limits for cpu and memory, so each pod must declare them, and notifier's containers specify no resources (there's no LimitRange to fill in defaults). That's why the ReplicaSet has 0 pods. Add requests and limits to notifier or add a LimitRange." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (RBAC, the quota cleared)', answer: "notifier has 0 pods because its ServiceAccount lacks RBAC permission to create pods; team-quota is not exceeded. Grant the role." },
  ],
  'rbac-forbidden-list': [
    { label: 'correct', note: 'held-out probe: other words (not permitted to read ConfigMaps in shop)', answer: "config-sync runs, but its service account isn't permitted to read ConfigMaps in shop: its Role and RoleBinding exist only in the ops namespace, and the watch of shop added two days ago is refused by the API server every few seconds. Create a Role and RoleBinding in shop for the config-sync service account." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (a NetworkPolicy, RBAC cleared)', answer: "config-sync can't reach the API server because a NetworkPolicy in ops blocks its egress; RBAC is fine since the RoleBinding exists. Allow egress to the API server." },
  ],
  'rbac-leader-election': [
    { label: 'correct', note: 'held-out probe: other words (Role never updated to allow leases)', answer: "backup-operator 2.0 moved its leader-election lock from a ConfigMap to a coordination.k8s.io Lease, but its Role in ops was never updated to allow leases. The API server refuses the get on the Lease, the operator can't become leader, exits with status 1 and is restarted in a loop. Since Recreate replaced 1.9, nothing runs backups. Add get/create/update on leases to the backup-operator Role." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (OOM, the Role cleared)', answer: "backup-operator 2.0 crash-loops because it is OOMKilled: 2.0 uses more memory than 1.9. The Role and leader election are fine. Raise its memory limit." },
  ],
  'healthy-noisy': [
    { label: 'correct', note: 'held-out probe: all-clear in other words, the noise named', answer: "No, nothing is broken at the moment. The page was cart's rollout: its new pods weren't ready for a few seconds while starting, then became ready. catalog's 3 restarts date from a node reboot six days ago, the Evicted storefront pod is five days old and just hasn't been cleaned up, the cleanup job's pods are Completed, and the sandbox claim waits for a consumer because sandbox-db has 0 replicas on purpose. You can delete the old evicted pod." },
    { label: 'wrong', note: 'held-out probe: false alarm with the noise\'s keywords (restarts, Pending claim)', answer: "Yes — the catalog pod on ip-10-0-1-21 is still restarting and the sandbox claim data-sandbox-db-0 is stuck Pending, so sandbox-db cannot start. Bind the claim by creating a PV." },
  ],
  'healthy-after-rollout': [
    { label: 'correct', note: 'held-out probe: all-clear in other words (warnings from the first seconds)', answer: "No. Those warnings are from the first seconds of each 4.2 pod's life: the readiness check got connection refused while the JVM was still starting, then the pods became ready. All three checkout 4.2 pods are ready and serving, and the old ones were stopped normally. Nothing to do." },
    { label: 'wrong', note: 'held-out probe: false alarm (a readiness problem, roll back)', answer: "Yes, checkout 4.2 has a readiness problem: its pods refuse connections on the probe port and will keep flapping. Increase initialDelaySeconds and roll back to 4.1 until it's fixed." },
  ],
  'crashloop-rollback-schema': [
    { label: 'correct', note: 'held-out probe: other words (cannot open a version-7 index, keeps restarting)', answer: "The problem is search-indexer, not metrics-exporter. 7.0 migrated the search index schema to version 7, and 6.1 can't open a version-7 index, so after the rollback it exits at start and Kubernetes keeps restarting it. metrics-exporter's 11 restarts all date from an OOM episode six days ago; it's been stable since. Roll forward to 7.0 (or restore the v6 index)." },
    { label: 'wrong', note: 'held-out probe: the red herring blamed with the scenario\'s keywords', answer: "The pod with 11 restarts, metrics-exporter, is the problem: it is OOMKilled and crash-looping, which stops search results updating. search-indexer 6.1 is healthy. Raise metrics-exporter's memory." },
  ],
  'two-causes-image-and-secret': [
    { label: 'correct', note: 'held-out probe: both causes in other words (letter O, Secret never created)', answer: "Two separate faults. frontend: the new image tag is 5.0.O with a capital letter O instead of a zero, that tag was never pushed, so the pull fails (not found) and the pod sits in image pull back-off. orders-api 4.0: it takes DB_PASSWORD from a Secret named orders-db-v2 which doesn't exist in shop, so the kubelet can't build the container's environment. Fix the tag to 5.0.0 and create the orders-db-v2 secret." },
    { label: 'wrong', note: 'held-out probe: keywords, one cause only and the wrong mechanism (pull credentials)', answer: "frontend's image can't be pulled because ghcr.io needs credentials (no imagePullSecret), and orders-api is fine — its Secret orders-db-v2 exists. Add the pull secret to frontend." },
  ],
  'two-causes-gateway-and-auth': [
    { label: 'correct', note: 'held-out probe: both causes in other words (a numbered list)', answer: "Two unrelated breakages.\n1) api-gateway in edge won't stay up: the gateway-routes ConfigMap edited at 14:00 is not valid YAML (bad indentation), the gateway exits on start and restarts in a loop, so the load balancer returns 502.\n2) In identity, the auth Service selects app=auth-service but the redeployed auth pods are now labelled app=auth, so the Service has no endpoints and logins get connection refused.\nFix the YAML and align the selector." },
    { label: 'wrong', note: 'held-out probe: one cause only, the other dismissed with its keywords', answer: "The api-gateway is crash-looping because of a bad gateway-routes ConfigMap, and that is also why logins fail — auth goes through the gateway. The auth Service selector is fine." },
  ],
  'unschedulable-anti-affinity': [
    { label: 'correct', note: 'held-out probe: other words (no two replicas may share a node)', answer: "redis-cache has a hard (requiredDuringSchedulingIgnoredDuringExecution) pod anti-affinity on kubernetes.io/hostname: no two replicas may share a node. With three nodes and four replicas, the fourth has nowhere legal to go, so it stays Pending whatever the free CPU. Switch to preferred anti-affinity, add a node, or keep 3 replicas." },
    { label: 'wrong', note: 'held-out probe: keywords, wrong diagnosis (an unbound claim, anti-affinity dismissed)', answer: "The fourth redis-cache pod is Pending because its PersistentVolumeClaim is unbound; anti-affinity is not the problem since it is only preferred. Fix the storage class." },
  ],
};

/** The scenario with its held-out probes after its own fixtures. */
export function withHeldOutProbes(s: StarterScenario): StarterScenario {
  const probes = HELD_OUT_PROBES[s.scenario.scenario_id] ?? [];
  return { ...s, scenario: { ...s.scenario, fixtures: [...(s.scenario.fixtures ?? []), ...probes] } };
}
