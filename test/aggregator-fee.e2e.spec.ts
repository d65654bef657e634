/**
 * The aggregator fee end to end (FEE_BPS=30, FEE_ROUTES=multi-hop, all in one app on one embedded
 * log): the REST quote's amountIn / amountOut / otherAmountThreshold are those /instructions and
 * /swap build for the same route (API.md §1: amounts already account for all fees); a direct
 * route pays no fee and reports the route's own amounts; the quotes-served records carry the fee
 * and the audit recomputes every served quote with it (all match); a stream push reports the
 * amount the REST quote does; the replay CLI applies --feeBps.
 */
import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Module } from '@nestjs/common';
import { Keypair } from '@solana/web3.js';
import WebSocket from 'ws';
import { SimMarket } from '@app/sim';
import { QuotesServedService } from '../apps/router/src/audit/quotes-served.service';
import { auditServedQuotes, readAll } from '../apps/router/src/replay/audit';
import { RouterModule } from '../apps/router/src/router.module';
import { StreamModule } from '../apps/stream/src/stream.module';
import { decodeQuoteServed } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { appendUpdates, callJson, closeApp, poolLog, serveOn } from './support/app';

const ROOT = path.resolve(__dirname, '..');
jest.setTimeout(120_000);

@Module({ imports: [RouterModule, StreamModule] })
class AllInOne {}

const FEE_BPS = 30n;

