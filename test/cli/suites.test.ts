import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobRecordSchema, SuiteListSchema, SuiteSchema, SUITE_FORMAT } from '../../shared';
import { starterSuite } from '../../src-main/suites/starter';
import { startFakeOllama, type FakeOllama } from '../fakes/ollama';
import { tempDir } from '../workflows/harness';
import { buildCliBundle, cliEnv, runCli, stdoutJson, type CliRun } from './cli-harness';
import { killChildren } from '../helpers/children';

// Whatever a failed test left running (a server, a CLI) is stopped.
afterAll(killChildren);

/** `benchdesk suites …` and `benchdesk run-suite` as a child process, in-process (--local). */

let cliPath: string;
let cleanupCli: () => Promise<void>;
let dataDir: string;
let ollama: FakeOllama;

const starter = starterSuite().suite;
const questionOf = (id: string) => starter.scenarios.find((s) => s.scenario_id === id)?.question ?? '';
const OOM = 'report-worker was OOMKilled (exit code 137); raise its memory limit above 256Mi.';

beforeAll(async () => {
  const [built, dir, fake] = await Promise.all([
    buildCliBundle(),
    tempDir('benchdesk-cli-suites-'),
    startFakeOllama({
      scripts: {
        'llama3.1:8b': [{ tool_calls: [{ name: 'list_unhealthy_pods', arguments: {} }] }, { content: 'Nothing found.', by_question: { [questionOf('oomkilled')]: OOM } }],
      },
    }),
  ]);
  ({ cliPath, cleanup: cleanupCli } = built);
  [dataDir, ollama] = [dir, fake];
}, 60_000);
afterAll(async () => {
  await Promise.all([cleanupCli?.(), ollama?.close(), dataDir && rm(dataDir, { recursive: true, force: true })]);
});

const cli = (args: readonly string[], timeoutMs?: number): Promise<CliRun> => runCli(cliPath, args, cliEnv({ BENCHDESK_DATA_DIR: dataDir }), timeoutMs);

