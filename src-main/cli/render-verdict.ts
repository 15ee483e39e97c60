import { parseAnswerVerdict } from '../../shared';
import { out } from './output';

/**
 * The answer's structured verdict (design §12b) as the CLI prints it under an agent's answer:
 * healthy or not, each cause (a category of the shared taxonomy) with the objects it names, the
 * fix; or, plainly, that the block is missing or does not read (the rules still score the prose).
 */
export function verdictLines(answer: string): string[] {
  const read = parseAnswerVerdict(answer);
  if ('error' in read) {
    const why = read.error === 'no verdict block' ? 'the answer does not end with a verdict block' : read.error;
    return [`${out.bold('Verdict')} ${out.yellow('none')}: ${why} (a suite's rules still read the prose)`];
  }
  const v = read.verdict;
  const causes = v.causes.filter((c) => !(v.healthy && c.category === 'none'));
  const lines = [`${out.bold('Verdict')} ${v.healthy ? out.green('healthy') : out.red('not healthy')}${!v.healthy && causes.length === 0 ? ': no cause named' : ''}`];
  for (const c of causes) lines.push(`  cause ${c.category}${c.objects.length > 0 ? `: ${c.objects.join(', ')}` : ' (no object named)'}`);
  lines.push(`  fix ${v.fix?.trim() ? v.fix.trim() : out.dim('none given')}`);
  return lines;
}
