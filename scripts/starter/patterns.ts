/**
 * Concepts as regular expressions, shared by the starter scenarios: each is a finding or a wrong
 * cause in the words people use for it (kubectl's, and plain English), written for the statement
 * scorer (docs/suites.md, "Writing findings and must_not"): one clause each, a negation the
 * concept needs inside it ("does not exist", "never starts"), no bare topic word. A scenario puts
 * the object a finding is about in its `all_of`, so the two may be said in different statements.
 * Case-insensitive, as the scorer reads them.
 */

export const C = {
  /** A pod whose container is never created or started (a list: each a synonym of the finding). */
  neverStarts: [
    String.raw`CreateContainerConfigError|container ?config(uration)? error|config(uration)? error`,
    String.raw`(never|cannot|can't|can ?not|unable to|fails? to|failed to|won't|doesn't|does ?n[o']t|could ?n[o']t)\s(ever\s)?(come up|start|run|be (created|started)|gets? (its |the |a )?containers? (created|started|running)|boot)`,
    String.raw`(refus|unable|fail)\w* to (create|start|build) (the |its )?(container|pod)`,
    String.raw`containers?( is| was)? (never|not) (created|started)`,
  ],
  /** A process that ends as soon as it starts (a crash loop in plain words). */
  exitsAtStart: String.raw`(exits?|exited|exiting|quits?|quit|dies|died|crash\w*|aborts?|aborted|panics?|panicked|terminat\w*|stops?|stopped) (immediately |right away |instantly |straight away |again )?(right |just |shortly |seconds |milliseconds )?(after|at|on|during|while) (it )?(start\w*|boot\w*|launch\w*|init\w*)|(cannot|can't|can ?not|never|fails? to|failed to|won't|doesn't|does ?n[o']t|refus\w* to) (boot|stay up|come up|keep running|start)`,
  /** An all-clear in the words people use (a healthy scenario's finding: a bare dump of kubectl output is no answer). */
  allClear: [
    String.raw`nothing (is |looks |seems |appears )?(actually |really |currently |still )?(wrong|broken|amiss|failing|to (fix|worry about)|needs? (fixing|attention|to be done))`,
    String.raw`\bnothing to (do|fix)\b|\bno (action|fix|change) (is )?(needed|required)`,
    String.raw`\bno\b.{0,40}\b(problems?|issues?|errors?|faults?|failures?|failing|unhealthy|crash\w*|incidents?|concerns?)\b`,
    String.raw`(all|every(thing)?|each)\b.{0,60}\b(healthy|running|ready|fine|ok|okay|green|available|up|serving)\b`,
    String.raw`(looks?|seems?|is|are) (all |now )?(healthy|good|fine|ok|okay|green|in (good )?shape|in order)\b`,
    String.raw`(cluster|workloads?|everything|it|services?)\b.{0,30}\b(healthy|in good shape)`,
    String.raw`^(healthy|fine|green)\b(?!\s+\w)|\ball (clear|good|green)\b`,
  ],
  /** Said of a name (a key, a Secret, a Service): it is not there. The negation is the pattern's own. */
  absent: String.raw`missing|not found|absent|does ?n[o']t exist|no longer exists?|(is ?n[o']t|is not|was ?n[o']t|was not) (there|present|defined|set|in\b)|no such (key|secret|service|object)|(was |got |been )?(renamed|removed|deleted)|could ?n[o']t be found|(can't|cannot|can ?not) be found|never (added|created|defined|made)`,
  crashLoop: String.raw`crash[ -]?loop\w*|CrashLoopBackOff|keeps? (on |being )?(crashing|restarting|restarted|dying|exiting|failing)|restart\w* (it |them )?(again and again|over and over|repeatedly|in a loop|constantly|continuously|with (a |an |exponential )?back-?off|in back-?off)|back-?off restarting|(in|into) a (restart|crash) ?loop|restart loop`,
  oom: String.raw`OOM[ -]?kill\w*|out of memory|exit(s|ed)?\W{1,3}(with )?(code |status )?137|exit code 137|memory (limit|cgroup).{0,40}(exceeded|reached|hit)|(exceed|hit|reach|blow|go|goes|went|over)\w* (past |over |through )?(its |the )?(\d+ ?[MG]i )?(memory )?limit|killed .{0,30}(for|by|over) (using too much |exceeding its )?memory|(kernel|cgroup|oom.?killer)\W.{0,40}kill\w*|(runs?|ran|running) out of (memory|ram|heap)`,
  imagePull: String.raw`ImagePullBackOff|ErrImagePull|image ?pull (back-?off|error|fail\w*)|(image|tag).{0,60}(can ?not|can't|couldn't|could not|fail\w* to|unable to) (be )?pull\w*|pull\w* .{0,40}(fail\w*|error|denied|unauthori[sz]ed|refused|rejected)|(can ?not|can't|couldn't|could not|fail\w* to|unable to|won't|never) (download|fetch|pull|get) (its |the |their |an? )?(container )?image|(can ?not|can't|couldn't|could not|won't|fail\w* to) (be )?(pulled|downloaded)|(refus|reject|den(y|ies|ied)|block)\w* (the |its |their |every |each )?(image )?(pull|download)|wait\w* (for|on) (an |the |its |their )?image`,
  quota: String.raw`exceeded quota|quota\w*\b.{0,40}\b(exceed\w*|full|reached|used up|spent|exhausted|no (room|headroom)|maxed( out)?|at (its )?(limit|max\w*))|(exceed|hit|reach|over)\w* (the |its |a |their )?(namespace('s)? )?(resource ?|cpu )?quota|(blocked|refused|forbidden|rejected|denied|capped|stopped) by (the |a |its )?(namespace('s)? )?(resource ?|cpu )?quota|(cpu |namespace |resource )budget\b.{0,40}\b(spent|used up|exhausted|full|exceeded)|(quota|budget)\b.{0,30}\b(would be exceeded|has no room|is already (spent|used|full))`,
  noEndpoints: String.raw`\bno (ready |active |healthy |backing |matching )?(endpoints?|backends?|upstreams?)\b|endpoints?\b.{0,30}\b(empty|none|<none>|is blank)|(selector|labels?)\b.{0,60}\b(match(es)? (no|nothing|none|zero)|does ?n[o']t match|do ?n[o']t match|mismatch\w*|no longer match\w*|selects nothing)|(matches|selects) (no|zero|none of the) pods?|nothing (is )?(behind|backing|serving|answering)|no (\w+ )?(pods?|replicas?|endpoints?|backends?) (are )?(behind|backing|serving|answering)`,
  configError: String.raw`CreateContainerConfigError|container ?config(uration)? error`,
  scheduling: String.raw`FailedScheduling|unschedul\w+|can ?not be (scheduled|placed)|can't be (scheduled|placed)|(cannot|can't|could not|couldn't|unable to) (be )?(schedul\w*|placed?)|no (suitable |available |matching |eligible )?node|didn't match|0/\d+ nodes are available|(scheduler|scheduling) .{0,40}(wait\w*|refus\w*|keeps? (it|them) waiting|finds? no)|(keeps?|kept|left|stays?) (it |them )?(waiting|unscheduled)|wait\w* (forever|indefinitely)|no (place|room|space|node) (left )?(for|to put)|nowhere (to go|to run|legal|it can)|has nowhere|\b(is|are|stays?|remains?|stuck|sits?|left|still|goes|went|sitting|waiting) (in |at )?pending\b|(kube-)?scheduler (won't|will not|does ?n[o']t|can ?not|can't|cannot|refuses to|never) (put|place|schedule|bind|assign|find)`,
  memoryPressure: String.raw`memory ?pressure|low on (resource: )?(memory|ram)|(ran|runs?|running|got|was) (low|out|short) (of|on) (memory|ram)|out of memory|short of (memory|ram)|(memory|ram) (exhaust\w*|starv\w*|ran (low|out)|got (low|short)|(was |is )?(exhausted|full))|memory (eviction )?threshold|(hit|reached|crossed|below) (its |the )?(memory )?(eviction )?threshold`,
  deadline: String.raw`DeadlineExceeded|activeDeadlineSeconds|active deadline|deadline (was )?(exceeded|hit|reached)|ran (too )?long|timed out`,
  backoffLimit: String.raw`BackoffLimitExceeded|backoff ?limit`,
};

