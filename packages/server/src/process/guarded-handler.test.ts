import { EventEmitter } from 'node:events';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { installFatalErrorHandlers } from './fatal-errors.js';
import { guardedHandler } from './guarded-handler.js';

/** A pino logger whose lines are collected as parsed objects. */
function collectingLogger() {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('guardedHandler', () => {
  it('logs an error thrown by the handler with its name, and the emitter goes on', () => {
    const { logger, lines } = collectingLogger();
    const emitter = new EventEmitter();
    const seen: number[] = [];
    emitter.on(
      'close',
      guardedHandler(logger, 'request log line', (value: number) => {
        seen.push(value);
        throw new TypeError("Cannot read properties of null (reading 'remoteAddress')");
      }),
    );
    expect(() => emitter.emit('close', 1)).not.toThrow();
    emitter.emit('close', 2);
    expect(seen).toEqual([1, 2]);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      level: 50,
      handler: 'request log line',
      err: { type: 'TypeError', message: "Cannot read properties of null (reading 'remoteAddress')" },
      msg: 'an event handler of the server failed; the server goes on',
    });
  });
});

describe('installFatalErrorHandlers', () => {
  it('logs an uncaught error at fatal with its stack and origin, then exits with code 1', () => {
    const { logger, lines } = collectingLogger();
    const codes: number[] = [];
    const before = new Set(process.listeners('uncaughtException'));
    installFatalErrorHandlers(logger, (code) => codes.push(code));
    const installed = process.listeners('uncaughtException').filter((listener) => !before.has(listener));
    try {
      expect(installed).toHaveLength(1);
      installed[0]?.(new Error('lost state'), 'unhandledRejection');
    } finally {
      for (const listener of installed) process.off('uncaughtException', listener);
    }
    expect(codes).toEqual([1]);
    expect(lines[0]).toMatchObject({
      level: 60,
      origin: 'unhandledRejection',
      err: { message: 'lost state', stack: expect.stringContaining('Error: lost state') },
      msg: 'uncaught error: the process exits',
    });
  });
});
