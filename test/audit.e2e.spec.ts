/**
 * Replay and audit end to end: a router serves quotes over HTTP while the market moves on the
 * log; every served quote lands on quotes-served; the audit rebuilds the projection at each
 * quote's log position and recomputes it — every one matches, and a forged record does not.
 * The replay CLI (npm run replay) is run as a separate process on the same data directory.
 */
import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { SimMarket } from '@app/sim';
import { QuotesServedService } from '../apps/router/src/audit/quotes-served.service';
import { ProjectionService } from '../apps/router/src/projection/projection.service';
import { auditServedQuotes } from '../apps/router/src/replay/audit';
import { RouterModule } from '../apps/router/src/router.module';
import { appendUpdates, closeApp, poolLog, serveOn } from './support/app';
import { type PoolUpdate } from '@app/contracts';
import { decodeQuoteServed, encodeQuoteServed } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { MINTS } from '@app/solana';

const ROOT = path.resolve(__dirname, '..');
jest.setTimeout(120_000);

describe('replay and audit', () => {
  let dir: string;
  let log: EmbeddedLog;
  let app: INestApplication;
  let base: string;
  let market: SimMarket;
  const served: Array<{ id: string; data: any; params: Record<string, string> }> = [];

  const append = (updates: PoolUpdate[]): Promise<void> => appendUpdates(log, updates);

  async function waitForPosition(offset: string): Promise<void> {
    const projections = app.get(ProjectionService);
    for (let i = 0; i < 400 && projections.projection.positions['0'] !== offset; i++) await new Promise((r) => setTimeout(r, 10));
    expect(projections.projection.positions['0']).toBe(offset);
  }

  function cli(args: string[]): { status: number | null; out: any; stderr: string } {
    const r = spawnSync(process.execPath, ['-r', path.join(ROOT, 'test/support/ts-register.js'), path.join(ROOT, 'apps/router/src/replay/cli.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dir, LOG_DRIVER: 'embedded' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    let out: any = null;
    try {
      out = JSON.parse(r.stdout);
    } catch {
      out = r.stdout;
    }
    return { status: r.status, out, stderr: r.stderr };
  }

  beforeAll(async () => {
    ({ dir, log } = await poolLog('audit-e2e-'));
    market = new SimMarket({ seed: 33, pools: 60, tokens: 20, swapsPerSlot: 8 });
    await append(market.genesis());
    ({ app, base } = await serveOn(RouterModule, dir));

    // serve quotes at several points of the log's history, moving the market in between
    const requests: Array<Record<string, string>> = [
      { inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '3000000000', swapMode: 'ExactIn' },
      { inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '2000000000', swapMode: 'ExactOut', slippageBps: '30' },
      { inputMint: MINTS.USDT, outputMint: market.tokens[7].mint, amount: '50000000', swapMode: 'ExactIn' },
      // an integrator fee: recorded with the quote, recomputed with it
      { inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '700000000', swapMode: 'ExactIn', platformFeeBps: '60' },
    ];
    for (let round = 0; round < 4; round++) {
      for (const params of requests) {
        const res = await fetch(`${base}/api/v1/quote?${new URLSearchParams(params).toString()}`);
        const body = (await res.json()) as any;
        if (res.status === 200) served.push({ id: res.headers.get('x-quote-id')!, data: body.data, params });
      }
      for (let s = 0; s < 3; s++) await append(market.step());
      await waitForPosition(String(BigInt((await log.endPositions(TOPICS.poolUpdates))['0']) - 1n));
    }
    await app.get(QuotesServedService).flush();
  });

  afterAll(async () => {
    await closeApp(app, log, dir);
  });

  it('served quotes at different log positions', () => {
    expect(served.length).toBeGreaterThanOrEqual(8);
    expect(new Set(served.map((s) => s.data.logPosition['0'])).size).toBeGreaterThanOrEqual(4);
    expect(served.filter((s) => s.data.platformFee?.feeBps === 60).length).toBeGreaterThanOrEqual(1);
  });

  it('every served quote recomputes bit for bit at its log position', async () => {
    const report = await auditServedQuotes(log);
    expect(report.audited).toBe(served.length);
    expect(report.mismatched).toBe(0);
    expect(report.unreadable).toBe(0);
    expect(report.matched).toBe(served.length);
    expect(new Set(report.entries.map((e) => e.quoteId))).toEqual(new Set(served.map((s) => s.id)));
  });

  it('a quote that differs from what the log implies is reported with the differing fields', async () => {
    const records = await log.read(TOPICS.quotesServed, 'beginning', 1000);
    const original = decodeQuoteServed(records[1].value);
    const forged = {
      ...original,
      quoteId: 'forged-1',
      response: { ...original.response, amountOut: (BigInt(original.response.amountOut) + 1n).toString() },
    };
    await log.append(TOPICS.quotesServed, [{ key: forged.quoteId, value: encodeQuoteServed(forged) }]);
    await log.append(TOPICS.quotesServed, [{ key: 'garbage', value: Buffer.from('{"v":1}') }]);
    const report = await auditServedQuotes(log, { id: 'forged-1' });
    expect(report.audited).toBe(1);
    expect(report.entries[0].verdict).toBe('mismatch');
    expect(report.entries[0].differences).toEqual([{ field: 'amountOut', served: forged.response.amountOut, recomputed: original.response.amountOut }]);
    const all = await auditServedQuotes(log);
    expect(all.mismatched).toBe(1);
    expect(all.unreadable).toBe(1);
    await expect(auditServedQuotes(log, { id: 'nope' })).rejects.toThrow(/no served quote with id nope/);
  });

  it('the replay CLI re-answers a served quote at its position and audits from another process', () => {
    const s = served[served.length - 1];
    const pos = `0:${s.data.logPosition['0']}`;
    const q = cli(['quote', '--at-position', pos, ...Object.entries(s.params).flatMap(([k, v]) => [`--${k}`, v])]);
    expect(q.stderr).toBe('');
    expect(q.status).toBe(0);
    expect(q.out.quote).toEqual(s.data);
    expect(q.out.replayedTo.position).toEqual(s.data.logPosition);

    const st = cli(['state', '--at-slot', String(s.data.contextSlot), '--pool', s.data.routes[0].poolAddress]);
    expect(st.status).toBe(0);
    expect(st.out.market.address).toBe(s.data.routes[0].poolAddress);
    expect(st.out.accounts[0]).toMatchObject({ address: s.data.routes[0].poolAddress, data: expect.any(String) });

    const audit = cli(['audit', '--last', '3']);
    expect(audit.status).toBe(1); // the forged record is among the last three
    expect(audit.out.mismatched).toBe(1);

    const bad = cli(['quote', '--at-position', 'zz']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/invalid log position/);

    const unknown = cli(['quote', ...Object.entries(s.params).flatMap(([k, v]) => [`--${k}`, v]), '--dexes', 'pump.fun']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/unknown option --dexes for quote/);
  });
});
