import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command } from '@commander-js/extra-typings';
import { agreementInWords, issueInWords, MAX_SUITE_REPEAT, SUITE_FORMAT, type Suite, type SuiteRequestInput } from '../../../shared';
import { isBenchdeskApiError } from '../../../shared/client';
import { backendFields, connectionOf, examples, runJob, withBackend, withConnection, withConnectionOpen, withJobSubmit, withMarketplace } from '../common';
import { EXIT, UsageError } from '../exit-codes';
import { err, firstOf, formatBytes, note, out, print, printJson, table } from '../output';
import { parseNonNegativeInt, parseUsd } from '../parsers';
import { suitesScoreCommand } from '../suites/score-command';

/**
 * `run-suite` (a `suite` job: every scenario of a suite asked and scored, one line per scenario on
 * a terminal) and `suites list|show|export|import|delete` (design §12).
 */

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function parseRepeat(value: string): number {
  const n = parseNonNegativeInt(value);
  if (n < 1 || n > MAX_SUITE_REPEAT) throw new UsageError(`--repeat is from 1 to ${MAX_SUITE_REPEAT}`);
  return n;
}

function parseTemperature(value: string): number {
  const t = Number(value);
  if (!Number.isFinite(t) || t < 0 || t > 2) throw new UsageError('--temperature is a number from 0 to 2');
  return t;
}

export function runSuiteCommand(setExit: (code: number) => void) {
  const cmd = new Command('run-suite')
    .description('run a suite: ask the agent every scenario on its recorded cluster, score each answer, and report accuracy, latency and $ per correct answer')
    .argument('<suite-id>', 'the suite (benchdesk suites list); the shipped one is "starter"')
    .requiredOption('-m, --model <name>', 'the model the agent uses')
    .option('--agent <name>', 'builtin, holmes, k8sgpt or a registered driver', 'builtin')
    .option('--scenario <id>', 'run only this scenario (repeat for several; default: all)', collect)
    .option('--repeat <n>', `ask each scenario n times (1–${MAX_SUITE_REPEAT}, default 1)`, parseRepeat)
    .option('--judge-model <name>', 'let this model decide pass/fail (it sees the ground truth and the wrong claims; the rules are reported beside it)')
    .option('--judge-backend-url <url>', "the judge's llmserver (default: the suite's own backend)")
    .option('--allow-self-judge', 'let the judge be the model under test (refused otherwise)')
    .option('--temperature <t>', 'sampling temperature sent with every request (0–2, default 0)', parseTemperature)
    .option('--seed <n>', 'seed sent with every request; each repeat gets seed + run − 1 when temperature > 0', parseNonNegativeInt)
    .option('--max-cost <usd>', 'spend limit of the rented machine: the job stops and releases it when its cost reaches this', parseUsd)
    .option('--marketplace-stop-instance', 'release the rented machine at the end (default)')
    .option('--no-marketplace-stop-instance', 'keep the rented machine running after the suite');
  return withConnection(withJobSubmit(withBackend(withMarketplace(cmd))))
    .addHelpText(
      'after',
      examples(
        '# the shipped suite on an existing llmserver',
        'benchdesk run-suite starter -m llama3.1:8b --backend-url http://127.0.0.1:11434',
        '# two scenarios, three times each at temperature 0.7 (a seed per repeat), decided by a judge',
        'benchdesk run-suite starter -m qwen2.5:7b --backend-url http://127.0.0.1:11434 --scenario oomkilled --scenario healthy-cluster --repeat 3 --temperature 0.7 --seed 7 --judge-model llama3.1:8b',
        '# on one rented GPU for the whole suite (released at the end), at most $0.50/h and $2 in all',
        'benchdesk run-suite starter -m qwen2.5:32b --marketplace --marketplace-template 4e17788f74f075dd9aab7d0d4427968f --marketplace-max-dph 0.5 --max-cost 2 --yes',
        '# for scripts: only the final job record on stdout',
        'benchdesk run-suite starter -m llama3.1:8b --backend-url http://127.0.0.1:11434 --json | jq .result.summary',
      ),
    )
    .action(async (suiteId, o) => {
      const target = backendFields(o, 'run on an existing llmserver or rent one');
      if ((o.judgeBackendUrl || o.allowSelfJudge) && !o.judgeModel) throw new UsageError(`${o.judgeBackendUrl ? '--judge-backend-url' : '--allow-self-judge'} needs --judge-model`);
      const request: SuiteRequestInput = {
        ...target,
        suite_id: suiteId,
        model: o.model,
        agent: o.agent,
        ...(o.scenario ? { scenario_ids: o.scenario } : {}),
        ...(o.repeat !== undefined ? { repeat: o.repeat } : {}),
        ...(o.judgeModel ? { judge: { model: o.judgeModel, ...(o.judgeBackendUrl ? { backend_url: o.judgeBackendUrl } : {}), ...(o.allowSelfJudge ? { allow_self_judge: true } : {}) } } : {}),
        ...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
        ...(o.seed !== undefined ? { seed: o.seed } : {}),
        ...(o.maxCost !== undefined ? { max_cost_usd: o.maxCost } : {}),
      };
      const code = await runJob(o, { kind: 'suite', request }, { target, model: o.model });
      setExit(code);
    });
}

function printSuite(s: Suite): void {
  print(`${out.bold(s.name)}  (${s.suite_id}${s.read_only ? ', shipped, read-only' : ''})`);
  if (s.description) print(s.description);
  const agreement = agreementInWords(s.fixture_agreement);
  if (agreement) print(`${agreement}${s.fixture_agreement && s.fixture_agreement.agreed < s.fixture_agreement.total ? out.yellow(' (see --json: fixture_agreement.disagreements)') : ''}`);
  print(
    table(
      ['scenario', 'title', 'difficulty', 'snapshot', 'findings', 'tags'],
      s.scenarios.map((c) => [c.scenario_id, c.title, c.difficulty, c.snapshot_id, c.expected.length, c.tags.join(', ')]),
    ),
  );
}