/** Wrong causes that are wrong in most scenarios (each scenario picks those that do not apply to it). */
export const WRONG = {
  /** The content of a value (a key, a file) is broken: wrong where the value is missing or fine. */
  badContent: String.raw`(invalid|malformed|broken|corrupt\w*|bad|wrong) (json|yaml|content|contents|value|flags? (value|content)|syntax)`,
  oom: String.raw`OOM[ -]?kill\w*|out of memory`,
  imagePull: String.raw`ImagePullBackOff|ErrImagePull|image pull (fail\w*|error)|(can ?not|can't|fail\w* to) pull`,
  insufficientCpu: String.raw`(insufficient|not enough|too little|lack of|out of|no (free|spare)) (free |spare |available )?(gpus? (and|or|&) )?(cpu|cores?)\b`,
  insufficientGpu: String.raw`(insufficient|not enough|too (few|little)|lack of|out of|no (free|spare)) (free |spare |available )?(nvidia\.com/)?gpus?\b`,
  insufficientMemory: String.raw`insufficient memory|not enough memory`,
  password: String.raw`(wrong|bad|incorrect|invalid|expired) (database )?password|password authentication failed`,
  pvc: String.raw`unbound (persistent ?volume ?claim|pvc)|pvc (is )?(pending|unbound)`,
  crashLoop: String.raw`crash[ -]?loop\w*|CrashLoopBackOff`,
  dnsDown: String.raw`(coredns|kube-dns|dns) (is )?(down|broken|failing|crash\w*|not resolving|outage)`,
  nodeDown: String.raw`\bnodes?\b.{0,40}\b(is |are |went |goes )?(not ?ready|down|unreachable|offline)\b`,
  netpol: String.raw`network ?polic\w*\b.{0,40}\b(block\w*|den(y|ies|ied)|drop\w*|isolat\w*|prevent\w*|cut\w* off)|(blocked|dropped|denied) by (a |the )?network ?polic\w*`,
  quota: String.raw`(resource ?)?quota (is )?(exceeded|full|reached)|exceeded quota`,
  // Not "forbidden" alone: a quota's refusal says "is forbidden: exceeded quota" too.
  rbac: String.raw`\brbac\b.{0,40}(den\w*|block\w*|forbid\w*|missing|problem|issue|refus\w*)|(forbidden|denied|blocked|refused) by rbac|(missing|no|lacks?|lacking) (a |the )?(role|rolebinding|role binding|permission|rbac)|not allowed by (a )?role|service ?account\b.{0,30}(lacks?|has no|without) (permission|rights|access)`,
  probe: String.raw`(readiness|liveness) probe (is )?(fail\w*|wrong|misconfigured)`,
  selector: String.raw`selector\w*\b.{0,40}(match(es)? (no|nothing)|does ?n[o']t match|do ?n[o']t match|mismatch|wrong|typo)`,
};

/** A fixture of raw tool output with no diagnosis: a fenced block, as an agent might paste it. */
export function raw(text: string, lead = ''): string {
  return `${lead}${lead ? '\n\n' : ''}\`\`\`\n${text.trim()}\n\`\`\``;
}

/** A structured verdict block, as the built-in agent ends its answer (design §12b). */
export function verdictBlock(v: { healthy: boolean; causes: { category: string; objects: string[] }[]; fix: string }): string {
  return `\`\`\`json\n${JSON.stringify(v)}\n\`\`\``;
}
