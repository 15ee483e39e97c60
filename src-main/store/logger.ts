import type { LogFields, StoreLogger } from './types';

/** Default logger: plain console lines, so the store needs no logging dependency. */
export const consoleStoreLogger: StoreLogger = {
  info(msg: string, fields?: LogFields): void {
    console.info(`[store] ${msg}`, ...(fields ? [fields] : []));
  },
  warn(msg: string, fields?: LogFields): void {
    console.warn(`[store] ${msg}`, ...(fields ? [fields] : []));
  },
};
