import { choiceFor, planQuit, quitStep, type QuitChoice, type QuitDialog, type QuitJob, type ShutdownPhase } from './quit-policy';

/**
 * The desktop app's quit sequence, without Electron: main.ts feeds it every quit attempt and the
 * running-job count, and gives it the engine's operations and a way to ask the user.
 *
 * The rule it keeps: the app never exits while a teardown is in flight. Once closing starts, every
 * further quit attempt is held until `close()` (which waits for the engine's running jobs, their
 * teardowns included) has finished; only then does `exit()` run.
 */

export type DesktopShutdownDeps = {
  /** Every running job, all tenants (the store's view: jobs from the HTTP API count too). */
  listRunning(): Promise<QuitJob[]>;
  /** Request cancellation (the engine aborts the job; its workflow releases the machine). */
  cancel(jobId: string): Promise<unknown>;
  /** Resolves when that job has finished (its teardown done). */
  settled(jobId: string): Promise<void>;
  /** Shut the product down: API, engine (waits for running jobs and their cleanup), store. */
  close(): Promise<void>;
  /** Show the quit dialog; resolves with the button index. */
  ask(dialog: QuitDialog): Promise<number>;
  /** Let the process exit (app.quit() once the phase is 'closed'). */
  exit(): void;
  /** Told on every phase change (tray tooltip, closing windows for 'background'). */
  onPhase?(phase: ShutdownPhase): void;
  /** The user chose not to quit (main reopens a window if the last one was closed). */
  onStay?(): void;
  log?(message: string, err?: unknown): void;
};

export class DesktopShutdown {
  private phaseValue: ShutdownPhase = 'running';
  private deciding: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  constructor(private readonly deps: DesktopShutdownDeps) {}

  get phase(): ShutdownPhase {
    return this.phaseValue;
  }

  private setPhase(phase: ShutdownPhase): void {
    if (phase === this.phaseValue) return;
    this.phaseValue = phase;
    this.deps.onPhase?.(phase);
  }

  /**
   * Called for every quit attempt. Returns true when the attempt may proceed (shutdown is done);
   * false = hold it (the caller prevents the default), and this object finishes the job later.
   * `ask: false` (a signal such as SIGTERM, no user to ask) goes straight to closing.
   */
  requestQuit(options: { ask?: boolean } = {}): boolean {
    const step = quitStep(this.phaseValue);
    if (step === 'allow') return true;
    if (step === 'wait') return false;
    if (options.ask === false) {
      void this.startClosing([]);
      return false;
    }
    this.deciding ??= this.decide().finally(() => {
      this.deciding = undefined;
    });
    return false;
  }

  /** A window was opened again (second launch, dock click): the app is in the foreground. */
  resume(): void {
    if (this.phaseValue === 'background') this.setPhase('running');
  }

  /** The number of running jobs changed: in the background, the app quits once none are left. */
  onRunningCount(running: number): void {
    if (this.phaseValue === 'background' && running === 0) this.requestQuit();
  }

  /** Resolves when shutdown has finished (tests, and the e2e hooks). */
  async whenClosed(): Promise<void> {
    await this.closing;
  }

  private async decide(): Promise<void> {
    let running: QuitJob[];
    try {
      running = await this.deps.listRunning();
    } catch (err) {
      // Cannot tell what runs: close the safe way (the engine tears every running job down).
      this.deps.log?.('could not list running jobs before quitting', err);
      running = [];
    }
    const plan = planQuit(running);
    if (plan.kind === 'quit') {
      await this.startClosing([]);
      return;
    }
    let choice: QuitChoice;
    try {
      choice = choiceFor(plan.dialog, await this.deps.ask(plan.dialog));
    } catch (err) {
      this.deps.log?.('the quit dialog failed', err);
      choice = 'stay';
    }
    if (choice === 'stay') {
      this.deps.onStay?.();
      return;
    }
    if (choice === 'keep-running') {
      this.setPhase('background');
      return;
    }
    await this.startClosing(plan.renting.map((j) => j.job_id));
  }

  private startClosing(cancel: readonly string[]): Promise<void> {
    this.closing ??= (async () => {
      this.setPhase('closing');
      for (const jobId of cancel) {
        try {
          await this.deps.cancel(jobId);
        } catch (err) {
          this.deps.log?.(`could not cancel job ${jobId}`, err);
        }
      }
      // Wait for the cancelled jobs' teardowns first (the window still shows them live), then shut
      // the rest down; close() itself waits for whatever still runs, however long it takes.
      await Promise.all(cancel.map((jobId) => this.deps.settled(jobId).catch((err: unknown) => this.deps.log?.(`job ${jobId} did not settle`, err))));
      try {
        await this.deps.close();
      } catch (err) {
        this.deps.log?.('shutdown failed', err);
      }
      this.setPhase('closed');
      this.deps.exit();
    })();
    return this.closing;
  }
}
