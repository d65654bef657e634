/**
 * Swaps through every supported program, end to end on the sim chain: a simulated market of all
 * six programs with its lookup tables on an EmbeddedLog, the RouterModule over HTTP. For pairs
 * traded by each kind of pool, fund a wallet, build /swap (simulated), check the transaction
 * (deserializes, one signer = fee payer, ≤ 1232 bytes, lookup tables used), send it on the sim
 * chain and check the output balance moved by exactly the quoted amount.
 */
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { Keypair, VersionedTransaction } from '@solana/web3.js';
import { SimMarket } from '@app/sim';
import { CHAIN_GATEWAY } from '../apps/router/src/chain/chain-gateway';
import type { SimChainGateway } from '../apps/router/src/chain/sim.gateway';
import { ProjectionService } from '../apps/router/src/projection/projection.service';
import { RouterModule } from '../apps/router/src/router.module';
import { appendUpdates, callJson, closeApp, poolLog, serveOn } from './support/app';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { associatedTokenAddress } from '@app/solana';
import { MINTS } from '@app/solana';

jest.setTimeout(180_000);

describe('swaps through every program (sim chain)', () => {
  let dir: string;
  let log: EmbeddedLog;
  let app: INestApplication;
  let base: string;
  let projections: ProjectionService;
  let gateway: SimChainGateway;

  const call = (method: 'GET' | 'POST', p: string, body?: unknown) => callJson(base, method, p, body);

  const tokenBalance = (wallet: string, mint: string): bigint =>
    gateway.chain.tokenAccount(projections.projection, associatedTokenAddress(wallet, mint))?.amount ?? 0n;

  beforeAll(async () => {
    ({ dir, log } = await poolLog('swap-programs-'));
    const market = new SimMarket({ seed: 8, pools: 150, tokens: 40, swapsPerSlot: 8, programs: 'all', lookupTables: true });
    const append = (u: ReturnType<SimMarket['genesis']>): Promise<void> => appendUpdates(log, u);
    await append(market.genesis());
    for (let i = 0; i < 3; i++) await append(market.step());
    ({ app, base } = await serveOn(RouterModule, dir));
    projections = app.get(ProjectionService);
    gateway = app.get(CHAIN_GATEWAY);
  });

  afterAll(async () => {
    await closeApp(app, log, dir);
  });

  it('builds, simulates and executes a swap through each kind of pool', async () => {
    const markets: any[] = (await call('GET', '/api/v1/markets')).body.data.markets.filter((m: any) => m.routable);
    const decimals = new Map<string, number>((await call('GET', '/api/v1/tokens')).body.data.tokens.map((t: any) => [t.mint, t.decimals]));
    const labels = [...new Set(markets.map((m) => m.label))].sort();
    expect(labels.length).toBe(6);
    const exercised = new Map<string, number>();
    const failures: string[] = [];

    for (const label of labels) {
      const pools = markets.filter((m) => m.label === label).slice(0, 12);
      for (const pool of pools) {
        if ((exercised.get(label) ?? 0) >= 2) break;
        for (const [inMint, outMint] of [
          [pool.mintA, pool.mintB],
          [pool.mintB, pool.mintA],
        ]) {
          if ((exercised.get(label) ?? 0) >= 2) break;
          const d = decimals.get(inMint) ?? 6;
          const amount = (10n ** BigInt(Math.max(0, d - 2))).toString(); // 0.01 of a whole token
          const params = { inputMint: inMint, outputMint: outMint, amount, swapMode: 'ExactIn', slippageBps: 100 };
          const q = await call('GET', `/api/v1/quote?${new URLSearchParams({ ...params, slippageBps: '100' }).toString()}`);
          if (q.status !== 200 || !q.body.data.routes.some((r: any) => r.poolType === label)) continue;

          const wallet = Keypair.generate().publicKey.toBase58();
          expect((await call('POST', '/api/v1/sim/faucet', { wallet, amount: '10000000000' })).status).toBe(200);
          if (inMint !== MINTS.SOL) expect((await call('POST', '/api/v1/sim/faucet', { wallet, mint: inMint, amount })).status).toBe(200);

          const r = await call('POST', '/api/v1/swap', { userWallet: wallet, ...params });
          if (r.status !== 200) {
            failures.push(`${label} ${inMint}→${outMint}: ${r.status} ${r.body.error}`);
            continue;
          }
          const s = r.body.data;
          const bytes = Buffer.from(s.transaction, 'base64');
          expect(bytes.length).toBeLessThanOrEqual(1232);
          const tx = VersionedTransaction.deserialize(bytes);
          expect(tx.message.header.numRequiredSignatures).toBe(1);
          expect(tx.message.staticAccountKeys[0].toBase58()).toBe(wallet);
          expect(s.simulation.success).toBe(true);
          expect(s.pools).toEqual(q.body.data.routes.map((x: any) => x.poolAddress));

          const sent = await call('POST', '/api/v1/sim/send', { transaction: s.transaction });
          expect(sent.body.data.error).toBe('');
          expect(sent.body.data.success).toBe(true);
          if (outMint !== MINTS.SOL) expect(tokenBalance(wallet, outMint)).toBe(BigInt(s.amountOut));
          // what the pools took (a budget-style buy may keep a unit of the amount back)
          if (inMint !== MINTS.SOL) expect(tokenBalance(wallet, inMint)).toBe(BigInt(amount) - BigInt(s.amountIn));
          for (const h of q.body.data.routes) exercised.set(h.poolType, (exercised.get(h.poolType) ?? 0) + 1);
        }
      }
    }
    // every program's swap instruction ran at least once on the sim chain
    expect({ labels: [...exercised.keys()].sort(), failures }).toEqual({ labels, failures: [] });
  });
});
