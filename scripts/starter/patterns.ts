/**
 * Concepts as regular expressions, shared by the starter scenarios: each is a finding or a wrong
 * cause in the words people use for it (kubectl's, and plain English). Case-insensitive, as the
 * scorer reads them. A scenario's finding usually joins a concept to the object it is about.
 */

/** Either order, within `gap` characters: "orders-api … crash-looping" or "crash-looping … orders-api". */
export function near(a: string, b: string, gap = 120): string[] {
  return [`(${a}).{0,${gap}}(${b})`, `(${b}).{0,${gap}}(${a})`];
}

export const C = {
  crashLoop: String.raw`crash[ -]?loop\w*|CrashLoopBackOff|keeps? (on )?(crashing|restarting|dying|exiting)|restart\w* (it |them )?(again and again|over and over|repeatedly|in a loop|constantly|continuously)|back-?off restarting`,
  oom: String.raw`OOM[ -]?kill\w*|out of memory|exit code 137.{0,40}(memory|oom)|memory (limit|cgroup).{0,40}(exceeded|reached|hit)|killed .{0,30}(for|by|over) (using too much |exceeding its )?memory`,
  imagePull: String.raw`ImagePullBackOff|ErrImagePull|(image|tag).{0,60}(can ?not|can't|couldn't|could not|fail\w* to|unable to) (be )?pull\w*|pull\w* .{0,40}(fail\w*|error|denied|unauthori[sz]ed|refused|rejected)|(can ?not|can't|couldn't|could not|fail\w* to|unable to|won't) (download|fetch|pull|get) (its |the )?(container )?image|(can ?not|can't|couldn't|could not|won't|fail\w* to) (be )?(pulled|downloaded)`,
  insufficientCpu: String.raw`insufficient (cpu|memory)|not enough (cpu|memory)|(cpu|memory) (request|capacity).{0,40}(too (high|large|big)|exceeds?|more than)`,
  unboundPvc: String.raw`unbound (immediate )?persistent ?volume ?claim|pvc.{0,40}(pending|unbound|not bound)|storage ?class .{0,40}(missing|not found|doesn't exist|does not exist)`,
  probe: String.raw`(readiness|liveness|startup) probe.{0,60}(fail\w*|timed? ?out|404|500|refused|wrong)`,
  password: String.raw`password|credential|authenticat\w+ fail\w*|login (fail\w*|refused)`,
  dns: String.raw`dns|name resolution|resolv\w*|no such host|nxdomain|coredns|kube-dns`,
  netpol: String.raw`network ?polic\w+|netpol|firewall|traffic (is )?(blocked|denied|dropped)|(ingress|egress) (rule|policy)`,
  quota: String.raw`resource ?quota|exceeded quota|quota (exceeded|limit|reached|is full)|(namespace|cpu|resource) budget.{0,40}(spent|used up|exhausted|full|exceeded)`,
  rbac: String.raw`rbac|forbidden|(role|rolebinding|role binding|service ?account).{0,60}(missing|lacks|no permission|not allowed|cannot|can't|permission)|not (authori[sz]ed|allowed) to (list|get|watch|create|update|patch)`,
  nodeDown: String.raw`not ?ready|NodeStatusUnknown|unreachable|stopped posting|kubelet (is )?(down|dead|stopped|not running)|node (is )?(down|lost|gone|offline)`,
  evicted: String.raw`evict\w*`,
  noEndpoints: String.raw`no (ready |active |healthy )?endpoints?|endpoints?.{0,30}(empty|none|<none>)|(selector|labels?).{0,60}(match(es)? no|doesn't match|does not match|don't match|do not match|mismatch)`,
  configError: String.raw`CreateContainerConfigError|container ?config(uration)? error`,
  scheduling: String.raw`FailedScheduling|unschedul\w+|can ?not be scheduled|can't be scheduled|(cannot|can't|could not|couldn't|unable to) (be )?schedul\w*|no (suitable |available )?node|didn't match|0/\d+ nodes are available|(scheduler|scheduling) .{0,40}(wait\w*|refus\w*|keeps? (it|them) waiting)|(keeps?|kept|left|stays?) (it |them )?(waiting|unscheduled)|wait\w* (forever|indefinitely)|no (place|room|space|node) (left )?(for|to put)`,
  memoryPressure: String.raw`memory ?pressure|low on (resource: )?(memory|ram)|ran (low|out) (of|on) (memory|ram)|out of memory|(memory|ram) (exhaust\w*|starv\w*|ran (low|out)|got (low|short))`,
  deadline: String.raw`DeadlineExceeded|activeDeadlineSeconds|active deadline|deadline (was )?(exceeded|hit|reached)|ran (too )?long|timed out`,
  backoffLimit: String.raw`BackoffLimitExceeded|backoff ?limit`,
};

/** Wrong causes that are wrong in most scenarios (each scenario picks those that do not apply to it). */
export const WRONG = {
  oom: String.raw`OOM[ -]?kill\w*|out of memory`,
  imagePull: String.raw`ImagePullBackOff|ErrImagePull|image pull (fail\w*|error)|(can ?not|can't|fail\w* to) pull`,
  insufficientCpu: String.raw`insufficient cpu|not enough cpu`,
  insufficientMemory: String.raw`insufficient memory|not enough memory`,
  password: String.raw`(wrong|bad|incorrect|invalid|expired) (database )?password|password authentication failed`,
  pvc: String.raw`unbound (persistent ?volume ?claim|pvc)|pvc (is )?(pending|unbound)`,
  crashLoop: String.raw`crash[ -]?loop\w*|CrashLoopBackOff`,
  dnsDown: String.raw`(coredns|kube-dns|dns) (is )?(down|broken|failing|crash\w*|not resolving|outage)`,
  nodeDown: String.raw`node .{0,40}(is )?(not ?ready|down|unreachable)`,
  netpol: String.raw`network ?polic\w+ (is )?(block\w*|den\w+|drop\w*)`,
  quota: String.raw`(resource ?)?quota (is )?(exceeded|full|reached)|exceeded quota`,
  // Not "forbidden" alone: a quota's refusal says "is forbidden: exceeded quota" too.
  rbac: String.raw`rbac|(missing|no|lacks?) (a )?(role|rolebinding|role binding|permission)|not allowed by (a )?role`,
  probe: String.raw`(readiness|liveness) probe (is )?(fail\w*|wrong|misconfigured)`,
  selector: String.raw`selector .{0,40}(match(es)? no|doesn't match|does not match|mismatch|wrong)`,
};

/** A fixture of raw tool output with no diagnosis: a fenced block, as an agent might paste it. */
export function raw(text: string, lead = ''): string {
  return `${lead}${lead ? '\n\n' : ''}\`\`\`\n${text.trim()}\n\`\`\``;
}

/** A structured verdict block, as the built-in agent ends its answer (design §12b). */
export function verdictBlock(v: { healthy: boolean; causes: { category: string; objects: string[] }[]; fix: string }): string {
  return `\`\`\`json\n${JSON.stringify(v)}\n\`\`\``;
}
