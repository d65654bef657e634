import { Logger } from '@nestjs/common';
import { Worker } from 'worker_threads';
import { KeptWorker } from './kept-worker';

type From = { type: 'ready' } | { type: 'echo'; id: number; value: number } | { type: 'oops'; id: number };

/** a worker that echoes `ask` messages (`value` 0: answers `oops`; -1: exits with 5; -2: no answer) */
const ECHO = `const { parentPort } = require('worker_threads');
  parentPort.postMessage({ type: 'ready' });
  parentPort.on('message', (m) => {
    if (m.type === 'close') return parentPort.close();
    if (m.value === -1) process.exit(5);
    if (m.value === -2) return;
    parentPort.postMessage(m.value === 0 ? { type: 'oops', id: m.id } : { type: 'echo', id: m.id, value: m.value * 2 });
  });`;

function kept(script: () => string): { k: KeptWorker<From>; spawned: number[] } {
  const spawned: number[] = [];
  const k: KeptWorker<From> = new KeptWorker<From>({
    name: 'echo worker',
    spawn: () => {
      spawned.push(Date.now());
      return new Worker(script(), { eval: true });
    },
    onMessage: (m) => {
      if (m.type === 'echo') k.answer(m.id, m.value);
      else k.fail(m.id, new Error('oops'));
    },
    closeMessage: { type: 'close' },
    restartMs: 100,
    restartMaxMs: 250,
    closeMs: 1_000,
    logger: new Logger('test'),
  });
  return { k, spawned };
}

const ask = (k: KeptWorker<From>, value: number) => k.ask<number>((id) => ({ id, value }));
const until = async (f: () => boolean) => {
  for (let i = 0; i < 200 && !f(); i++) await new Promise((r) => setTimeout(r, 10));
};

describe('KeptWorker', () => {
  beforeAll(() => Logger.overrideLogger(false));
  afterAll(() => Logger.overrideLogger(['log', 'error', 'warn', 'debug', 'verbose', 'fatal']));

  it('answers requests by id, fails them on the worker\'s error answer or its exit, and starts it again after restartMs', async () => {
    const { k, spawned } = kept(() => ECHO);
    await expect(ask(k, 1)).rejects.toThrow('echo worker is not running');
    await k.start();
    try {
      expect(k.ready).toBe(true);
      await expect(Promise.all([ask(k, 3), ask(k, 4)])).resolves.toEqual([6, 8]);
      await expect(ask(k, 0)).rejects.toThrow('oops');
      const held = ask(k, -2);
      await expect(ask(k, -1)).rejects.toThrow('echo worker exited (5)');
      await expect(held).rejects.toThrow('echo worker exited (5)');
      expect(k.ready).toBe(false);
      await until(() => k.ready);
      expect(spawned).toHaveLength(2);
      expect(spawned[1] - spawned[0]).toBeGreaterThanOrEqual(100);
      await expect(ask(k, 5)).resolves.toBe(10);
    } finally {
      await k.close();
    }
    expect(k.worker).toBeNull();
  });

  it('keep: while a new worker exits before it is ready, another after twice as long, up to restartMaxMs; none after close', async () => {
    let n = 0;
    const { k, spawned } = kept(() => (++n <= 3 ? 'process.exit(2);' : ECHO));
    k.keep();
    await until(() => k.ready);
    expect(spawned).toHaveLength(4);
    const gaps = spawned.slice(1).map((t, i) => t - spawned[i]);
    expect(gaps[0]).toBeGreaterThanOrEqual(100);
    expect(gaps[1]).toBeGreaterThanOrEqual(200);
    expect(gaps[2]).toBeGreaterThanOrEqual(250);
    expect(gaps[2]).toBeLessThan(400);
    await k.close();
    await new Promise((r) => setTimeout(r, 300));
    expect(spawned).toHaveLength(4);
    expect(k.ready).toBe(false);
  });
});