describe('benchdesk suites (in-process)', () => {
  it('list and show: the starter suite from the first start, a table for people, --json for scripts', async () => {
    const listed = await cli(['suites', 'list', '--local', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(SuiteListSchema.parse(stdoutJson(listed)).suites[0]).toMatchObject({ suite_id: 'starter', read_only: true, scenario_count: starter.scenarios.length });
    const table = await cli(['suites', 'show', 'starter', '--local']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/scenario\s+│\s+title/);
    expect(table.stdout).toContain('crashloop-db-password');
  });

  it('export to a file (0600) with its snapshots, import it back as a new suite, delete that; the starter cannot be deleted', async () => {
    const file = path.join(dataDir, '..', `${path.basename(dataDir)}-starter.suite.json`);
    try {
      const exported = await cli(['suites', 'export', 'starter', '--local', '-o', file]);
      expect(exported.code, exported.stderr).toBe(0);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const doc = JSON.parse(await readFile(file, 'utf8')) as { format: string; snapshots: unknown[] };
      expect(doc.format).toBe(SUITE_FORMAT);
      expect(doc.snapshots).toHaveLength(starter.scenarios.length);
      const imported = await cli(['suites', 'import', file, '--local', '--json']);
      expect(imported.code, imported.stderr).toBe(0);
      const copy = SuiteSchema.parse(stdoutJson(imported));
      expect(copy.suite_id).not.toBe('starter');
      expect(copy.scenarios.map((s) => s.snapshot_id)).toEqual(starter.scenarios.map((s) => s.snapshot_id));
      const deleted = await cli(['suites', 'delete', copy.suite_id, '--local']);
      expect(deleted.code, deleted.stderr).toBe(0);
      const refused = await cli(['suites', 'delete', 'starter', '--local']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/cannot be deleted/);
    } finally {
      await rm(file, { force: true });
    }
  });

  it('score: an answer scored by the rules, the statements that counted and why; --json; usage errors exit 2', async () => {
    const answer = 'It is not a password problem. report-worker was OOMKilled (exit code 137); give it a bigger memory allowance.';
    const text = await cli(['suites', 'score', 'starter', 'oomkilled', '--answer', answer, '--local']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^oomkilled: PASS {2}score 100% {2}\(rules\)/);
    expect(text.stdout).toMatch(/negated\s+It is not a password problem\. \(“not”\)/);
    expect(text.stdout).toMatch(/counts\s+report-worker was OOMKilled/);
    const file = path.join(dataDir, '..', `${path.basename(dataDir)}-answer.md`);
    try {
      await writeFile(file, 'The payments deployment is failing; restart it.');
      const json = await cli(['suites', 'score', 'starter', 'healthy-cluster', '--answer-file', file, '--local', '--json']);
      expect(json.code, json.stderr).toBe(0);
      expect(stdoutJson(json)).toMatchObject({ passed: false, method: 'rules', must_not_matched: expect.arrayContaining([expect.stringMatching(/^a fault claimed: "The payments deployment is failing"/)]) });
    } finally {
      await rm(file, { force: true });
    }
    const neither = await cli(['suites', 'score', 'starter', 'oomkilled', '--local']);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toMatch(/exactly one of --answer TEXT or --answer-file FILE/);
    const ghost = await cli(['suites', 'score', 'starter', 'ghost', '--answer', 'x', '--local']);
    expect(ghost.code).toBe(1);
    expect(ghost.stderr).toMatch(/has no scenario ghost/);
    const help = await cli(['suites', 'score', '--help']);
    expect(help.stdout).toMatch(/Examples:[\s\S]*benchdesk suites score starter oomkilled --answer/);
  });

  it('import of a bad document names each problem path and exits 2', async () => {
    const run = await cli(['suites', 'import', path.join(import.meta.dirname, '..', '..', 'package.json'), '--local']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/is not a valid suite document/);
    expect(run.stderr).toMatch(/^ {2}format: /m);
  });
});

describe('benchdesk run-suite (in-process)', () => {
  it('prints one line per scenario on stderr and the scored table; --json prints only the job record', async () => {
    const run = await cli(['run-suite', 'starter', '-m', 'llama3.1:8b', '--backend-url', ollama.url, '--scenario', 'oomkilled', '--scenario', 'healthy-cluster', '--local'], 60_000);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/scenario\.scored ok .*passed: 2 of 2 findings/);
    expect(run.stdout).toMatch(/oomkilled\s+│\s+1\s+│\s+pass\s+│\s+100%/);
    expect(run.stdout).toMatch(/healthy-cluster\s+│\s+1\s+│\s+fail\s+│\s+0%/);
    expect(run.stdout).toMatch(/1\/2 passed \(50% \[95% 9–91%\]\)/);
    expect(run.stdout).toMatch(/manifest: suite starter sha256 [0-9a-f]{12}… · model digest [0-9a-f]{12}…/);

    const json = await cli(['run-suite', 'starter', '-m', 'llama3.1:8b', '--backend-url', ollama.url, '--scenario', 'oomkilled', '--local', '--json'], 60_000);
    expect(json.code, json.stderr).toBe(0);
    const job = JobRecordSchema.parse(stdoutJson(json));
    expect(job).toMatchObject({ kind: 'suite', status: 'succeeded', result: { summary: { passed: 1, total: 1, accuracy: 1 } } });
  });

  it('usage errors exit 2 with a clear message', async () => {
    const both = await cli(['run-suite', 'starter', '-m', 'm', '--local']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/give --backend-url/);
    const repeat = await cli(['run-suite', 'starter', '-m', 'm', '--backend-url', ollama.url, '--repeat', '11', '--local']);
    expect(repeat.code).toBe(2);
    expect(repeat.stderr).toMatch(/--repeat is from 1 to 10/);
    const unknown = await cli(['run-suite', 'starter', '-m', 'llama3.1:8b', '--backend-url', ollama.url, '--scenario', 'ghost', '--local']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/has no scenario ghost; it has: crashloop-db-password/);
  });

  it('--help shows examples', async () => {
    const help = await cli(['run-suite', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Examples:[\s\S]*benchdesk run-suite starter/);
  });
});
