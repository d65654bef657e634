/**
 * Swap by quote and the audit of builds, end to end: a simulated market of all six programs with
 * its lookup tables on an EmbeddedLog, the RouterModule over HTTP (with an aggregator fee). A
 * /swap or /instructions by quoteId builds exactly the quote's route and amounts (to the unit,
 * read back from the decoded transaction too); a quote whose pools moved on answers 409 unless
 * allowRequote; every /swap and /instructions answer lands on quotes-served with X-Quote-Id, its
 * message hash and its quote, and the audit checks builds against the quotes they came from.
 */
import 'reflect-metadata';
import { createHash } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { Keypair, VersionedTransaction } from '@solana/web3.js';
import { SimMarket } from '@app/sim';
import { QuotesServedService } from '../apps/router/src/audit/quotes-served.service';
import { ProjectionService } from '../apps/router/src/projection/projection.service';
import { auditServedQuotes, readAll } from '../apps/router/src/replay/audit';
import { RouterModule } from '../apps/router/src/router.module';
import { appendUpdates, closeApp, poolLog, serveOn } from './support/app';
import { waitFor } from './support/wait-for';
import { decodeQuoteServed } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { MINTS, PROGRAM_IDS } from '@app/solana';

const TOKEN_PROGRAM = PROGRAM_IDS.token;

jest.setTimeout(180_000);

