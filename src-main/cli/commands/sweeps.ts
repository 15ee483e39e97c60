import { Command, InvalidArgumentError, Option } from '@commander-js/extra-typings';
import { REPORT_FORMATS, isStreamReset, isSweepFinished, type SweepRecord, type SweepReport, type SweepRequestInput } from '../../../shared';
import { connectionOf, examples, withConnection, withConnectionOpen } from '../common';
import type { Connection } from '../connection';
import { CliError, EXIT, UsageError, type ExitCode } from '../exit-codes';
import { onInterrupt } from '../interrupt';
import { err, formatAge, formatUsd, note, out, print, printJson, table } from '../output';
import { parseDph, parsePercentage, parsePositiveInt } from '../parsers';
import { spendThreshold } from '../spend';
import { matrixLines } from '../sweep-matrix';

/**
 * `run-sweep` and `sweeps list|show|report|cancel` (design §14): models × GPUs in one request,
 * one rented machine per GPU, a ranked answer. While a sweep runs, its matrix is redrawn on stderr
 * at each of its events (the tenant feed: pushed, not polled); stdout gets the ranked table, or
 * with --json the final sweep record only.
 */

/** The constraint options as the request's `constraints` (none given: no constraints). */
function constraintsOf(o: { minAccuracy?: number | undefined; maxTtftP99?: number | undefined; maxUsdPerCorrect?: number | undefined; maxUsdPerMillion?: number | undefined }): Pick<SweepRequestInput, 'constraints'> {
  const constraints = {
    ...(o.minAccuracy !== undefined ? { min_accuracy: o.minAccuracy } : {}),
    ...(o.maxTtftP99 !== undefined ? { max_ttft_p99_ms: o.maxTtftP99 } : {}),
    ...(o.maxUsdPerCorrect !== undefined ? { max_usd_per_correct: o.maxUsdPerCorrect } : {}),
    ...(o.maxUsdPerMillion !== undefined ? { max_usd_per_million_output_tokens: o.maxUsdPerMillion } : {}),
  };
  return Object.keys(constraints).length > 0 ? { constraints } : {};
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').map((s) => s.trim()).filter(Boolean)];
}

function parseLevels(value: string): number[] {
  const levels = value.split(',').map((s) => Number(s.trim()));
  if (levels.length === 0 || levels.some((n) => !Number.isInteger(n) || n < 1)) throw new InvalidArgumentError('a comma-separated list of whole numbers ≥ 1, e.g. 1,4,16');
  return levels;
}

function parseUsd(value: string): number {
  const n = Number(value.trim());
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(n > 0)) throw new InvalidArgumentError('must be an amount in $ above 0, e.g. 5');
  return n;
}

/** The matrix on stderr: redrawn in place on a terminal, a new block per change otherwise (logs). */
function matrixView(enabled: boolean) {
  const tty = process.stderr.isTTY === true && process.env.TERM !== 'dumb';
  let drawn = 0;
  let last = '';
  return {
    draw(sweep: SweepRecord) {
      if (!enabled) return;
      const lines = matrixLines(sweep);
      const text = lines.join('\n');
      if (text === last) return;
      last = text;
      if (tty && drawn > 0) process.stderr.write(`\x1b[${drawn}A\x1b[0J`);
      process.stderr.write(`${text}\n`);
      drawn = tty ? lines.length : 0;
    },
  };
}