async function readDocument(file: string): Promise<{ source: string; document: unknown }> {
  const source = file === '-' ? 'stdin' : path.resolve(file);
  let text: string;
  try {
    if (file === '-') {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      text = Buffer.concat(chunks).toString('utf8');
    } else text = await readFile(source, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${source}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : e instanceof Error ? e.message : String(e)}`);
  }
  try {
    return { source, document: JSON.parse(text) };
  } catch (e) {
    throw new UsageError(`${source} is not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export function suitesCommand(setExit: (code: number) => void) {
  const suites = new Command('suites')
    .description('suites of scenarios on recorded clusters: list, show, score an answer, export, import, delete (run one with benchdesk run-suite)')
    .addHelpText(
      'after',
      examples(
        'benchdesk suites list',
        'benchdesk suites show starter',
        "benchdesk suites score starter oomkilled --answer 'report-worker was OOMKilled; raise its memory limit.'",
        'benchdesk suites export starter -o starter.suite.json',
        'benchdesk run-suite starter -m llama3.1:8b --backend-url http://127.0.0.1:11434',
      ),
    );

  suites.addCommand(
    withConnection(new Command('list').description('the suites of this install, the shipped starter suite first'))
      .addHelpText('after', examples('benchdesk suites list', 'benchdesk suites list --json | jq -r ".suites[].suite_id"'))
      .action(async (o) => {
        const res = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.listSuites({}));
        if (o.json) printJson(res);
        // A suite may carry dozens of tags: the list shows the first few (`suites show` has them all).
        else print(table(['suite', 'name', 'scenarios', 'tags', 'read-only'], res.suites.map((s) => [s.suite_id, s.name, s.scenario_count, firstOf(s.tags, 4), s.read_only ? 'yes' : 'no'])));
        setExit(EXIT.ok);
      }),
  );

  suites.addCommand(
    withConnection(new Command('show').description('one suite and its scenarios').argument('<suite-id>'))
      .addHelpText('after', examples('benchdesk suites show starter', 'benchdesk suites show starter --json | jq ".scenarios[].question"'))
      .action(async (id, o) => {
        const s = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.getSuite({ suite_id: id }));
        if (o.json) printJson(s);
        else printSuite(s);
        setExit(EXIT.ok);
      }),
  );

  suites.addCommand(suitesScoreCommand(setExit));

  suites.addCommand(
    withConnection(
      new Command('export')
        .description(`a suite and every snapshot it runs on, as one portable JSON document (${SUITE_FORMAT}), on stdout or into a file`)
        .argument('<suite-id>')
        .option('-o, --output <file>', 'write it to this file (created 0600) instead of stdout'),
    )
      .addHelpText('after', examples('benchdesk suites export starter > starter.suite.json', 'benchdesk suites export my-suite-3f9a1c -o my.suite.json'))
      .action(async (id, o) => {
        const doc = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.exportSuite({ suite_id: id }));
        const text = `${JSON.stringify(doc, null, 2)}\n`;
        if (!o.output) process.stdout.write(text);
        else {
          const file = path.resolve(o.output);
          await writeFile(file, text, { mode: 0o600 });
          if (o.json) printJson({ suite_id: id, file, bytes: Buffer.byteLength(text), snapshots: doc.snapshots.length });
          else print(`wrote ${file} (${formatBytes(Buffer.byteLength(text))}, ${doc.snapshots.length} snapshot(s))`);
        }
        setExit(EXIT.ok);
      }),
  );

  suites.addCommand(
    withConnection(new Command('import').description('store an exported suite with the snapshots it carries').argument('<file>', "the document, or '-' for stdin"))
      .addHelpText('after', examples('benchdesk suites import my.suite.json', 'cat my.suite.json | benchdesk suites import - --json'))
      .action(async (file, o) => {
        const { source, document } = await readDocument(file);
        let suite: Suite;
        try {
          suite = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.importSuite(document as Parameters<typeof conn.client.importSuite>[0]));
        } catch (e) {
          if (!isBenchdeskApiError(e) || e.status !== 422 || !e.problem.errors?.length) throw e;
          if (o.json) printJson(e.problem);
          note(`${err.red('benchdesk:')} ${source} is not a valid suite document (${e.problem.errors.length === 1 ? '1 problem' : `${e.problem.errors.length} problems`}; see docs/suites.md):`);
          for (const issue of e.problem.errors) note(`  ${issue.path || 'the document'}: ${issueInWords(issue, {})}`);
          setExit(EXIT.usage);
          return;
        }
        if (o.json) printJson(suite);
        else {
          const agreement = agreementInWords(suite.fixture_agreement);
          print(`imported ${suite.suite_id}: ${suite.name} (${suite.scenarios.length} scenarios${agreement ? `; ${agreement}` : ''})`);
        }
        setExit(EXIT.ok);
      }),
  );

  suites.addCommand(
    withConnection(new Command('delete').description('delete a suite (its snapshots stay; the shipped starter suite cannot be deleted)').argument('<suite-id>'))
      .addHelpText('after', examples('benchdesk suites delete my-suite-3f9a1c'))
      .action(async (id, o) => {
        await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.deleteSuite({ suite_id: id }));
        if (o.json) printJson({ suite_id: id, deleted: true });
        else print(`deleted ${id}`);
        setExit(EXIT.ok);
      }),
  );

  return suites;
}
