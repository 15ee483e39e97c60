import type { JobRecord } from '../../shared';

/**
 * What quitting the desktop app does while jobs run. The engine lives in the app's process, so
 * quitting ends every running job. A job that rents a marketplace machine costs money until its
 * teardown releases the machine, so the user is asked first:
 *   - cancel the jobs and release their machines, then quit (the app waits for every teardown);
 *   - keep them running: the window closes but the app stays in the tray (or dock) until they end;
 *   - or not quit at all.
 * Without renting jobs the app quits at once (running jobs still get the engine's graceful stop).
 */

export type QuitJob = Pick<JobRecord, 'job_id' | 'kind' | 'status' | 'request' | 'resources'>;

/** True for a running job that holds, or is about to rent, a marketplace machine. */
export function rentsMachine(job: QuitJob): boolean {
  if (job.status !== 'running') return false;
  const resources = job.resources;
  if (resources?.marketplace_instance_id != null && resources.marketplace_instance_released !== true) return true;
  const request = job.request as Record<string, unknown> | null;
  return request?.marketplace === true;
}

export type QuitChoice = 'cancel-and-quit' | 'keep-running' | 'stay';

export type QuitDialog = {
  type: 'warning';
  title: string;
  message: string;
  detail: string;
  buttons: string[];
  defaultId: number;
  cancelId: number;
  /** The choice behind each button, in order. */
  choices: QuitChoice[];
};

export type QuitPlan = { kind: 'quit'; running: number } | { kind: 'ask'; renting: QuitJob[]; running: number; dialog: QuitDialog };

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function planQuit(running: readonly QuitJob[]): QuitPlan {
  const active = running.filter((j) => j.status === 'running');
  const renting = active.filter(rentsMachine);
  if (renting.length === 0) return { kind: 'quit', running: active.length };
  const others = active.length - renting.length;
  const machines = plural(renting.length, 'job rents a marketplace machine', 'jobs rent marketplace machines');
  const detail = [
    `Quitting stops ${renting.length === 1 ? 'it' : 'them'}. Cancel and release: each job is cancelled, its machine destroyed, and benchdesk quits once every machine is released (this can take a minute).`,
    'Keep running: the window closes and benchdesk stays in the tray (the dock on macOS) until the jobs finish; the API keeps serving the CLI.',
    others > 0 ? `${plural(others, 'other running job', 'other running jobs')} without a machine will be stopped on quit.` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  return {
    kind: 'ask',
    renting,
    running: active.length,
    dialog: {
      type: 'warning',
      title: 'Quit benchdesk',
      message: `${machines} right now.`,
      detail,
      buttons: ['Cancel jobs and release machines', 'Keep running in the background', "Don't quit"],
      choices: ['cancel-and-quit', 'keep-running', 'stay'],
      // The safe default for money is releasing; Escape means "don't quit".
      defaultId: 0,
      cancelId: 2,
    },
  };
}

/** The dialog's answer as a choice; anything unexpected (a closed dialog) means "don't quit". */
export function choiceFor(dialog: QuitDialog, response: number): QuitChoice {
  return dialog.choices[response] ?? 'stay';
}

/**
 * The app's quit state machine. `requestQuit` is called on every quit attempt (menu, Cmd+Q,
 * last window closed, OS logout); it returns what to do with that attempt.
 */
export type ShutdownPhase = 'running' | 'background' | 'closing' | 'closed';

export type QuitStep =
  /** Let the quit through: shutdown has finished. */
  | 'allow'
  /** Hold the quit: a teardown or the engine's shutdown is in flight. */
  | 'wait'
  /** Hold the quit and ask (or plan) first. */
  | 'decide';

export function quitStep(phase: ShutdownPhase): QuitStep {
  if (phase === 'closed') return 'allow';
  if (phase === 'closing') return 'wait';
  return 'decide';
}
