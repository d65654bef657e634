/**
 * Transaction options end to end on the sim chain (a simulated market of all six programs with
 * its lookup tables): priority fees as a unit price, a lamport amount or a level with a maximum,
 * read back from the decoded transaction's compute-budget instructions (after the simulation set
 * the unit limit too), and /instructions grouped into compute budget, setup, swap and cleanup.
 */
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { Keypair, VersionedTransaction } from '@solana/web3.js';
import { SimMarket } from '@app/sim';
import { RouterModule } from '../apps/router/src/router.module';
import { appendUpdates, callJson, closeApp, poolLog, serveOn } from './support/app';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { MINTS, PROGRAM_IDS } from '@app/solana';

jest.setTimeout(180_000);

/** the unit limit and unit price a transaction sets (ComputeBudget tags 2 and 3) */
function budgetOf(b64: string): { limit: number; price: bigint | null } {
  const tx = VersionedTransaction.deserialize(Buffer.from(b64, 'base64'));
  const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
  let limit = -1;
  let price: bigint | null = null;
  for (const c of tx.message.compiledInstructions) {
    if (keys[c.programIdIndex] !== PROGRAM_IDS.computeBudget) continue;
    const d = Buffer.from(c.data);
    if (d[0] === 2) limit = d.readUInt32LE(1);
    if (d[0] === 3) price = d.readBigUInt64LE(1);
  }
  return { limit, price };
}

