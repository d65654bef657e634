/**
 * Route controls end to end: a simulated market of all six programs with its lookup tables on an
 * EmbeddedLog, the RouterModule over HTTP. Each control changes the route as it says (an excluded
 * dex never appears, `dexes` keeps only its programs, onlyDirectRoutes and maxHops bound the hops,
 * restrictIntermediateTokens keeps intermediates liquid, maxAccounts bounds the built
 * transaction's accounts), GET /api/v1/dexes lists the programs, and parameters the API does not
 * know are refused on quote, swap and instructions.
 */
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { Keypair, VersionedTransaction } from '@solana/web3.js';
import { SimMarket } from '@app/sim';
import { RouterModule } from '../apps/router/src/router.module';
import { lockedAccounts } from '../apps/router/src/swap/transaction';
import { appendUpdates, callJson, closeApp, poolLog, serveOn } from './support/app';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { MINTS, PROGRAM_IDS } from '@app/solana';

jest.setTimeout(180_000);

describe('route controls', () => {
  let dir: string;
  let log: EmbeddedLog;
  let app: INestApplication;
  let base: string;
  let market: SimMarket;
  const wallet = Keypair.generate().publicKey.toBase58();

  const call = (method: 'GET' | 'POST', p: string, body?: unknown) => callJson(base, method, p, body);
  const quote = (q: Record<string, string>) => call('GET', `/api/v1/quote?${new URLSearchParams(q).toString()}`);
  /** pairs of the market: SOL and the stablecoins against every fifth token, both ways */
  let pairs: Array<{ inputMint: string; outputMint: string; amount: string; swapMode: string }>;

  beforeAll(async () => {
    ({ dir, log } = await poolLog('route-controls-'));
    market = new SimMarket({ seed: 8, pools: 150, tokens: 40, swapsPerSlot: 8, programs: 'all', lookupTables: true });
    await appendUpdates(log, market.genesis());
    for (let i = 0; i < 2; i++) await appendUpdates(log, market.step());
    ({ app, base } = await serveOn(RouterModule, dir));
    const tokens = (await call('GET', '/api/v1/tokens')).body.data.tokens as Array<{ mint: string; decimals: number }>;
    const dec = new Map(tokens.map((t) => [t.mint, t.decimals]));
    pairs = [];
    const others = tokens.map((t) => t.mint).filter((m) => m !== MINTS.SOL && m !== MINTS.USDC && m !== MINTS.USDT);
    for (const hub of [MINTS.SOL, MINTS.USDC]) {
      for (const m of others.filter((_, i) => i % 5 === 0)) {
        pairs.push({ inputMint: hub, outputMint: m, amount: (10n ** BigInt(dec.get(hub) ?? 6)).toString(), swapMode: 'ExactIn' });
        pairs.push({ inputMint: m, outputMint: hub, amount: (10n ** BigInt(dec.get(hub) ?? 6)).toString(), swapMode: 'ExactOut' });
      }
    }
    pairs.push({ inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '500000000000', swapMode: 'ExactIn' });
  });

  afterAll(async () => {
    await closeApp(app, log, dir);
  });

  it('GET /api/v1/dexes lists the six programs by label and program id, with their routable pools', async () => {
    const r = await call('GET', '/api/v1/dexes');
    expect(r.status).toBe(200);
    const dexes = r.body.data.dexes as Array<{ label: string; programId: string; pools: number }>;
    expect(dexes.map((d) => d.label).sort()).toEqual(['Orca Whirlpool', 'PumpSwap', 'Raydium AMM v4', 'Raydium CLMM', 'Raydium CPMM', 'pump.fun']);
    expect(dexes.find((d) => d.label === 'Raydium CPMM')!.programId).toBe(PROGRAM_IDS.raydiumCpmm);
    const markets = (await call('GET', '/api/v1/markets')).body.data.markets as Array<{ programId: string; routable: boolean }>;
    for (const d of dexes) expect(d.pools).toBe(markets.filter((m) => m.routable && m.programId === d.programId).length);
  });

  it('an excluded dex never appears (by label, any case, and by program id); dexes keeps only its programs', async () => {
    let excluded = 0;
    let kept = 0;
    for (const p of pairs) {
      const plain = await quote(p);
      if (plain.status !== 200) continue;
      const used = [...new Set((plain.body.data.routes as any[]).map((r) => r.poolType as string))];
      for (const label of used) {
        const programId = (await call('GET', '/api/v1/dexes')).body.data.dexes.find((d: any) => d.label === label).programId;
        for (const name of [label.toUpperCase(), programId]) {
          const r = await quote({ ...p, excludeDexes: name });
          if (r.status === 200) {
            excluded++;
            for (const h of r.body.data.routes) expect(h.poolType).not.toBe(label);
          } else expect([400, 404]).toContain(r.status);
        }
        const only = await quote({ ...p, dexes: label });
        if (only.status === 200) {
          kept++;
          for (const h of only.body.data.routes) expect(h.poolType).toBe(label);
        }
      }
    }
    expect(excluded).toBeGreaterThan(10);
    expect(kept).toBeGreaterThan(3);
  });

  it('onlyDirectRoutes and maxHops bound the hops; restrictIntermediateTokens keeps every intermediate token in the liquid set', async () => {
    let multi = 0;
    for (const p of pairs) {
      const plain = await quote(p);
      if (plain.status !== 200) continue;
      if (plain.body.data.hopCount > 1) multi++;
      const direct = await quote({ ...p, onlyDirectRoutes: 'true' });
      if (direct.status === 200) {
        expect(direct.body.data.hopCount).toBe(1);
        for (const h of direct.body.data.routes) expect([h.inputMint, h.outputMint]).toEqual([p.inputMint, p.outputMint]);
      } else expect(direct.body.error).toBe('no route found');
      const two = await quote({ ...p, maxHops: '2' });
      if (two.status === 200) expect(two.body.data.hopCount).toBeLessThanOrEqual(2);
      const liquid = await quote({ ...p, restrictIntermediateTokens: 'true' });
      if (liquid.status === 200) {
        for (const h of liquid.body.data.routes) {
          for (const m of [h.inputMint, h.outputMint]) expect([p.inputMint, p.outputMint, MINTS.SOL, MINTS.USDC, MINTS.USDT]).toContain(m);
        }
      }
    }
    expect(multi).toBeGreaterThan(3);
  });

  it('maxAccounts: the built transaction references at most that many accounts, and the quote serves the same route', async () => {
    let tightened = 0;
    for (const p of pairs) {
      const body = { userWallet: wallet, ...p, skipSimulation: true };
      const plain = await call('POST', '/api/v1/swap', body);
      if (plain.status !== 200) continue;
      const accounts = lockedAccounts(VersionedTransaction.deserialize(Buffer.from(plain.body.data.transaction, 'base64')).message);
      const max = accounts - 1;
      const r = await call('POST', '/api/v1/swap', { ...body, maxAccounts: max });
      if (r.status !== 200) {
        expect(r).toEqual({ status: 404, body: { success: false, error: 'no route within maxAccounts' } });
        continue;
      }
      tightened++;
      const tx = VersionedTransaction.deserialize(Buffer.from(r.body.data.transaction, 'base64'));
      expect(lockedAccounts(tx.message)).toBeLessThanOrEqual(max);
      const q = await quote({ ...p, maxAccounts: String(max) });
      expect(q.status).toBe(200);
      expect(q.body.data.routes.map((h: any) => h.poolAddress)).toEqual(r.body.data.pools);
      expect(p.swapMode === 'ExactIn' ? q.body.data.amountOut : q.body.data.amountIn).toBe(p.swapMode === 'ExactIn' ? r.body.data.amountOut : r.body.data.amountIn);
      const ix = await call('POST', '/api/v1/instructions', { userWallet: wallet, ...p, maxAccounts: max });
      expect(ix.status).toBe(200);
      expect(ix.body.data.pools).toEqual(r.body.data.pools);
    }
    expect(tightened).toBeGreaterThan(3);
    const none = await call('POST', '/api/v1/swap', { userWallet: wallet, ...pairs[0], skipSimulation: true, maxAccounts: 3 });
    expect(none).toEqual({ status: 404, body: { success: false, error: 'no route within maxAccounts' } });
  });

  it('refuses parameters the API does not know, naming them, and invalid controls', async () => {
    const p = pairs[0];
    expect(await quote({ ...p, onlyDirectRoute: 'true' })).toEqual({ status: 400, body: { success: false, error: 'unknown parameter onlyDirectRoute' } });
    const body = { userWallet: wallet, ...p };
    expect(await call('POST', '/api/v1/swap', { ...body, wrapAndUnwrapSOL: false })).toEqual({ status: 400, body: { success: false, error: 'unknown parameter wrapAndUnwrapSOL' } });
    expect(await call('POST', '/api/v1/instructions', { ...body, skipSimulation: true })).toEqual({ status: 400, body: { success: false, error: 'unknown parameter skipSimulation' } });
    // an unknown parameter is named before an invalid one
    expect(await quote({ ...p, amount: 'x', foo: '1' })).toEqual({ status: 400, body: { success: false, error: 'unknown parameter foo' } });
    expect(await quote({ ...p, dexes: 'Nowhere DEX' })).toEqual({ status: 400, body: { success: false, error: 'invalid dexes' } });
    expect(await quote({ ...p, excludeDexes: '' })).toEqual({ status: 400, body: { success: false, error: 'invalid excludeDexes' } });
    expect(await quote({ ...p, onlyDirectRoutes: 'yes' })).toEqual({ status: 400, body: { success: false, error: 'invalid onlyDirectRoutes' } });
    expect(await quote({ ...p, maxHops: '0' })).toEqual({ status: 400, body: { success: false, error: 'invalid maxHops' } });
    expect(await quote({ ...p, maxHops: '6' })).toEqual({ status: 400, body: { success: false, error: 'invalid maxHops' } });
    expect(await quote({ ...p, maxAccounts: '65' })).toEqual({ status: 400, body: { success: false, error: 'invalid maxAccounts' } });
    expect(await call('POST', '/api/v1/swap', { ...body, onlyDirectRoutes: 1 })).toEqual({ status: 400, body: { success: false, error: 'invalid onlyDirectRoutes' } });
    expect(await call('POST', '/api/v1/swap', { ...body, dexes: ['Raydium CPMM', 7] })).toEqual({ status: 400, body: { success: false, error: 'invalid dexes' } });
    // a JSON array of dexes in a body
    const r = await call('POST', '/api/v1/instructions', { ...body, dexes: ['Raydium CPMM', PROGRAM_IDS.orcaWhirlpool] });
    if (r.status === 200) expect(r.body.data.instructions.every((ix: any) => ix.programId !== PROGRAM_IDS.raydiumClmm && ix.programId !== PROGRAM_IDS.pumpFun)).toBe(true);
  });
});
