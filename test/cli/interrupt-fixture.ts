/**
 * A CLI process in miniature for interrupt.test.ts: a listener registered before ours re-sends
 * SIGINT from inside itself (as when-exit does for the store), and the first handler is slow (a
 * busy machine). Prints what happened on stdout, one word a line. Bundled by the test.
 */
import { onInterrupt } from '../../src-main/cli/interrupt';

const cleanupMs = Number(process.argv[2] ?? 200);
const say = (word: string) => process.stdout.write(`${word}\n`);

process.once('SIGINT', () => process.kill(process.pid, 'SIGINT'));
onInterrupt({
  onInterrupt: () => {
    say('interrupt');
    // The first handler holds the event loop longer than any window in milliseconds.
    const until = Date.now() + 600;
    while (Date.now() < until) {
      // busy, as a loaded machine is
    }
    setTimeout(() => {
      say('cleaned');
      process.exit(130);
    }, cleanupMs);
  },
  force: () => {
    say('force');
    process.exit(131);
  },
});
setInterval(() => undefined, 1_000);
say('ready');
