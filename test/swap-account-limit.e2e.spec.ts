/**
 * The 64-account lock limit over HTTP: a market of all six programs with its lookup tables, the
 * RouterModule on an ephemeral port (CHAIN_GATEWAY=sim). Requests whose best route references
 * more than 64 distinct accounts (a wide split at a large amount: the runtime would refuse the
 * transaction with TooManyAccountLocks, lookup tables or not) are served like oversized ones:
 * /swap and /instructions answer 200 with the best route whose transaction fits (at most 64
 * accounts, static and looked up), never a 500 `failed to build transaction` / `failed to build
 * instructions`.
 */
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { Keypair, VersionedTransaction } from '@solana/web3.js';
import { SimMarket } from '@app/sim';
import { ProjectionService } from '../apps/router/src/projection/projection.service';
import { RouterModule } from '../apps/router/src/router.module';
import { buildSwap } from '../apps/router/src/swap/swap-builder';
import { accountCount, lockedAccounts, TRANSACTION_ACCOUNT_LOCK_LIMIT } from '../apps/router/src/swap/transaction';
import { findBestRoute } from '@app/amm';
import { appendUpdates, callJson, closeApp, poolLog, serveOn } from './support/app';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';

describe('swap e2e: routes over the 64-account lock limit', () => {
  let dir: string;
  let log: EmbeddedLog;
  let app: INestApplication;
  let base: string;
  let projections: ProjectionService;
  const market = new SimMarket({ seed: 8, pools: 150, tokens: 30, swapsPerSlot: 4, programs: 'all', lookupTables: true });
  const wallet = Keypair.generate().publicKey.toBase58();

  const post = (p: string, body: unknown) => callJson(base, 'POST', p, body);

  beforeAll(async () => {
    ({ dir, log } = await poolLog('swap-accounts-e2e-'));
    await appendUpdates(log, market.genesis());
    ({ app, base } = await serveOn(RouterModule, dir));
    projections = app.get(ProjectionService);
  });

  afterAll(async () => {
    await closeApp(app, log, dir);
  });

  /** requests whose best route's instructions reference more than 64 distinct accounts */
  function overAccountLimit(limit: number): Array<{ inputMint: string; outputMint: string; amount: string }> {
    const projection = projections.projection;
    const out: Array<{ inputMint: string; outputMint: string; amount: string }> = [];
    for (const a of market.tokens) {
      for (const b of market.tokens) {
        if (a === b || out.length >= limit) continue;
        const amount = BigInt(Math.floor((1_000_000 / a.priceUsd) * 10 ** a.decimals));
        try {
          const route = findBestRoute(projection, { inputMint: a.mint, outputMint: b.mint, amount, mode: 'ExactIn', maxHops: 5 });
          const ixs = buildSwap({ route, userWallet: wallet, slippageBps: 50, fee: null, computeUnitPriceMicroLamports: 0n }, projection).instructions;
          if (accountCount(wallet, ixs) > TRANSACTION_ACCOUNT_LOCK_LIMIT) out.push({ inputMint: a.mint, outputMint: b.mint, amount: amount.toString() });
        } catch {
          continue;
        }
      }
    }
    return out;
  }

  it('/swap and /instructions serve the best route that fits (200), the same one', async () => {
    const cases = overAccountLimit(3);
    expect(cases.length).toBeGreaterThanOrEqual(1);
    for (const req of cases) {
      const body = { userWallet: wallet, ...req, swapMode: 'ExactIn' };
      const s = await post('/api/v1/swap', { ...body, skipSimulation: true });
      expect(s.status).toBe(200);
      const tx = VersionedTransaction.deserialize(Buffer.from(s.body.data.transaction, 'base64'));
      expect(lockedAccounts(tx.message)).toBeLessThanOrEqual(TRANSACTION_ACCOUNT_LOCK_LIMIT);
      expect(s.body.data.splitPercents.length).toBe(s.body.data.pools.length);
      const i = await post('/api/v1/instructions', body);
      expect(i.status).toBe(200);
      expect(i.body.data.amountOut).toBe(s.body.data.amountOut);
      expect(i.body.data.pools).toEqual(s.body.data.pools);
    }
  });
});
