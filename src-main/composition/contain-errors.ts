import type { Logger } from '../engine/types';

/**
 * The last line of defence of a running benchdesk: an error nothing caught (a timer's callback, a
 * promise nobody awaited) is logged and contained instead of ending the process, which would leave
 * rented machines billing with nobody to release them (and, at every start, again). The orphan
 * sweep and the cost meter catch their own failures; this covers what a future bug lets through.
 * Installed by startBenchdesk (headless server, desktop app, `benchdesk serve`); removed on close.
 */
export function containUncaughtErrors(log: Logger): () => void {
  const describe = (err: unknown): string => (err instanceof Error ? (err.stack ?? err.message) : String(err));
  const onException = (err: Error, origin: string): void => {
    log.error('an uncaught error was contained; benchdesk keeps running', { error: describe(err), origin });
  };
  const onRejection = (reason: unknown): void => {
    log.error('an unhandled promise rejection was contained; benchdesk keeps running', { error: describe(reason) });
  };
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
  };
}