function rankedTable(report: SweepReport): string {
  if (report.ranked_by === 'serving') {
    return table(
      ['#', 'model', 'GPU', '$/1M output tok', 'output tok/s', 'TTFT p50 (ms)', 'cost', 'status'],
      report.rows.map((r) => [r.rank ?? '-', r.model, r.gpu, formatUsd(r.usd_per_million_output_tokens, 3), r.output_tokens_per_s?.toFixed(1) ?? '-', r.ttft_p50_ms?.toFixed(0) ?? '-', formatUsd(r.cost_usd), r.status === 'succeeded' ? 'ok' : `${r.status}${r.reason ? `: ${r.reason}` : ''}`]),
    );
  }
  return table(
    ['#', 'model', 'GPU', 'accuracy', 'correct', 'cost', '$/correct', 'status'],
    report.rows.map((r) => [
      r.rank ?? '-',
      r.model,
      r.gpu,
      r.accuracy === null ? '-' : `${(r.accuracy * 100).toFixed(1)}%`,
      r.passed === null ? '-' : `${r.passed}/${r.total ?? '?'}`,
      formatUsd(r.cost_usd),
      formatUsd(r.cost_per_correct_usd),
      r.status === 'succeeded' ? (r.pareto ? 'ok ★ pareto' : 'ok') : `${r.status}${r.reason ? `: ${r.reason}` : ''}`,
    ]),
  );
}

function machinesNote(sweep: SweepRecord): string {
  const all = [...sweep.earlier_machines, ...sweep.machines].filter((m) => m.instance_id !== undefined);
  if (all.length === 0) return 'no machine was rented';
  const open = all.filter((m) => !m.released);
  if (open.length === 0) return `${all.length} machine${all.length === 1 ? '' : 's'} rented, all released`;
  return `NOT confirmed released: ${open.map((m) => `instance ${m.instance_id} (${m.gpu})`).join(', ')}; check \`benchdesk instances\``;
}

/**
 * Follows a sweep until it ends: the matrix on stderr at each of its feed events, then the ranked
 * table (or --json: the final record). Ctrl-C: in-process sweeps are cancelled (machines released)
 * before exiting; on the app the sweep keeps running unless --cancel-on-interrupt.
 */
async function followSweep(conn: Connection, sweepId: string, options: { json: boolean; cancelOnInterrupt: boolean; matrix: boolean }): Promise<ExitCode> {
  const { client } = conn;
  const view = matrixView(options.matrix);
  const stream = new AbortController();
  let interrupted: 'cancel' | 'detach' | null = null;
  const dispose = onInterrupt({
    onInterrupt: () => {
      const cancel = conn.mode === 'local' || options.cancelOnInterrupt;
      interrupted = cancel ? 'cancel' : 'detach';
      if (!cancel) {
        note(`interrupted: sweep ${sweepId} keeps running on the app. Follow it: benchdesk sweeps show ${sweepId} · cancel it: benchdesk sweeps cancel ${sweepId}`);
        stream.abort();
        return;
      }
      note(`interrupted: cancelling sweep ${sweepId}; waiting until its machines are released. Ctrl-C again to quit without waiting.`);
      client.cancelSweep({ sweep_id: sweepId }).catch((e: unknown) => note(`cancel failed: ${e instanceof Error ? e.message : String(e)}`));
    },
    force: () => {
      note(`not waiting: sweep ${sweepId} may still hold machines; ${conn.mode === 'local' ? 'the next benchdesk start on this data dir releases them' : 'the app releases them'} (check: benchdesk instances)`);
      process.exit(EXIT.interrupted);
    },
  });
  try {
    let sweep = await client.getSweep({ sweep_id: sweepId });
    view.draw(sweep);
    if (!isSweepFinished(sweep.status)) {
      // Subscribed first, then read again: an end between the two is not missed.
      const feed = client.streamEvents({}, { signal: stream.signal })[Symbol.asyncIterator]();
      sweep = await client.getSweep({ sweep_id: sweepId });
      view.draw(sweep);
      try {
        while (!isSweepFinished(sweep.status)) {
          const next = await feed.next();
          if (next.done) break;
          const item = next.value;
          if (!isStreamReset(item) && item.job_id !== sweepId && !(item.labels.sweep_id === sweepId)) continue;
          sweep = await client.getSweep({ sweep_id: sweepId });
          view.draw(sweep);
        }
      } catch (e) {
        if (!stream.signal.aborted) throw e;
      } finally {
        stream.abort();
        await feed.return?.();
      }
    }
    if (interrupted === 'detach') return EXIT.interrupted;
    sweep = await client.getSweep({ sweep_id: sweepId });
    view.draw(sweep);
    if (options.json) printJson(sweep);
    else {
      const report = (await client.getSweepReport({ sweep_id: sweepId, format: 'json' })) as SweepReport;
      print(rankedTable(report));
    }
    const money = machinesNote(sweep);
    if (interrupted === 'cancel') {
      note(err.yellow(`sweep ${sweepId} ${sweep.status}; ${money}`));
      return EXIT.interrupted;
    }
    if (sweep.status === 'succeeded' && sweep.outcome?.clean === false) {
      note(err.yellow(`sweep ${sweepId} succeeded for ${formatUsd(sweep.spend_usd)}, but not cleanly: ${sweep.outcome.problems.join('; ')}; ${money}. Report: benchdesk sweeps report ${sweepId} --format md`));
      return EXIT.ok;
    }
    if (sweep.status === 'succeeded') {
      note(err.dim(`sweep ${sweepId} succeeded for ${formatUsd(sweep.spend_usd)}; ${money}. Report: benchdesk sweeps report ${sweepId} --format md`));
      return EXIT.ok;
    }
    note(err.red(`sweep ${sweepId} ${sweep.status}${sweep.error_code ? ` [${sweep.error_code}]` : ''}: ${sweep.error ?? sweep.message}; ${money}`));
    return EXIT.failure;
  } finally {
    dispose();
  }
}

