/**
 * A stand-in for the real CLI entry (`benchdesk driver <agent>`) so the tests can spawn our driver
 * as a child process: `node driver-entry.mjs driver <agent>`. Bundled by build-driver.ts.
 */
import { runDriver } from '../../src-main/agents/driver-main';

const args = process.argv.slice(2);
const name = args[0] === 'driver' ? args[1] : args[0];
const code = await runDriver(name ?? '', { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
// Exit now: idle keep-alive sockets (undici pools) would keep the process, and the caller, waiting.
process.exit(code);
