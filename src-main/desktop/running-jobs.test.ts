import { describe, expect, it } from 'vitest';
import { aboutDetail } from './about';
import { badgeText, RunningJobsTracker, trayTooltip } from './running-jobs';

describe('RunningJobsTracker', () => {
  it('coalesces a burst of events into at most one extra count', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    let calls = 0;
    let release: () => void = () => undefined;
    const tracker = new RunningJobsTracker({
      count: async () => {
        calls += 1;
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise<void>((r) => (release = r));
        inFlight -= 1;
        return calls;
      },
      onChange: () => undefined,
    });
    const first = tracker.refresh();
    for (let i = 0; i < 50; i++) tracker.onEvent({ event: 'job.running' });
    tracker.onEvent({ event: 'phase.provision' });
    release();
    await new Promise((r) => setTimeout(r, 0));
    release();
    await first;
    expect(calls).toBe(2);
    expect(maxInFlight).toBe(1);
    expect(tracker.current).toBe(2);
  });
});

describe('badge, tray and about texts', () => {
  it('says how many jobs run, with units', () => {
    expect(badgeText(0)).toBe('');
    expect(badgeText(3)).toBe('3');
    expect(badgeText(150)).toBe('99+');
    expect(trayTooltip(0)).toBe('benchdesk — no jobs running');
    expect(trayTooltip(1)).toBe('benchdesk — 1 job running');
    expect(trayTooltip(2, 'background')).toBe('benchdesk — 2 jobs running (in the background)');
    expect(trayTooltip(2, 'closing')).toMatch(/releasing machines/);
  });

  it('the about box names the version and where things are', () => {
    const text = aboutDetail({ version: '0.1.0', electron: '45.4.1', chrome: '140.0', node: '22.20.0', platform: 'linux', arch: 'x64', dataDir: '/home/u/.config/benchdesk', apiUrl: 'http://127.0.0.1:8080' });
    expect(text).toContain('Version 0.1.0');
    expect(text).toContain('Electron 45.4.1');
    expect(text).toContain('Data folder: /home/u/.config/benchdesk');
    expect(text).toContain('API: http://127.0.0.1:8080');
  });
});
