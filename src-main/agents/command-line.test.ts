import { describe, expect, it } from 'vitest';
import { CommandLineError, splitCommandLine } from './command-line';

describe('splitCommandLine', () => {
  it.each([
    ['node ./my-driver.mjs', ['node', './my-driver.mjs']],
    ['  python3   -m  drv  ', ['python3', '-m', 'drv']],
    [`"/opt/my tools/drv" --flag='a b' x\\ y`, ['/opt/my tools/drv', '--flag=a b', 'x y']],
    [`echo "say \\"hi\\" \\$HOME" 'it''s'`, ['echo', 'say "hi" $HOME', 'its']],
    [`a "" b`, ['a', '', 'b']],
    ['run $(rm -rf /) | tee', ['run', '$(rm', '-rf', '/)', '|', 'tee']],
  ])('%s', (line, argv) => {
    expect(splitCommandLine(line)).toEqual(argv);
  });

  it.each([[''], ['   '], ['a "b'], ["a 'b"], ['a \\']])('rejects %j', (line) => {
    expect(() => splitCommandLine(line)).toThrow(CommandLineError);
  });
});
