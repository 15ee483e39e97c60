import { readdirSync, readFileSync, rmSync } from 'node:fs';

/**
 * The processes of one agent run: its leader and, where process groups exist, everything in the
 * leader's group (drivers start grandchildren: `benchdesk driver holmes` → `holmes` → `kubectl`).
 * Stopping a tree is SIGTERM to the whole group, then SIGKILL once a grace period has passed if
 * anything still runs. Trees are tracked until they are gone, so an abrupt exit of this process
 * (a second Ctrl-C, an uncaught error) still kills them and removes their temporary directories.
 */

const useProcessGroups = process.platform !== 'win32';
const POLL_MS = 25;
/** After SIGKILL, how long to wait for the kernel to take the processes away. */
const KILL_SETTLE_MS = 1000;

export type ProcessTree = {
  /** The leader's pid (and, with `ownGroup`, the group id). */
  readonly pid: number;
  /** The leader heads its own process group (the default); false inside a driver, whose group is its parent's. */
  readonly ownGroup: boolean;
  /** A temporary directory given to the run (TMPDIR), removed once the tree is gone. */
  readonly tempDir?: string | undefined;
};

function groupTarget(tree: ProcessTree): number {
  return tree.ownGroup && useProcessGroups ? -tree.pid : tree.pid;
}

export function signalTree(tree: ProcessTree, signal: NodeJS.Signals): void {
  try {
    process.kill(groupTarget(tree), signal);
  } catch {
    // ESRCH: already gone.
  }
}

/** `state` and process group of a Linux process, from /proc/<pid>/stat (undefined once it is gone). */
function procStat(pid: number): { state: string; pgrp: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid pgrp …": comm may contain spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', pgrp: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

/** Whether a member of the group still runs; zombies (exited, waiting for a reaper that may never come) do not count. */
function groupHasLiveMember(pgid: number): boolean {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const stat = procStat(Number(name));
    if (stat && stat.pgrp === pgid && stat.state !== 'Z') return true;
  }
  return false;
}

/** Whether anything of the tree still runs. */
export function treeAlive(tree: ProcessTree): boolean {
  try {
    process.kill(groupTarget(tree), 0);
  } catch {
    return false;
  }
  if (process.platform !== 'linux') return true;
  if (tree.ownGroup) return groupHasLiveMember(tree.pid);
  const stat = procStat(tree.pid);
  return stat !== undefined && stat.state !== 'Z';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * SIGTERM (unless it was sent at `termSentAt`), then SIGKILL once `graceMs` has passed since the
 * SIGTERM if anything still runs. Resolves when the tree is gone (or a last second after SIGKILL).
 */
export async function stopTree(tree: ProcessTree, graceMs: number, termSentAt?: number): Promise<void> {
  let sentAt = termSentAt;
  if (sentAt === undefined) {
    if (!treeAlive(tree)) return;
    signalTree(tree, 'SIGTERM');
    sentAt = Date.now();
  }
  while (treeAlive(tree) && Date.now() < sentAt + graceMs) await sleep(POLL_MS);
  if (!treeAlive(tree)) return;
  signalTree(tree, 'SIGKILL');
  const until = Date.now() + KILL_SETTLE_MS;
  while (treeAlive(tree) && Date.now() < until) await sleep(POLL_MS);
}

const live = new Set<ProcessTree>();
let exitHookInstalled = false;

/** Kills what is left synchronously when this process exits (no time for a grace period then). */
function onExit(): void {
  for (const tree of live) {
    signalTree(tree, 'SIGKILL');
    if (tree.tempDir) rmSync(tree.tempDir, { recursive: true, force: true });
  }
  live.clear();
}

export function trackTree(tree: ProcessTree): void {
  live.add(tree);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', onExit);
  }
}

export function untrackTree(tree: ProcessTree): void {
  live.delete(tree);
}

/** Stops every tracked tree (server shutdown, after the engine had its chance to cancel them). */
export async function stopAllTrees(graceMs: number): Promise<void> {
  await Promise.all([...live].map((tree) => stopTree(tree, graceMs)));
}