describe('transaction options', () => {
  let dir: string;
  let log: EmbeddedLog;
  let app: INestApplication;
  let base: string;
  const wallet = Keypair.generate().publicKey.toBase58();
  const body = { userWallet: wallet, inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '1000000000', swapMode: 'ExactIn' };
  const post = (p: string, b: unknown) => callJson(base, 'POST', p, b);

  beforeAll(async () => {
    ({ dir, log } = await poolLog('tx-options-'));
    const market = new SimMarket({ seed: 12, pools: 120, tokens: 30, swapsPerSlot: 4, programs: 'all', lookupTables: true });
    await appendUpdates(log, market.genesis());
    ({ app, base } = await serveOn(RouterModule, dir, { COMPUTE_UNIT_PRICE: '7' }));
    expect((await post('/api/v1/sim/faucet', { wallet, amount: '20000000000' })).status).toBe(200);
  });

  afterAll(async () => {
    await closeApp(app, log, dir);
  });

  it('priority fees: a unit price, a lamport amount for the final unit limit, a level capped at its maximum; COMPUTE_UNIT_PRICE otherwise', async () => {
    const plain = await post('/api/v1/swap', { ...body, skipSimulation: true });
    expect(budgetOf(plain.body.data.transaction).price).toBe(7n);

    const price = await post('/api/v1/swap', { ...body, skipSimulation: true, computeUnitPriceMicroLamports: 5000 });
    expect(budgetOf(price.body.data.transaction).price).toBe(5000n);

    // simulated: the limit is set from the simulation, and the price follows it
    const lamports = await post('/api/v1/swap', { ...body, prioritizationFeeLamports: 100000 });
    expect(lamports.status).toBe(200);
    expect(lamports.body.data.simulation.success).toBe(true);
    const l = budgetOf(lamports.body.data.transaction);
    expect(l.limit).toBe(lamports.body.data.computeUnitsEstimate);
    expect(l.price).toBe((100000n * 1_000_000n) / BigInt(l.limit));

    const high = await post('/api/v1/swap', { ...body, skipSimulation: true, prioritizationFeeLamports: { priorityLevelWithMaxLamports: { priorityLevel: 'high', maxLamports: 10_000_000 } } });
    expect(budgetOf(high.body.data.transaction).price).toBe(100_000n); // the sim chain's table
    const capped = await post('/api/v1/swap', { ...body, skipSimulation: true, prioritizationFeeLamports: { priorityLevelWithMaxLamports: { priorityLevel: 'veryHigh', maxLamports: 1000 } } });
    const c = budgetOf(capped.body.data.transaction);
    expect(c.price).toBe((1000n * 1_000_000n) / BigInt(c.limit));
    expect((c.price! * BigInt(c.limit)) / 1_000_000n).toBeLessThanOrEqual(1000n);
  });

  it('payer: another fee payer signs first and funds the token accounts created; the user still signs', async () => {
    const payer = Keypair.generate().publicKey.toBase58();
    const r = await post('/api/v1/swap', { ...body, skipSimulation: true, payer });
    expect(r.status).toBe(200);
    const tx = VersionedTransaction.deserialize(Buffer.from(r.body.data.transaction, 'base64'));
    const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
    expect(tx.message.header.numRequiredSignatures).toBe(2);
    expect(keys.slice(0, 2)).toEqual([payer, wallet]);
    const creates = tx.message.compiledInstructions.filter((c) => keys[c.programIdIndex] === PROGRAM_IDS.associatedToken);
    expect(creates.length).toBeGreaterThan(0);
    for (const c of creates) expect(keys[c.accountKeyIndexes[0]]).toBe(payer);
    expect((await post('/api/v1/swap', { ...body, payer: 'nope' })).body).toEqual({ success: false, error: 'invalid payer' });
  });

  it('refuses invalid or conflicting priority fees', async () => {
    const both = await post('/api/v1/swap', { ...body, computeUnitPriceMicroLamports: 1, prioritizationFeeLamports: 1 });
    expect(both).toEqual({ status: 400, body: { success: false, error: 'computeUnitPriceMicroLamports and prioritizationFeeLamports exclude each other' } });
    for (const bad of [-1, 1.5, 'x', { priorityLevelWithMaxLamports: { priorityLevel: 'extreme', maxLamports: 1 } }, { priorityLevelWithMaxLamports: { priorityLevel: 'high' } }, { auto: true }]) {
      expect(await post('/api/v1/instructions', { ...body, prioritizationFeeLamports: bad })).toEqual({ status: 400, body: { success: false, error: 'invalid prioritizationFeeLamports' } });
    }
    expect(await post('/api/v1/instructions', { ...body, computeUnitPriceMicroLamports: '1e3' })).toEqual({ status: 400, body: { success: false, error: 'invalid computeUnitPriceMicroLamports' } });
  });

  it('/instructions groups compute budget, setup, swap and cleanup instructions; in that order they are the flat list', async () => {
    const r = await post('/api/v1/instructions', { ...body, computeUnitPriceMicroLamports: 9 });
    expect(r.status).toBe(200);
    const d = r.body.data;
    expect([...d.computeBudgetInstructions, ...d.setupInstructions, ...d.swapInstructions, ...d.cleanupInstructions]).toEqual(d.instructions);
    expect(d.computeBudgetInstructions.map((ix: any) => Buffer.from(ix.data, 'base64')[0])).toEqual([2, 3]);
    expect(Buffer.from(d.computeBudgetInstructions[1].data, 'base64').readBigUInt64LE(1)).toBe(9n);
    const dex = new Set([PROGRAM_IDS.orcaWhirlpool, PROGRAM_IDS.raydiumClmm, PROGRAM_IDS.raydiumCpmm, PROGRAM_IDS.raydiumAmmV4, PROGRAM_IDS.pumpSwapAmm, PROGRAM_IDS.pumpFun]);
    expect(dex.has(d.swapInstructions[0].programId)).toBe(true);
    expect(dex.has(d.swapInstructions[d.swapInstructions.length - 1].programId)).toBe(true);
    // SOL in: the wrapped-SOL account is created and funded before, and closed after
    expect(d.setupInstructions.some((ix: any) => ix.programId === PROGRAM_IDS.associatedToken)).toBe(true);
    expect(d.setupInstructions.some((ix: any) => ix.programId === PROGRAM_IDS.system)).toBe(true);
    expect(d.cleanupInstructions.some((ix: any) => ix.programId === PROGRAM_IDS.token && Buffer.from(ix.data, 'base64')[0] === 9)).toBe(true);
  });
});
