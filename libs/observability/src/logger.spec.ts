import { Logger } from '@nestjs/common';
import { configureLogging, PinoNestLogger } from './logger';
import { runInRequestContext, setRequestKeyId } from './request-context';
import type { IncomingMessage } from 'http';

describe('the process logger and Nest through it', () => {
  let lines: Array<Record<string, unknown>>;

  beforeEach(() => {
    lines = [];
    configureLogging({ app: 'router', level: 'info', format: 'json', destination: { write: (l: string) => void lines.push(JSON.parse(l)) } });
  });

  afterAll(() => configureLogging({ app: 'router', level: 'silent', format: 'json', destination: { write: () => undefined } }));

  it('JSON lines with level, ISO time, app and the Nest context', () => {
    new PinoNestLogger().log('projection caught up', 'ProjectionService');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', app: 'router', context: 'ProjectionService', msg: 'projection caught up' });
    expect(new Date(lines[0].time as string).toISOString()).toBe(lines[0].time);
  });

  it("an error once, at error level, with its stack (Nest's error(message, stack, context))", () => {
    const e = new Error('boom');
    Logger.overrideLogger(new PinoNestLogger());
    new Logger('ApiExceptionFilter').error(e.message, e.stack);
    Logger.overrideLogger(false as never);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'error', context: 'ApiExceptionFilter', msg: 'boom', err: { message: 'boom' } });
    expect((lines[0].err as { stack: string }).stack).toContain('logger.spec.ts');
  });

  it("Nest's start-up chatter is at debug, below the default level", () => {
    const l = new PinoNestLogger();
    l.log('Mapped {/api/v1/quote, GET} route', 'RouterExplorer');
    l.log('RouterModule dependencies initialized', 'InstanceLoader');
    expect(lines).toHaveLength(0);
  });

  it('lines written while serving a request carry its id and, once the key check has run, the key id', () => {
    const req = {} as IncomingMessage;
    runInRequestContext(req, 'req-1', () => {
      new PinoNestLogger().warn('slow route search', 'QuoteService');
      setRequestKeyId(req, 'key_7');
      new PinoNestLogger().log('served', 'QuoteService');
    });
    expect(lines.map((l) => [l.reqId, l.keyId])).toEqual([
      ['req-1', undefined],
      ['req-1', 'key_7'],
    ]);
  });
});
