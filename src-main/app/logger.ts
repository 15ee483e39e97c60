import pino, { type Logger as PinoLogger } from 'pino';
import type { Logger } from '../engine/types';

export function createPinoLogger(level = process.env.BENCHDESK_LOG_LEVEL ?? 'info'): PinoLogger {
  return pino({
    level,
    base: { app: 'benchdesk' },
    // Belt and braces: even if a header object is ever logged, credentials are not.
    redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', '*.token', '*.apiKey', '*.api_key'], censor: '[redacted]' },
  });
}

/** Adapts pino's (fields, msg) order to the engine's (msg, fields) Logger port. */
export function toLogger(log: PinoLogger): Logger {
  return {
    info: (msg, fields) => log.info(fields ?? {}, msg),
    warn: (msg, fields) => log.warn(fields ?? {}, msg),
    error: (msg, fields) => log.error(fields ?? {}, msg),
  };
}
