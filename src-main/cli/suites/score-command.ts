import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Command } from '@commander-js/extra-typings';
import type { ScoreAnswerOutput } from '../../../shared';
import { connectionOf, examples, withConnection, withConnectionOpen } from '../common';
import { EXIT, UsageError } from '../exit-codes';
import { out, print, printJson } from '../output';

/**
 * `benchdesk suites score <suite> <scenario> (--answer TEXT | --answer-file F)`: the rules of a
 * suite run on one answer, without a run (`POST /v1/suites/{id}/score`), with the statements that
 * counted and why.
 */

const MAX_ANSWER_BYTES = 100_000;

async function readAnswer(o: { answer?: string | undefined; answerFile?: string | undefined }): Promise<string> {
  if ((o.answer === undefined) === (o.answerFile === undefined)) throw new UsageError('give the answer with exactly one of --answer TEXT or --answer-file FILE');
  if (o.answer !== undefined) return o.answer;
  const file = o.answerFile as string;
  let text: string;
  try {
    if (file === '-') {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      text = Buffer.concat(chunks).toString('utf8');
    } else text = await readFile(path.resolve(file), 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${file === '-' ? 'stdin' : path.resolve(file)}: ${code === 'ENOENT' ? 'no such file' : e instanceof Error ? e.message : String(e)}`);
  }
  if (Buffer.byteLength(text) > MAX_ANSWER_BYTES * 4) throw new UsageError(`${file} is too long for an answer (at most ${MAX_ANSWER_BYTES} characters)`);
  return text;
}

const REASON_WORDS: Record<string, string> = {
  affirmed: 'affirmed',
  negated: 'negated',
  dismissed: 'dismissed',
  hypothetical: 'hypothesis',
  question: 'question',
  'quoted-output': 'quoted output',
};

function clip(text: string, max = 90): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** The score for people: the verdict line, the findings, the wrong claims, the verdict block, then each statement and why. */
export function printScore(scenarioId: string, s: ScoreAnswerOutput): void {
  print(`${scenarioId}: ${s.passed ? out.green('PASS') : out.red('FAIL')}  score ${Math.round(s.score * 100)}%  (${s.method})`);
  for (const f of s.matched) print(`  ${out.green('✓')} ${f}`);
  for (const f of s.missed) print(`  ${out.red('✗')} ${f}`);
  for (const w of s.must_not_matched) print(`  ${out.red('!')} wrong claim: ${w}`);
  if (s.verdict) print(`  verdict: ${s.verdict.found ? (s.verdict.correct === null ? 'found' : s.verdict.correct ? out.green('right') : out.red('wrong')) : 'none'} — ${s.verdict.detail}`);
  if (s.statements.length === 0) return;
  print('');
  print('statements:');
  for (const st of s.statements) {
    const why = st.counted.length > 0 ? out.green('counts') : st.wrong.length > 0 ? out.red('wrong') : st.affirmed ? 'affirmed' : out.dim(REASON_WORDS[st.reason] ?? st.reason);
    const cue = st.cue ? out.dim(` (“${st.cue}”)`) : '';
    print(`  ${why.padEnd(st.affirmed || st.counted.length > 0 || st.wrong.length > 0 ? 8 : 0)} ${clip(st.text)}${cue}`);
    for (const f of st.counted) print(`           ${out.dim(`→ ${f}`)}`);
  }
}

export function suitesScoreCommand(setExit: (code: number) => void) {
  return withConnection(
    new Command('score')
      .description('score an answer to one scenario by the rules of a suite run, without a run: which statements counted and why')
      .argument('<suite-id>', 'the suite (benchdesk suites list)')
      .argument('<scenario-id>', 'the scenario (benchdesk suites show <suite-id>)')
      .option('--answer <text>', 'the answer to score')
      .option('--answer-file <file>', "read the answer from a file ('-' for stdin)"),
  )
    .addHelpText(
      'after',
      examples(
        "benchdesk suites score starter oomkilled --answer 'report-worker was OOMKilled; raise its memory limit.'",
        'benchdesk suites score starter healthy-cluster --answer-file answer.md',
        'pbpaste | benchdesk suites score starter crashloop-db-password --answer-file -',
        "benchdesk suites score starter oomkilled --answer-file answer.md --json | jq '.statements[] | select(.affirmed) | .text'",
      ),
    )
    .action(async (suiteId, scenarioId, o) => {
      const answer = await readAnswer(o);
      const scored = await withConnectionOpen(connectionOf(o), 'read', (conn) => conn.client.scoreAnswer({ suite_id: suiteId, scenario_id: scenarioId, answer }));
      if (o.json) printJson(scored);
      else printScore(scenarioId, scored);
      setExit(EXIT.ok);
    });
}
