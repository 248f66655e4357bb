import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.js';

/**
 * Structured JSON logs on stdout. Authorization headers, cookies, secrets, codes and tokens are
 * never passed to the logger; the redact list is a second line of defence.
 */
export function createLogger(level: LogLevel): Logger {
  return pino({
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        '*.client_secret',
        '*.code',
        '*.access_token',
        '*.password',
      ],
      censor: '[redacted]',
    },
  });
}