describe('swap by quote, audited builds', () => {
  let dir: string;
  let log: EmbeddedLog;
  let app: INestApplication;
  let base: string;
  let market: SimMarket;
  const wallet = Keypair.generate().publicKey.toBase58();
  const feeWallet = Keypair.generate().publicKey.toBase58();

  async function call(method: 'GET' | 'POST', p: string, body?: unknown): Promise<{ status: number; body: any; quoteId: string | null }> {
    const res = await fetch(base + p, { method, headers: body === undefined ? undefined : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json(), quoteId: res.headers.get('x-quote-id') };
  }
  const quote = (q: Record<string, string>) => call('GET', `/api/v1/quote?${new URLSearchParams(q).toString()}`);

  async function stepMarket(): Promise<void> {
    await appendUpdates(log, market.step());
    const end = String(BigInt((await log.endPositions(TOPICS.poolUpdates))['0']) - 1n);
    await waitFor(() => app.get(ProjectionService).projection.positions['0'] === end, 20_000, 'the projection to catch up');
  }

  const requests: Array<Record<string, string>> = [
    { inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '2000000000', swapMode: 'ExactIn', slippageBps: '30' },
    { inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '1000000000', swapMode: 'ExactOut' },
  ];

  beforeAll(async () => {
    ({ dir, log } = await poolLog('swap-by-quote-'));
    market = new SimMarket({ seed: 12, pools: 120, tokens: 30, swapsPerSlot: 10, programs: 'all', lookupTables: true });
    await appendUpdates(log, market.genesis());
    await appendUpdates(log, market.step());
    ({ app, base } = await serveOn(RouterModule, dir, { FEE_BPS: '25', FEE_WALLET: feeWallet }));
  });

  afterAll(async () => {
    await closeApp(app, log, dir);
  });

  it('a swap or instructions by quoteId equals the quote to the unit, in the answer and in the decoded transaction', async () => {
    for (const r of requests) {
      const q = await quote(r);
      expect(q.status).toBe(200);
      const quoted = q.body.data;
      const s = await call('POST', '/api/v1/swap', { userWallet: wallet, quoteId: q.quoteId, skipSimulation: true });
      expect(s.status).toBe(200);
      const d = s.body.data;
      expect([d.amountIn, d.amountOut]).toEqual([quoted.amountIn, quoted.amountOut]);
      expect(r.swapMode === 'ExactIn' ? d.minAmountOut : d.maxAmountIn).toBe(quoted.otherAmountThreshold);
      expect(d.pools).toEqual(quoted.routes.map((h: any) => h.poolAddress));
      expect(d.route).toEqual(quoted.routePath);
      // the transaction carries the quote's pools and is the user's to sign
      const tx = VersionedTransaction.deserialize(Buffer.from(d.transaction, 'base64'));
      const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
      expect(keys[0]).toBe(wallet);
      // the aggregator fee's TransferChecked (the only one: tag 12, then the u64 amount) carries feeAmount
      const transfers = tx.message.compiledInstructions.filter((c) => keys[c.programIdIndex] === TOKEN_PROGRAM && c.data[0] === 12);
      expect(transfers.map((c) => Buffer.from(c.data).readBigUInt64LE(1).toString())).toEqual([d.feeAmount]);
      expect(s.quoteId).toMatch(/^[0-9a-f-]{36}$/);
      expect(s.quoteId).not.toBe(q.quoteId);
      const ix = await call('POST', '/api/v1/instructions', { userWallet: wallet, quoteId: q.quoteId, inputMint: r.inputMint, amount: r.amount });
      expect(ix.status).toBe(200);
      expect([ix.body.data.amountIn, ix.body.data.amountOut, ix.body.data.otherAmountThreshold, ix.body.data.feeAmount]).toEqual([quoted.amountIn, quoted.amountOut, quoted.otherAmountThreshold, d.feeAmount]);
      expect(BigInt(d.feeAmount)).toBeGreaterThan(0n);
    }
  });

  it('refuses a quoteId it does not keep, fields that contradict the quote, and route controls beside a quoteId', async () => {
    const q = await quote(requests[0]);
    expect((await call('POST', '/api/v1/swap', { userWallet: wallet, quoteId: 'no-such-quote' })).body).toEqual({ success: false, error: 'quote not found' });
    expect((await call('POST', '/api/v1/swap', { userWallet: wallet, quoteId: 'no-such-quote' })).status).toBe(404);
    const bad = await call('POST', '/api/v1/swap', { userWallet: wallet, quoteId: q.quoteId, amount: '2000000001' });
    expect([bad.status, bad.body.error]).toEqual([400, 'quoteId does not match amount']);
    const slip = await call('POST', '/api/v1/instructions', { userWallet: wallet, quoteId: q.quoteId, slippageBps: 50 });
    expect([slip.status, slip.body.error]).toEqual([400, 'quoteId does not match slippageBps']);
    const ctl = await call('POST', '/api/v1/instructions', { userWallet: wallet, quoteId: q.quoteId, onlyDirectRoutes: true });
    expect([ctl.status, ctl.body.error]).toEqual([400, 'onlyDirectRoutes not allowed with quoteId']);
    const requote = await call('POST', '/api/v1/instructions', { userWallet: wallet, ...requests[0], slippageBps: 30, allowRequote: true });
    expect([requote.status, requote.body.error]).toEqual([400, 'allowRequote needs quoteId']);
    // without quoteId the quote fields stay required
    const missing = await call('POST', '/api/v1/swap', { userWallet: wallet, inputMint: MINTS.SOL });
    expect([missing.status, missing.body.error]).toEqual([400, 'invalid outputMint']);
  });

  it('a quote whose pools moved on answers 409, or a new quote with allowRequote', async () => {
    const q = await quote(requests[0]);
    let moved = false;
    for (let i = 0; i < 30 && !moved; i++) {
      await stepMarket();
      const s = await call('POST', '/api/v1/instructions', { userWallet: wallet, quoteId: q.quoteId });
      if (s.status === 409) {
        expect(s.body).toEqual({ success: false, error: 'quote state moved on' });
        moved = true;
      } else expect(s.body.data.amountOut).toBe(q.body.data.amountOut);
    }
    expect(moved).toBe(true);
    const again = await call('POST', '/api/v1/swap', { userWallet: wallet, quoteId: q.quoteId, allowRequote: true, skipSimulation: true });
    expect(again.status).toBe(200);
    const fresh = await quote(requests[0]);
    expect(again.body.data.amountOut).toBe(fresh.body.data.amountOut);
  });

  it('every /swap and /instructions answer is on quotes-served with its request, answer and message hash; the audit checks builds against their quotes', async () => {
    const q = await quote(requests[1]);
    const s = await call('POST', '/api/v1/swap', { userWallet: wallet, quoteId: q.quoteId, skipSimulation: true });
    const plain = await call('POST', '/api/v1/instructions', { userWallet: wallet, ...requests[0], slippageBps: 30, dexes: 'Raydium CPMM,Orca Whirlpool' });
    expect(plain.status).toBe(200);
    await app.get(QuotesServedService).flush();
    const records = (await readAll(log, TOPICS.quotesServed)).map((r) => decodeQuoteServed(r.value));
    const swapRecord = records.find((r) => r.quoteId === s.quoteId)!;
    expect(swapRecord.kind).toBe('swap');
    expect(swapRecord.build!.userWallet).toBe(wallet);
    expect(swapRecord.build!.fromQuoteId).toBe(q.quoteId);
    expect(swapRecord.build!.answer).toEqual(s.body.data);
    const message = VersionedTransaction.deserialize(Buffer.from(s.body.data.transaction, 'base64')).message.serialize();
    expect(swapRecord.build!.messageHash).toBe(createHash('sha256').update(message).digest('base64'));
    expect(swapRecord.response.amountOut).toBe(q.body.data.amountOut);
    const ixRecord = records.find((r) => r.quoteId === plain.quoteId)!;
    expect(ixRecord.kind).toBe('instructions');
    expect(ixRecord.request.controls!.dexes!.length).toBe(2);
    expect(ixRecord.build!.answer).toEqual(plain.body.data);
    expect(records.filter((r) => r.kind === 'swap' || r.kind === 'instructions').length).toBeGreaterThanOrEqual(8);

    const report = await auditServedQuotes(log);
    const requoted = records.filter((r) => r.build?.requoted === true);
    expect(requoted.length).toBe(1);
    expect(report.entries.some((e) => e.quoteId === requoted[0].quoteId)).toBe(false);
    const fromQuote = report.entries.filter((e) => records.find((r) => r.quoteId === e.quoteId)?.build?.fromQuoteId !== undefined);
    expect(fromQuote.length).toBeGreaterThanOrEqual(4);
    expect(fromQuote.every((e) => e.verdict === 'match')).toBe(true);
    expect(report.mismatched).toBe(0);
  });
});
