/**
 * The process's logger: pino JSON lines (level, ISO time, app, pid, hostname, and the request id
 * of the request being served) or, for a terminal, pino-pretty's coloured lines. Nest's own
 * logging goes through it (PinoNestLogger), so every line of the process has one format.
 */
import * as os from 'node:os';
import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { AppConfig } from '@app/config';
import { currentRequest } from './request-context';

export type AppName = 'all-in-one' | 'router' | 'stream' | 'ingestor';

export interface LoggingOptions {
  app: AppName;
  level: AppConfig['logLevel'];
  format: AppConfig['logFormat'];
  /** where lines go (stdout by default; the tests pass a stream of their own) */
  destination?: DestinationStream;
}

/** silent until the app configures it (so a library used alone, or a test, writes nothing) */
let root: Logger = pino({ level: 'silent' });

/** the context fields of the request being served, merged into every line */
function requestFields(): Record<string, string> {
  const ctx = currentRequest();
  if (ctx === undefined) return {};
  return ctx.keyId === undefined ? { reqId: ctx.id } : { reqId: ctx.id, keyId: ctx.keyId };
}

/** pino-pretty's stream when the format asks for it and the package is installed (a development dependency) */
function prettyStream(format: LoggingOptions['format']): DestinationStream | null {
  if (format === 'json' || (format === 'auto' && !process.stdout.isTTY)) return null;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pretty = require('pino-pretty') as (o: object) => DestinationStream;
    return pretty({
      colorize: process.stdout.isTTY === true,
      translateTime: 'SYS:HH:MM:ss.l',
      // one line per entry: the context, or an access line's method, path, status and duration, before the message
      messageFormat: '{if context}[{context}] {end}{if method}{method} {path} {status} {durationMs} ms {end}{msg}',
      ignore: 'pid,hostname,app,context,method,path,route,status,durationMs,reqId',
    });
  } catch {
    return null;
  }
}

/** configure the process's logger; returns it */
export function configureLogging(options: LoggingOptions): Logger {
  const pretty = options.destination === undefined ? prettyStream(options.format) : null;
  root = pino(
    {
      level: options.level,
      base: { app: options.app, pid: process.pid, hostname: os.hostname() },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: requestFields,
    },
    options.destination ?? pretty ?? pino.destination({ dest: 1, sync: true }),
  );
  if (options.format === 'pretty' && pretty === null && options.destination === undefined) root.warn('LOG_FORMAT=pretty needs the pino-pretty package (a development dependency); writing JSON lines');
  return root;
}

export function logger(): Logger {
  return root;
}

/** Nest's start-up chatter (modules loaded, routes mapped), written at debug so the start-up stays a few lines */
const START_UP_CONTEXTS = new Set(['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication', 'WebSocketsController']);

/** Nest's LoggerService on the process's logger: a Nest context becomes the `context` field */
export class PinoNestLogger implements LoggerService {
  log(message: unknown, ...rest: unknown[]): void {
    const context = rest[rest.length - 1];
    this.write(typeof context === 'string' && START_UP_CONTEXTS.has(context) ? 'debug' : 'info', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }
  /** Nest calls error(message, stack?, context?) */
  error(message: unknown, ...rest: unknown[]): void {
    const context = rest.length > 0 && typeof rest[rest.length - 1] === 'string' ? (rest.pop() as string) : undefined;
    const stack = typeof rest[0] === 'string' ? rest[0] : message instanceof Error ? message.stack : undefined;
    const msg = message instanceof Error ? message.message : typeof message === 'string' ? message : JSON.stringify(message);
    root.error({ context, ...(stack === undefined ? {} : { err: { message: msg, stack } }) }, msg);
  }

  private write(level: 'info' | 'warn' | 'debug' | 'trace' | 'fatal', message: unknown, rest: unknown[]): void {
    const context = typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined;
    if (typeof message === 'string') root[level]({ context }, message);
    else if (message instanceof Error) root[level]({ context, err: message }, message.message);
    else root[level]({ context, data: message }, '');
  }
}
