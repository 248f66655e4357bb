import { pino, type DestinationStream, type Logger } from 'pino';
import type { LogFormat, LogLevel } from './config.js';

/**
 * Logs on stdout: JSON lines (for a log collector), or with `format` `text` one line a person
 * reads (LOG_FORMAT; `npm start` in a terminal). Authorization headers, cookies, secrets, codes
 * and tokens are never passed to the logger; the redact list is a second line of defence.
 */
export function createLogger(level: LogLevel, format: LogFormat = 'json', out: NodeJS.WritableStream = process.stdout): Logger {
  const options = {
    level,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', '*.client_secret', '*.code', '*.access_token', '*.password'],
      censor: '[redacted]',
    },
  };
  return format === 'text' ? pino(options, textLines(out)) : pino(options);
}

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** pino's JSON lines, each rewritten as `12:00:00 WARN  <message>  key=value ...` (redacted already). */
function textLines(out: NodeJS.WritableStream): DestinationStream {
  return { write: (line: string) => out.write(textLine(line)) };
}

function textLine(json: string): string {
  const { level, time, msg, pid: _pid, hostname: _hostname, ...fields } = JSON.parse(json) as Record<string, unknown>;
  const when = typeof time === 'number' ? new Date(time).toISOString().slice(11, 19) : '';
  const name = (LEVEL_NAMES[level as number] ?? String(level)).padEnd(5);
  const rest = Object.entries(fields)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  return `${when} ${name} ${typeof msg === 'string' ? msg : ''}${rest ? `  ${rest}` : ''}\n`;
}
