import { describe, expect, it } from 'vitest';
import { choiceFor, planQuit, quitStep, rentsMachine, type QuitDialog, type QuitJob } from './quit-policy';
import { DesktopShutdown, type DesktopShutdownDeps } from './shutdown';

const job = (id: string, over: Partial<QuitJob> = {}): QuitJob => ({
  job_id: id,
  kind: 'benchmark',
  status: 'running',
  request: { marketplace: false },
  resources: null,
  ...over,
} as QuitJob);

describe('rentsMachine / planQuit', () => {
  it('a running marketplace job, or one holding an unreleased instance, rents a machine', () => {
    expect(rentsMachine(job('a', { request: { marketplace: true } as QuitJob['request'] }))).toBe(true);
    expect(rentsMachine(job('b', { resources: { marketplace_instance_id: 7, marketplace_instance_released: false } }))).toBe(true);
    expect(rentsMachine(job('c', { resources: { marketplace_instance_id: 7, marketplace_instance_released: true } }))).toBe(false);
    expect(rentsMachine(job('d'))).toBe(false);
    expect(rentsMachine(job('e', { status: 'succeeded', request: { marketplace: true } as QuitJob['request'] }))).toBe(false);
  });

  it('no renting job → quit at once; renting jobs → ask with three choices, Escape = stay', () => {
    expect(planQuit([job('a'), job('b', { status: 'queued' })])).toEqual({ kind: 'quit', running: 1 });
    const plan = planQuit([job('a', { request: { marketplace: true } as QuitJob['request'] }), job('b')]);
    if (plan.kind !== 'ask') throw new Error('expected ask');
    expect(plan.renting.map((j) => j.job_id)).toEqual(['a']);
    expect(plan.dialog.message).toBe('1 job rents a marketplace machine right now.');
    expect(plan.dialog.detail).toContain('1 other running job without a machine will be stopped on quit.');
    expect(plan.dialog.buttons).toHaveLength(3);
    expect(choiceFor(plan.dialog, 0)).toBe('cancel-and-quit');
    expect(choiceFor(plan.dialog, 1)).toBe('keep-running');
    expect(choiceFor(plan.dialog, plan.dialog.cancelId)).toBe('stay');
    expect(choiceFor(plan.dialog, 42)).toBe('stay');
  });

  it('quit attempts: held while closing, allowed only once closed', () => {
    expect(quitStep('running')).toBe('decide');
    expect(quitStep('background')).toBe('decide');
    expect(quitStep('closing')).toBe('wait');
    expect(quitStep('closed')).toBe('allow');
  });
});

type Harness = { shutdown: DesktopShutdown; log: string[]; exited: () => boolean; finishTeardown: (id: string) => void; answer: (i: number) => void; dialogs: QuitDialog[] };

function harness(running: QuitJob[]): Harness {
  const log: string[] = [];
  let exited = false;
  const teardowns = new Map<string, () => void>();
  const dialogs: QuitDialog[] = [];
  let answer: (i: number) => void = () => undefined;
  const deps: DesktopShutdownDeps = {
    listRunning: async () => running,
    cancel: async (id) => void log.push(`cancel ${id}`),
    settled: (id) =>
      new Promise<void>((resolve) => {
        teardowns.set(id, () => {
          log.push(`settled ${id}`);
          resolve();
        });
      }),
    close: async () => void log.push('close'),
    ask: (dialog) => {
      dialogs.push(dialog);
      return new Promise<number>((resolve) => (answer = resolve));
    },
    exit: () => {
      exited = true;
      log.push('exit');
    },
    onPhase: (p) => log.push(`phase ${p}`),
  };
  return { shutdown: new DesktopShutdown(deps), log, exited: () => exited, finishTeardown: (id) => teardowns.get(id)?.(), answer: (i) => answer(i), dialogs };
}

const tick = () => new Promise((r) => setTimeout(r, 0));
const renting = () => [job('m1', { request: { marketplace: true } as QuitJob['request'] }), job('x')];

describe('DesktopShutdown', () => {
  it('nothing renting → closes and exits without asking', async () => {
    const h = harness([job('x')]);
    expect(h.shutdown.requestQuit()).toBe(false);
    await tick();
    await h.shutdown.whenClosed();
    expect(h.dialogs).toHaveLength(0);
    expect(h.log).toEqual(['phase closing', 'close', 'phase closed', 'exit']);
    expect(h.shutdown.requestQuit()).toBe(true);
  });

  it('cancel and release: cancels the renting job, holds every quit until its teardown ends, then exits', async () => {
    const h = harness(renting());
    expect(h.shutdown.requestQuit()).toBe(false);
    await tick();
    expect(h.dialogs).toHaveLength(1);
    h.answer(0);
    await tick();
    expect(h.log).toEqual(['phase closing', 'cancel m1']);
    // More quit attempts (Cmd+Q again, OS logout) are held while the teardown is in flight.
    expect(h.shutdown.requestQuit()).toBe(false);
    expect(h.shutdown.requestQuit({ ask: false })).toBe(false);
    await tick();
    expect(h.exited()).toBe(false);
    expect(h.dialogs).toHaveLength(1);
    h.finishTeardown('m1');
    await h.shutdown.whenClosed();
    expect(h.log).toEqual(['phase closing', 'cancel m1', 'settled m1', 'close', 'phase closed', 'exit']);
    expect(h.shutdown.requestQuit()).toBe(true);
  });

  it("don't quit → nothing happens; a second attempt asks again", async () => {
    const h = harness(renting());
    h.shutdown.requestQuit();
    h.shutdown.requestQuit(); // a double Cmd+Q shows one dialog
    await tick();
    expect(h.dialogs).toHaveLength(1);
    h.answer(2);
    await tick();
    expect(h.shutdown.phase).toBe('running');
    expect(h.log).toEqual([]);
    h.shutdown.requestQuit();
    await tick();
    expect(h.dialogs).toHaveLength(2);
  });

  it('keep running → background; a reopened window resumes; with no jobs left in the background it quits', async () => {
    const h = harness(renting());
    h.shutdown.requestQuit();
    await tick();
    h.answer(1);
    await tick();
    expect(h.shutdown.phase).toBe('background');
    h.shutdown.onRunningCount(1);
    h.shutdown.resume();
    expect(h.shutdown.phase).toBe('running');
    h.shutdown.onRunningCount(0); // in the foreground, nothing happens
    expect(h.log).toEqual(['phase background', 'phase running']);

    h.shutdown.requestQuit();
    await tick();
    h.answer(1);
    await tick();
    expect(h.shutdown.phase).toBe('background');
  });

  it('a signal (no user to ask) closes at once; the engine tears running jobs down', async () => {
    const h = harness(renting());
    expect(h.shutdown.requestQuit({ ask: false })).toBe(false);
    await h.shutdown.whenClosed();
    expect(h.dialogs).toHaveLength(0);
    expect(h.log).toEqual(['phase closing', 'close', 'phase closed', 'exit']);
  });
});