export function runSweepCommand(setExit: (code: number) => void) {
  const cmd = new Command('run-sweep')
    .description('run models × GPUs in one go: one rented machine per GPU, every model on it (a suite and/or the serving benchmark), a ranked answer with $ per correct answer')
    .requiredOption('--name <name>', 'what the sweep is for')
    .requiredOption('-m, --model <name...>', 'models from the marketplace catalog (repeat, or comma-separated)', collect)
    .requiredOption('--gpu <name...>', 'GPU names as the marketplace spells them (repeat, or comma-separated); one machine each', collect)
    .requiredOption('--max-total-cost <usd>', 'the spend limit of the whole sweep ($): reaching it releases every machine', parseUsd)
    .option('--suite <id>', 'the suite every model runs (accuracy, $ per correct answer)')
    .option('--serving', 'run the serving benchmark on every model ($ per million output tokens, throughput, TTFT)')
    .option('--serving-concurrency <levels>', 'serving: concurrency levels (default 1,2,4,8)', parseLevels)
    .option('--serving-requests <n>', 'serving: requests per level (default 32)', parsePositiveInt)
    .option('--serving-prompt-tokens <n>', 'serving: prompt length in tokens (default 256)', parsePositiveInt)
    .option('--serving-output-tokens <n>', 'serving: tokens to generate per request (default 128)', parsePositiveInt)
    .option('--agent <name>', 'the agent answering the suite (default builtin)')
    .option('--repeat <n>', 'ask each scenario this many times (1–10, default 1)', parsePositiveInt)
    .option('--marketplace-template <hash>', 'the Vast.ai template hash that runs Ollama (with --backend-api openai: a vLLM one, default the template named vLLM)')
    .addOption(new Option('--backend-api <api>', 'what the machines run: ollama (default; auto means the same) or openai (vLLM, one model per sweep)').choices(['ollama', 'openai', 'auto'] as const))
    .option('--marketplace-min-dph <usd>', 'lowest price to consider, $/hour', parseDph)
    .option('--marketplace-max-dph <usd>', 'highest price per machine, $/hour (default: the spend limit)', parseDph)
    .option('--marketplace-reliability <percent>', 'minimum host reliability in percent, 0–100 (default 99)', parsePercentage)
    .option('--machines-at-once <n>', 'GPUs (machines) running at the same time (default 1)', parsePositiveInt)
    .option('--judge-model <name>', 'a model that decides each suite answer (not one of the models under test)')
    .option('--min-accuracy <percent>', 'constraint: the lowest accuracy, 0–100 (the report names the cheapest cell that meets every constraint)', parsePercentage)
    .option('--max-ttft-p99 <ms>', 'constraint: the highest TTFT p99 of the best serving level (ms)', parsePositiveInt)
    .option('--max-usd-per-correct <usd>', 'constraint: the highest $ per correct answer', parseUsd)
    .option('--max-usd-per-million <usd>', 'constraint: the highest $ per million output tokens', parseUsd)
    .option('--yes', 'skip the spend confirmation')
    .option('--no-wait', 'print the sweep id and return (needs the running app)')
    .option('--cancel-on-interrupt', 'on Ctrl-C also cancel a sweep running on the app (an in-process one is always cancelled)');
  return withConnection(cmd)
    .addHelpText(
      'after',
      examples(
        '# two models on two GPUs with the starter suite, at most $3 in all',
        'benchdesk run-sweep --name "8b models" -m llama3.1:8b -m qwen2.5:7b --gpu "RTX 4090" --gpu "A100 SXM4" \\',
        '    --suite starter --marketplace-template 4e17788f74f075dd9aab7d0d4427968f --max-total-cost 3 --yes',
        '# serving only: $ per million output tokens per model and GPU, two machines at a time',
        'benchdesk run-sweep --name throughput -m qwen2.5:7b,qwen2.5:14b --gpu "RTX 3090,RTX 4090" --serving \\',
        '    --serving-concurrency 1,8,32 --marketplace-template 4e17788f74f075dd9aab7d0d4427968f --max-total-cost 2 --machines-at-once 2 --yes',
        '# the cheapest cell that reaches 80% with a judge deciding, or what nothing met',
        'benchdesk run-sweep --name triage -m llama3.1:8b,qwen2.5:7b --gpu "RTX 4090" --suite starter --judge-model gemma2:9b \\',
        '    --min-accuracy 80 --max-usd-per-correct 0.05 --marketplace-template <hash> --max-total-cost 3 --yes',
        '# a vLLM machine (the template named vLLM, the model as MODEL_NAME): $ per million output tokens',
        'benchdesk run-sweep --name vllm -m Qwen/Qwen2.5-7B-Instruct --gpu "RTX 4090" --serving --backend-api openai --max-total-cost 2 --yes',
        '# for scripts: only the final sweep record on stdout',
        'benchdesk run-sweep --name nightly -m llama3.1:8b --gpu "RTX 4090" --suite starter --marketplace-template <hash> --max-total-cost 1 --yes --json > sweep.json',
      ),
    )
    .action(async (o) => {
      const servingOptions = o.servingConcurrency ?? o.servingRequests ?? o.servingPromptTokens ?? o.servingOutputTokens;
      if (servingOptions !== undefined && !o.serving) throw new UsageError('the --serving-* options need --serving');
      if (!o.suite && !o.serving) throw new UsageError('give --suite <id> (score the models), --serving (measure throughput), or both');
      if (!o.marketplaceTemplate && o.backendApi !== 'openai') throw new UsageError('give --marketplace-template <hash>: the template the rented machines run (Ollama); with --backend-api openai the vLLM template is found by name');
      const request: SweepRequestInput = {
        name: o.name,
        models: o.model,
        gpus: o.gpu,
        max_total_cost_usd: o.maxTotalCost,
        ...(o.marketplaceTemplate ? { template_hash: o.marketplaceTemplate } : {}),
        ...(o.backendApi ? { backend_api: o.backendApi } : {}),
        ...(o.suite ? { suite_id: o.suite } : {}),
        ...(o.serving
          ? {
              serving: {
                ...(o.servingConcurrency ? { concurrency: o.servingConcurrency } : {}),
                ...(o.servingRequests ? { requests_per_level: o.servingRequests } : {}),
                ...(o.servingPromptTokens ? { prompt_tokens: o.servingPromptTokens } : {}),
                ...(o.servingOutputTokens ? { output_tokens: o.servingOutputTokens } : {}),
              },
            }
          : {}),
        ...(o.agent ? { agent: o.agent } : {}),
        ...(o.repeat ? { repeat: o.repeat } : {}),
        ...(o.marketplaceMinDph !== undefined ? { min_dph: o.marketplaceMinDph } : {}),
        ...(o.marketplaceMaxDph !== undefined ? { max_dph: o.marketplaceMaxDph } : {}),
        ...(o.marketplaceReliability !== undefined ? { reliability: o.marketplaceReliability } : {}),
        ...(o.machinesAtOnce ? { machines_at_once: o.machinesAtOnce } : {}),
        ...(o.judgeModel ? { judge: { model: o.judgeModel } } : {}),
        ...constraintsOf(o),
      };
      // The spend limit is what the sweep may cost at most: above the threshold, ask first.
      const threshold = spendThreshold();
      note(`${o.model.length} model(s) × ${o.gpu.length} GPU(s): one machine per GPU; the sweep stops and releases everything at ${formatUsd(o.maxTotalCost, 2)}`);
      if (o.maxTotalCost > threshold && o.yes !== true) {
        const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true;
        const over = `this sweep may cost up to ${formatUsd(o.maxTotalCost, 2)}, above the ${formatUsd(threshold, 2)} confirmation threshold (BENCHDESK_SPEND_CONFIRM_USD)`;
        if (!interactive) throw new CliError(`${over}; not a terminal, so nothing was rented. Re-run with --yes to accept the spend.`, EXIT.usage);
        const { confirm, isCancel } = await import('@clack/prompts');
        const answer = await confirm({ message: `${over}. Start it?`, initialValue: false, output: process.stderr });
        if (isCancel(answer)) throw new CliError('interrupted: nothing was rented', EXIT.interrupted);
        if (!answer) throw new CliError('not confirmed: nothing was rented');
      }
      const code = await withConnectionOpen(connectionOf(o), 'run', async (conn) => {
        if (!o.wait && conn.mode === 'local') throw new UsageError('--no-wait needs the running app: a sweep run in-process ends with this command. Start the app or `benchdesk serve`, or drop --no-wait.');
        const accepted = await conn.client.createSweep(request);
        if (!o.wait) {
          if (o.json) printJson(accepted);
          else print(accepted.sweep_id);
          note(err.dim(`sweep ${accepted.sweep_id} accepted; follow it: benchdesk sweeps show ${accepted.sweep_id}`));
          return EXIT.ok;
        }
        note(err.dim(`sweep ${accepted.sweep_id} accepted`));
        return followSweep(conn, accepted.sweep_id, { json: o.json === true, cancelOnInterrupt: o.cancelOnInterrupt === true, matrix: true });
      });
      setExit(code);
    });
}

