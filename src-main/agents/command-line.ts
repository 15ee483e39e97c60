/**
 * Splits a driver command line into argv without a shell, so a command from settings or the
 * environment cannot run shell syntax (pipes, $(...), globbing). POSIX-like quoting: '...' is
 * literal, "..." allows \" \\ \$ \` escapes, a backslash outside quotes escapes the next
 * character. No variable expansion.
 */
export class CommandLineError extends Error {
  override name = 'CommandLineError';
}

export function splitCommandLine(line: string): string[] {
  const args: string[] = [];
  let current = '';
  let inArg = false;
  let quote: "'" | '"' | null = null;

  for (let i = 0; i < line.length; i++) {
    const ch = line.charAt(i);
    if (quote === "'") {
      if (ch === "'") quote = null;
      else current += ch;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = null;
      else if (ch === '\\' && i + 1 < line.length && '"\\$`'.includes(line.charAt(i + 1))) current += line.charAt(++i);
      else current += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      inArg = true;
    } else if (ch === '\\') {
      if (i + 1 >= line.length) throw new CommandLineError('command line ends with a lone backslash');
      current += line.charAt(++i);
      inArg = true;
    } else if (/\s/.test(ch)) {
      if (inArg) args.push(current);
      current = '';
      inArg = false;
    } else {
      current += ch;
      inArg = true;
    }
  }
  if (quote) throw new CommandLineError(`unterminated ${quote === '"' ? 'double' : 'single'} quote in command line`);
  if (inArg) args.push(current);
  if (args.length === 0) throw new CommandLineError('command line is empty');
  return args;
}
