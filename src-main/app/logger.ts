import pino, { type Logger as PinoLogger } from 'pino';
import { redactUrlCredentials, redactUrlsDeep } from '../engine/redact';
import type { Logger } from '../engine/types';
import { processLogDestination } from './log-destination';

export function createPinoLogger(level = process.env.BENCHDESK_LOG_LEVEL ?? 'info'): PinoLogger {
  return pino({
    level,
    base: { app: 'benchdesk' },
    // Belt and braces: even if a header object is ever logged, credentials are not.
    redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', '*.token', '*.apiKey', '*.api_key'], censor: '[redacted]' },
  }, processLogDestination());
}

/**
 * Adapts pino's (fields, msg) order to the engine's (msg, fields) Logger port. Error messages may
 * quote a backend URL: passwords inside URLs are masked before anything is written.
 */
export function toLogger(log: PinoLogger): Logger {
  return {
    info: (msg, fields) => log.info(redactUrlsDeep(fields ?? {}), redactUrlCredentials(msg)),
    warn: (msg, fields) => log.warn(redactUrlsDeep(fields ?? {}), redactUrlCredentials(msg)),
    error: (msg, fields) => log.error(redactUrlsDeep(fields ?? {}), redactUrlCredentials(msg)),
  };
}