export function sweepsCommand(setExit: (code: number) => void) {
  const sweeps = new Command('sweeps').description('list, show, report and cancel sweeps (models × GPUs, ranked)');

  sweeps.addCommand(
    withConnection(new Command('list').description('sweeps, newest first: status, cells done, spend'))
      .addHelpText('after', examples('benchdesk sweeps list', 'benchdesk sweeps list --json | jq -r ".sweeps[].sweep_id"'))
      .action(async (o) => {
        const res = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.listSweeps({}));
        if (o.json) printJson(res);
        else if (res.sweeps.length === 0) print('no sweeps (start one: benchdesk run-sweep --help)');
        else {
          const now = Date.now();
          print(
            table(
              ['sweep', 'name', 'status', 'cells', 'spend', 'limit', 'age'],
              res.sweeps.map((s) => [
                s.sweep_id,
                s.name,
                s.status,
                `${s.cells.filter((c) => c.status !== 'pending' && c.status !== 'running').length}/${s.cells.length}`,
                formatUsd(s.spend_usd),
                formatUsd(s.max_total_cost_usd, 2),
                formatAge(s.created_at, now),
              ]),
            ),
          );
        }
        setExit(EXIT.ok);
      }),
  );

  sweeps.addCommand(
    withConnection(new Command('show').description('one sweep: its matrix, machines and ranked cells').argument('<sweep-id>'))
      .addHelpText('after', examples('benchdesk sweeps show sw-4k2mq7x9b3d5f6g7h8j2', 'benchdesk sweeps show sw-4k2mq7x9b3d5f6g7h8j2 --json | jq .spend_usd'))
      .action(async (sweepId, o) => {
        await withConnectionOpen(connectionOf(o), 'read', async (conn) => {
          const sweep = await conn.client.getSweep({ sweep_id: sweepId });
          if (o.json) return printJson(sweep);
          print(`${out.bold(sweep.name)}  (${sweep.sweep_id})  ${sweep.status}, ${formatUsd(sweep.spend_usd)} of ${formatUsd(sweep.max_total_cost_usd)}`);
          // A sweep that ended with failed or unrented cells, or a machine not confirmed released, is not a clean success.
          if (sweep.outcome && !sweep.outcome.clean) print(out.yellow(`not a clean run: ${sweep.outcome.problems.join('; ')}`));
          for (const line of matrixLines(sweep)) print(line);
          print('');
          const machines = [...sweep.earlier_machines, ...sweep.machines];
          print(
            table(
              ['GPU', 'machine', 'status', '$/h', 'cost', 'note'],
              machines.map((m) => [m.gpu, m.instance_id ?? '-', m.status, m.dph_total?.toFixed(3) ?? '-', formatUsd(m.cost_usd), m.release_error ?? m.reason ?? '']),
            ),
          );
          const report = (await conn.client.getSweepReport({ sweep_id: sweepId })) as SweepReport;
          print('');
          print(rankedTable(report));
          return undefined;
        });
        setExit(EXIT.ok);
      }),
  );

  sweeps.addCommand(
    withConnection(
      new Command('report')
        .description('the ranked report: Markdown for a pull request or wiki (default), CSV with units in the column names, or JSON')
        .argument('<sweep-id>')
        .addOption(new Option('--format <format>', 'md, csv or json').choices(REPORT_FORMATS).default('md' as const)),
    )
      .addHelpText('after', examples('benchdesk sweeps report sw-4k2mq7x9b3d5f6g7h8j2 > sweep.md', 'benchdesk sweeps report sw-4k2mq7x9b3d5f6g7h8j2 --format csv > sweep.csv'))
      .action(async (sweepId, o) => {
        const format = o.json ? 'json' : o.format;
        const report = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.getSweepReport({ sweep_id: sweepId, format }));
        if (typeof report === 'string') process.stdout.write(report);
        else printJson(report);
        setExit(EXIT.ok);
      }),
  );

  sweeps.addCommand(
    withConnection(new Command('cancel').description('cancel a sweep: every machine released, unfinished cells cancelled').argument('<sweep-id>'))
      .addHelpText('after', examples('benchdesk sweeps cancel sw-4k2mq7x9b3d5f6g7h8j2'))
      .action(async (sweepId, o) => {
        const res = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.cancelSweep({ sweep_id: sweepId }));
        if (o.json) printJson(res);
        else if (res.status === 'running') print(`cancellation requested: sweep ${sweepId} is releasing its machines (follow it: benchdesk sweeps show ${sweepId})`);
        else print(`sweep ${sweepId} is ${res.status}`);
        setExit(EXIT.ok);
      }),
  );

  return sweeps.addHelpText('after', examples('benchdesk sweeps list', 'benchdesk sweeps show <sweep-id>', 'benchdesk sweeps report <sweep-id> --format md', 'benchdesk sweeps cancel <sweep-id>'));
}