describe('aggregator fee e2e (FEE_BPS=30, FEE_ROUTES=multi-hop)', () => {
  let dir: string;
  let log: EmbeddedLog;
  let app: INestApplication;
  let base: string;
  let port: number;
  const market = new SimMarket({ seed: 21, pools: 120, tokens: 24, swapsPerSlot: 4, programs: 'all', lookupTables: true });
  const wallet = Keypair.generate().publicKey.toBase58();
  const feeWallet = Keypair.generate().publicKey.toBase58();

  const get = (p: string) => callJson(base, 'GET', p);
  const post = (p: string, body: unknown) => callJson(base, 'POST', p, body);

  beforeAll(async () => {
    ({ dir, log } = await poolLog('fee-e2e-'));
    await appendUpdates(log, market.genesis());
    ({ app, port, base } = await serveOn(AllInOne, dir, { FEE_BPS: String(FEE_BPS), FEE_WALLET: feeWallet, FEE_ROUTES: 'multi-hop' }, { stream: true }));
  });

  afterAll(async () => {
    await closeApp(app, log, dir);
  });

  /** quote requests over the market's pairs, both modes, about $50 */
  function requests(): Array<Record<string, string>> {
    const out: Array<Record<string, string>> = [];
    market.tokens.forEach((a, i) => {
      const b = market.tokens[(i * 7 + 3) % market.tokens.length];
      if (a === b) return;
      for (const swapMode of ['ExactIn', 'ExactOut']) {
        const t = swapMode === 'ExactIn' ? a : b;
        const amount = BigInt(Math.max(1, Math.floor((50 / t.priceUsd) * 10 ** t.decimals))).toString();
        out.push({ inputMint: a.mint, outputMint: b.mint, amount, swapMode, slippageBps: '75' });
      }
    });
    return out;
  }

  const multiHop: Array<{ params: Record<string, string>; quote: any }> = [];

  it('the quote reports what /instructions and /swap build: amounts net of the fee on multi-hop routes, none on direct ones', async () => {
    let compared = 0;
    let charged = 0;
    let direct = 0;
    for (const params of requests()) {
      const q = await get(`/api/v1/quote?${new URLSearchParams(params)}`);
      if (q.status !== 200) continue;
      const quote = q.body.data;
      const body = { ...params, userWallet: wallet, slippageBps: Number(params.slippageBps) };
      const ix = await post('/api/v1/instructions', body);
      expect(ix.status).toBe(200);
      const sw = await post('/api/v1/swap', { ...body, skipSimulation: true });
      expect(sw.status).toBe(200);
      // a route over the transaction limits is served tighter (another route): compare the same route
      if (JSON.stringify(ix.body.data.pools) !== JSON.stringify(quote.routes.map((r: any) => r.poolAddress))) continue;
      compared++;
      const d = ix.body.data;
      expect([quote.amountIn, quote.amountOut, quote.otherAmountThreshold]).toEqual([d.amountIn, d.amountOut, d.otherAmountThreshold]);
      expect([sw.body.data.amountIn, sw.body.data.amountOut, sw.body.data.feeAmount]).toEqual([d.amountIn, d.amountOut, d.feeAmount]);
      const bound = params.swapMode === 'ExactIn' ? sw.body.data.minAmountOut : sw.body.data.maxAmountIn;
      expect(bound).toBe(quote.otherAmountThreshold);
      const fee = BigInt(d.feeAmount);
      if (quote.routes.length > 1) {
        charged++;
        multiHop.push({ params, quote });
        // fee = floor(the route's side × 30 / 10000): gross output (ExactIn) or route input (ExactOut)
        if (params.swapMode === 'ExactIn') expect(fee).toBe(((BigInt(quote.amountOut) + fee) * FEE_BPS) / 10_000n);
        else expect(fee).toBe(((BigInt(quote.amountIn) - fee) * FEE_BPS) / 10_000n);
        expect(fee).toBeGreaterThan(0n);
      } else {
        direct++;
        expect(fee).toBe(0n);
      }
    }
    expect(compared).toBeGreaterThanOrEqual(20);
    expect(charged).toBeGreaterThanOrEqual(5);
    expect(direct).toBeGreaterThanOrEqual(1);
  });

  it('quotes-served records carry the fee, and the audit recomputes every served quote with it: all match', async () => {
    await app.get(QuotesServedService).flush();
    const records = (await readAll(log, TOPICS.quotesServed)).map((r) => decodeQuoteServed(r.value));
    expect(records.length).toBeGreaterThanOrEqual(20);
    for (const r of records) expect(r.fee).toEqual({ bps: Number(FEE_BPS), routes: 'multi-hop' });
    // the /swap and /instructions answers are on the trail too; the audit recomputes the quotes
    const quotes = records.filter((r) => r.build === undefined);
    expect(records.length - quotes.length).toBeGreaterThanOrEqual(20);
    const report = await auditServedQuotes(log, { last: quotes.length });
    expect(report.audited).toBe(quotes.length);
    expect(report.mismatched).toBe(0);
    expect(report.matched).toBe(quotes.length);
  });

  it('a stream push reports the amounts the REST quote does (fee included)', async () => {
    const picked = multiHop.filter((m) => m.params.swapMode === 'ExactIn').slice(0, 3);
    expect(picked.length).toBeGreaterThan(0);
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/stream`);
    const messages: any[] = [];
    ws.on('message', (m) => messages.push(JSON.parse(m.toString())));
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    ws.send(JSON.stringify({ op: 'subscribe', pairs: picked.map(({ params }) => ({ in: params.inputMint, out: params.outputMint, amount: params.amount, exactIn: true })) }));
    for (let i = 0; i < 500 && messages.filter((m) => m.type === 'quote').length < picked.length; i++) await new Promise((r) => setTimeout(r, 20));
    ws.close();
    for (const { params, quote } of picked) {
      const push = messages.find((m) => m.type === 'quote' && m.in === params.inputMint && m.out === params.outputMint && m.amount === params.amount);
      expect(push).toBeDefined();
      // the market does not move in this suite: same state, same route, same amounts
      expect(push.amountOut).toBe(quote.amountOut);
      expect(push.priceImpactBps).toBe(quote.priceImpactBps);
    }
  });

  it('the replay CLI quotes with the configured fee, or --feeBps', () => {
    const { params, quote } = multiHop[0];
    const run = (extra: string[], env: Record<string, string> = {}) => {
      const r = spawnSync(
        process.execPath,
        ['-r', path.join(ROOT, 'test/support/ts-register.js'), path.join(ROOT, 'apps/router/src/replay/cli.ts'), 'quote', '--inputMint', params.inputMint, '--outputMint', params.outputMint, '--amount', params.amount, '--swapMode', params.swapMode, '--slippageBps', params.slippageBps, ...extra],
        { cwd: ROOT, env: { ...process.env, DATA_DIR: dir, LOG_DRIVER: 'embedded', ...env }, encoding: 'utf8', timeout: 60_000 },
      );
      return { status: r.status, out: r.stdout ? JSON.parse(r.stdout) : null, stderr: r.stderr };
    };
    const withFlag = run(['--feeBps', String(FEE_BPS), '--feeRoutes', 'multi-hop']);
    expect(withFlag.status).toBe(0);
    expect(withFlag.out.quote.amountOut).toBe(quote.amountOut);
    const fromEnv = run([], { FEE_BPS: String(FEE_BPS), FEE_WALLET: feeWallet, FEE_ROUTES: 'multi-hop' });
    expect(fromEnv.out.quote.amountOut).toBe(quote.amountOut);
    const none = run(['--feeBps', '0']);
    const side = params.swapMode === 'ExactIn' ? 'amountOut' : 'amountIn';
    expect(none.out.quote[side]).not.toBe(quote[side]);
    expect(run(['--feeBps', 'x']).status).toBe(2);
  });
});
