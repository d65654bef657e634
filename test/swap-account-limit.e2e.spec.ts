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
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Keypair, VersionedTransaction } from '@solana/web3.js';
import { SimMarket } from '../apps/ingestor/src/sim/market';
import { ProjectionService } from '../apps/router/src/projection/projection.service';
import { RouterModule } from '../apps/router/src/router.module';
import { buildSwap } from '../apps/router/src/swap/swap-builder';
import { accountCount, lockedAccounts, TRANSACTION_ACCOUNT_LOCK_LIMIT } from '../apps/router/src/swap/transaction';
import { findBestRoute } from '../libs/amm/src/routing/route-search';
import { loadConfig } from '../libs/config/src/config';
import { closeApp, listenApp } from './support/app';
import { NO_RATE_LIMIT } from './support/config';
import { encodePoolUpdate } from '../libs/contracts/src/pool-update';
import { TOPICS } from '../libs/contracts/src/topics';
import { EmbeddedLog } from '../libs/log/src/embedded/embedded-log';

describe('swap e2e: routes over the 64-account lock limit', () => {
  let dir: string;
  let log: EmbeddedLog;
  let app: INestApplication;
  let base: string;
  let projections: ProjectionService;
  const market = new SimMarket({ seed: 8, pools: 150, tokens: 30, swapsPerSlot: 4, programs: 'all', lookupTables: true });
  const wallet = Keypair.generate().publicKey.toBase58();

  async function post(p: string, body: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(base + p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  }

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'swap-accounts-e2e-'));
    log = new EmbeddedLog({ dataDir: dir });
    await log.ensureTopic(TOPICS.poolUpdates);
    await log.append(TOPICS.poolUpdates, market.genesis().map((u) => ({ key: u.address, value: encodePoolUpdate(u) })));
    const config = { ...loadConfig({ DATA_DIR: dir, PORT: '0', ...NO_RATE_LIMIT }), port: 0 };
    let port: number;
    ({ app, port } = await listenApp(RouterModule, config));
    base = `http://127.0.0.1:${port}`;
    projections = app.get(ProjectionService);
    await projections.whenReady();
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
