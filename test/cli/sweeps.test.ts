import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SweepRecordSchema } from '../../shared';
import { DEFAULT_FAKE_MODELS } from '../fakes/ollama';
import { OLLAMA_TEMPLATE_HASH } from '../fakes/vast';
import { heldRunner } from '../sweeps/helpers';
import { mustVast, startHarness, tempDir, type Harness } from '../workflows/harness';
import { buildCliBundle, cliEnv, runCli, stdoutJson, type CliRun } from './cli-harness';
import { killChildren } from '../helpers/children';

// Whatever a failed test left running (a server, a CLI) is stopped.
afterAll(killChildren);

/**
 * `benchdesk run-sweep` and `sweeps list|show|report|cancel`, the built CLI against a running
 * server on the fake Vast.ai and Ollama (the suite/serving jobs stood in for by an in-test runner).
 */

const TOKEN = 'cli-sweep-token-0123456789';
let h: Harness;
let cliPath: string;
let cleanupCli: () => Promise<void>;
let apiUrl: string;
let emptyDataDir: string;
const runner = heldRunner();

beforeAll(async () => {
  const [built, harness, dir] = await Promise.all([
    buildCliBundle(),
    startHarness({
      start: true,
      vast: { knobs: { pollsPerPhase: { scheduling: 0, created: 0, loading: 0 } } },
      ollama: { models: DEFAULT_FAKE_MODELS },
      env: { SERVICE_API_TOKENS: `default:${TOKEN}`, SERVICE_API_AUTH_DISABLED: '0' },
      extra: { sweepTuning: { runner: runner.runner } },
    }),
    tempDir('benchdesk-cli-sweep-'),
  ]);
  ({ cliPath, cleanup: cleanupCli } = built);
  h = harness;
  emptyDataDir = dir;
  apiUrl = `http://127.0.0.1:${(h.bd.app.server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await h?.close();
  await cleanupCli?.();
});

function cli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return runCli(cliPath, [...args, '--api-url', apiUrl], cliEnv({ BENCHDESK_DATA_DIR: emptyDataDir, BENCHDESK_TOKEN: TOKEN, ...env }));
}

const SWEEP = ['run-sweep', '--name', 'cli sweep', '-m', 'llama3.1:8b,qwen2.5:7b', '--gpu', 'RTX 3090', '--gpu', 'A100 SXM4', '--suite', 'starter', '--marketplace-template', OLLAMA_TEMPLATE_HASH, '--marketplace-max-dph', '2', '--max-total-cost', '1'];

describe('benchdesk run-sweep', () => {
  let sweepId = '';

  it('--json: only the final sweep record on stdout; 2 machines rented and released; exit 0', async () => {
    const before = mustVast(h).callsTo('asks').length;
    const run = await cli([...SWEEP, '--min-accuracy', '50', '--max-usd-per-correct', '2', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const sweep = SweepRecordSchema.parse(stdoutJson(run));
    sweepId = sweep.sweep_id;
    expect(sweep.request.constraints).toEqual({ min_accuracy: 0.5, max_usd_per_correct: 2 });
    expect(sweep.status).toBe('succeeded');
    expect(sweep.cells).toHaveLength(4);
    expect(sweep.ranking).toHaveLength(4);
    expect(mustVast(h).callsTo('asks').length - before).toBe(2);
    expect(mustVast(h).liveInstances()).toHaveLength(0);
    // Progress went to stderr: the matrix, the money note.
    expect(run.stderr).toContain('model');
    expect(run.stderr).toMatch(/2 machines rented, all released/);
  });

  it('without --json: the ranked table on stdout, the matrix on stderr', async () => {
    const run = await cli(SWEEP);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/│ 1 +│ llama3\.1:8b/);
    expect(run.stdout).toContain('$/correct');
    expect(run.stderr).toMatch(/llama3\.1:8b +80% \$/);
    expect(run.stderr).toMatch(/succeeded: 4\/4 cells · spent \$/);
  });

  it('sweeps list, show, report (md, csv) and cancel of an ended sweep', async () => {
    const list = await cli(['sweeps', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(sweepId);
    const listJson = stdoutJson(await cli(['sweeps', 'list', '--json'])) as { sweeps: unknown[] };
    expect(listJson.sweeps.length).toBeGreaterThanOrEqual(2);
    const show = await cli(['sweeps', 'show', sweepId]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('A100 SXM4');
    expect(show.stdout).toMatch(/released/);
    const md = await cli(['sweeps', 'report', sweepId]);
    expect(md.stdout).toMatch(/^## Sweep: cli sweep/);
    const csv = await cli(['sweeps', 'report', sweepId, '--format', 'csv']);
    expect(csv.stdout.split('\r\n')[0]).toMatch(/^rank_tier,model,gpu,status,reason,accuracy_fraction/);
    const cancel = await cli(['sweeps', 'cancel', sweepId]);
    expect(cancel.code).toBe(1);
    expect(cancel.stderr).toContain('has already ended');
  });

  it('a sweep whose machines could not be rented does not read as clean: the record counts them, show says so', async () => {
    mustVast(h).setKnob('rentRefused', { offers: 'all', error: 'insufficient_credit', msg: 'Your account balance is too low to rent this machine' });
    try {
      const run = await cli([...SWEEP, '--json']);
      const sweep = SweepRecordSchema.parse(stdoutJson(run));
      expect(sweep.outcome?.clean).toBe(false);
      expect(sweep.outcome?.cells_unrented).toBe(4);
      expect(sweep.outcome?.cells_succeeded).toBe(0);
      expect(sweep.cells.every((c) => c.unrented === true)).toBe(true);
      expect(mustVast(h).liveInstances()).toHaveLength(0);
      const show = await cli(['sweeps', 'show', sweep.sweep_id]);
      expect(show.code).toBe(0);
      expect(show.stdout).toMatch(/not a clean run: 4 cells could not run: no machine could be rented/);
    } finally {
      mustVast(h).setKnob('rentRefused', null);
    }
  });

  it('usage errors exit 2 with a clear message; --help has examples', async () => {
    const noKind = await cli(SWEEP.filter((a, i) => a !== '--suite' && SWEEP[i - 1] !== '--suite'));
    expect(noKind.code).toBe(2);
    expect(noKind.stderr).toContain('give --suite <id>');
    const noLimit = await cli(SWEEP.slice(0, -2));
    expect(noLimit.code).toBe(2);
    expect(noLimit.stderr).toContain('--max-total-cost');
    // Above the confirmation threshold and not a terminal: refused without --yes, nothing rented.
    const rents = mustVast(h).callsTo('asks').length;
    const dear = await cli([...SWEEP.slice(0, -2), '--max-total-cost', '50']);
    expect(dear.code).toBe(2);
    expect(dear.stderr).toContain('--yes');
    expect(mustVast(h).callsTo('asks').length).toBe(rents);
    const help = await runCli(cliPath, ['run-sweep', '--help'], cliEnv({}));
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
    const sweepsHelp = await runCli(cliPath, ['sweeps', 'report', '--help'], cliEnv({}));
    expect(sweepsHelp.stdout).toContain('--format csv');
  });
});
