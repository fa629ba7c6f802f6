import { AsyncLocalStorage } from 'node:async_hooks';
import { LoggerService } from '@nestjs/common';
import pino, { Logger } from 'pino';
import { isoNow } from './clock';
import type { RequestContext } from './request-context';

/**
 * The request being handled: its id, so that every log line it causes carries it, and its context once
 * AppContextGuard created it, so that the request pool can count the connections of its tenant (TenantShare).
 */
export const requestStore = new AsyncLocalStorage<{ requestId: string; ctx?: RequestContext }>();

/**
 * JSON lines on stdout. Writes are asynchronous: a synchronous write per line costs more than
 * the request it describes. Lines are written in batches of at least LOG_BATCH_BYTES or every
 * LOG_FLUSH_MS, whichever comes first (a write per line was a system call and a thread-pool round trip of
 * every request); pino writes what is left when the process exits, and `flushLogs` before a shutdown.
 */
const LOG_BATCH_BYTES = 4096;
const LOG_FLUSH_MS = 100;

export function createRootLogger(level: string): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { pid: process.pid },
    timestamp: () => `,"time":"${isoNow()}"`, // pino.stdTimeFunctions.isoTime's text, formatted once per second
    mixin: () => {
      const store = requestStore.getStore();
      return store ? { requestId: store.requestId } : {};
    },
  };
  return level === 'silent'
    ? pino(options)
    : pino(options, pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS }));
}

export function flushLogs(logger: Logger): Promise<void> {
  return new Promise((resolve) => logger.flush(() => resolve()));
}

/**
 * Nest's own start-up narration (a line per module, controller and route): debug, so that a start logs only
 * what an operator needs (README "Operations").
 */
const NEST_START_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication']);
/**
 * Errors Nest logs and also throws to the caller: an error that stopped the start (`ExceptionHandler`; the app
 * is created with abortOnError: false) or the listen (`NestApplication`). The caller reports them (main.ts
 * prints one line), so Nest's copy is debug.
 */
const NEST_RETHROWN_CONTEXTS = new Set(['ExceptionHandler', 'NestApplication']);

/** The leading underscore esbuild gives a Nest class it renames in the bundle (scripts/bundle.mjs). */
const BUNDLER_RENAME = /^_(?=[A-Z])/;

/** Nest's logger interface written as JSON lines through pino. */
export class JsonLogger implements LoggerService {
  constructor(private readonly root: Logger) {}

  log(message: unknown, ...rest: unknown[]) {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]) {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]) {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]) {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]) {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]) {
    this.write('fatal', message, rest);
  }

  private write(level: pino.Level, message: unknown, rest: unknown[]): void {
    // Nest passes the context (a class name) last; an object message carries structured fields.
    // In the bundle, Nest's classes may carry a name esbuild gave them (_InstanceLoader).
    const context = typeof rest[rest.length - 1] === 'string' ? (rest.pop() as string).replace(BUNDLER_RENAME, '') : undefined;
    if (
      context !== undefined &&
      ((level === 'info' && NEST_START_CONTEXTS.has(context)) || (level === 'error' && NEST_RETHROWN_CONTEXTS.has(context)))
    )
      level = 'debug';
    const text = rest.find((r): r is string => typeof r === 'string');
    if (message !== null && typeof message === 'object') this.root[level]({ context, ...message }, text);
    else this.root[level]({ context, ...(rest.length && typeof rest[0] === 'string' ? { stack: rest[0] } : {}) }, String(message));
  }
}
