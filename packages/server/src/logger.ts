import { type Logger, pino } from 'pino';

/**
 * The server's logger. Secrets never belong in log lines; as a second line of defence the
 * authorization header, cookies and any `privatekey`-like field are redacted.
 */
export function createLogger(level: string): Logger {
  return pino({
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.privatekey',
        '*["sp.privatekey"]',
      ],
      censor: '[redacted]',
    },
  });
}
