// @vitest-environment happy-dom
import { act, useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReleaseInstanceResponse } from '../../shared';
import { byTestId, click, mount, until, type Mounted } from '../test-mount';
import { ReleaseMachineButton, type ReleaseTarget } from './ReleaseMachine';

let view: Mounted | null = null;
afterEach(() => {
  view?.unmount();
  view = null;
});

function fakeApi() {
  const released: unknown[] = [];
  return {
    released,
    api: {
      releaseInstance: async (input: { instance_id: number; force?: boolean }): Promise<ReleaseInstanceResponse> => {
        released.push(input);
        return { instance_id: input.instance_id, released: true, verified: true, message: 'gone', job_id: null };
      },
    },
  };
}

const target = (patch: Partial<ReleaseTarget> = {}): ReleaseTarget => ({
  instance_id: 4242,
  gpu: '2× RTX 4090',
  dph: 0.8,
  rentedAt: new Date(Date.now() - 30 * 60_000).toISOString(),
  classification: 'kept',
  label: 'benchdesk:job-1',
  ...patch,
});

const openDialog = () => document.querySelector<HTMLDialogElement>('[data-testid="release-confirm"]');

describe('ReleaseMachineButton', () => {
  it('asks first, naming the machine, its $/h and its cost so far, then releases it (no force for our own machine)', async () => {
    const { api, released } = fakeApi();
    let done: ReleaseInstanceResponse | null = null;
    view = mount(api, <ReleaseMachineButton target={target()} onReleased={(r) => (done = r)} />);
    click(byTestId(document, 'release-4242'));
    const dialog = openDialog();
    expect(dialog?.open).toBe(true);
    const facts = byTestId(dialog as HTMLElement, 'release-facts').textContent ?? '';
    expect(facts).toContain('#4242');
    expect(facts).toContain('2× RTX 4090');
    expect(byTestId(dialog as HTMLElement, 'release-dph').textContent).toBe('$0.80/h');
    // Half an hour at $0.80/h.
    expect(byTestId(dialog as HTMLElement, 'release-cost').textContent).toMatch(/\$0\.4\d*/);
    expect(released).toEqual([]);
    click(byTestId(dialog as HTMLElement, 'confirm-ok'));
    await until(() => done !== null, 'the release');
    expect(released).toEqual([{ instance_id: 4242 }]);
  });

  it("another install's machine: the confirm stays off until the acknowledgement, and the release is sent with force", async () => {
    const { api, released } = fakeApi();
    view = mount(api, <ReleaseMachineButton target={target({ classification: 'foreign', label: 'benchdesk:other-install:job-9' })} />);
    click(byTestId(document, 'release-4242'));
    const dialog = openDialog() as HTMLElement;
    expect(dialog.textContent).toContain('another benchdesk install');
    expect(dialog.textContent).toContain('benchdesk:other-install:job-9');
    const ok = byTestId<HTMLButtonElement>(dialog, 'confirm-ok');
    expect(ok.disabled).toBe(true);
    click(byTestId(dialog, 'release-foreign-ack'));
    expect(ok.disabled).toBe(false);
    click(ok);
    await until(() => released.length === 1, 'the forced release');
    expect(released).toEqual([{ instance_id: 4242, force: true }]);
  });

  it('a release that fails says why, in the dialog', async () => {
    const api = {
      releaseInstance: async () => {
        const { BenchdeskApiError } = await import('../../shared/client');
        throw new BenchdeskApiError({ type: 'x', title: 'Bad Gateway', status: 502, detail: 'Vast.ai refused the key', error: 'Vast.ai refused the key', code: 'upstream_error' });
      },
    };
    view = mount(api, <ReleaseMachineButton target={target()} />);
    click(byTestId(document, 'release-4242'));
    click(byTestId(openDialog() as HTMLElement, 'confirm-ok'));
    await until(() => document.querySelector('[data-testid="release-error"]') !== null, 'the error');
    expect(byTestId(document, 'release-error').textContent).toContain('Vast.ai refused the key');
  });

  it('says the outcome even when the page stops offering Release before the answer arrives (the release event came first)', async () => {
    let answer: ((r: ReleaseInstanceResponse) => void) | null = null;
    const api = { releaseInstance: () => new Promise<ReleaseInstanceResponse>((resolve) => (answer = resolve)) };
    let hide: () => void = () => undefined;
    let done: ReleaseInstanceResponse | null = null;
    function Panel() {
      const [shown, setShown] = useState(true);
      hide = () => setShown(false);
      return shown ? <ReleaseMachineButton target={target()} onReleased={(r) => (done = r)} /> : <p>released</p>;
    }
    view = mount(api, <Panel />);
    click(byTestId(document, 'release-4242'));
    click(byTestId(openDialog() as HTMLElement, 'confirm-ok'));
    await until(() => answer !== null, 'the release request');
    // The pushed event marks the machine released: the button (and its dialog) go away.
    act(() => hide());
    expect(document.querySelector('[data-testid="release-4242"]')).toBeNull();
    act(() => answer?.({ instance_id: 4242, released: true, verified: true, message: 'gone', job_id: null }));
    await until(() => done !== null, 'the outcome');
    expect(done).toMatchObject({ instance_id: 4242, verified: true });
  });
});
