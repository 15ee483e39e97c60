import { runDriver } from '../agents/driver-main';

/** `benchdesk driver <agent>`: serve the driver protocol on this process's stdin/stdout. */
export async function runDriverCommand(agent: string): Promise<number> {
  return runDriver(agent, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
}
