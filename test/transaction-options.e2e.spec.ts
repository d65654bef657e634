/**
 * Transaction options end to end on the sim chain (a simulated market of all six programs with
 * its lookup tables): priority fees as a unit price, a lamport amount or a level with a maximum,
 * read back from the decoded transaction's compute-budget instructions (after the simulation set
 * the unit limit too), /instructions grouped into compute budget, setup, swap and cleanup, an
 * integrator fee (platformFeeBps to feeAccount), wrapAndUnwrapSol and destinationTokenAccount,
 * each executed on the sim chain and read back from the accounts' balances.
 */
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { Keypair, VersionedTransaction } from '@solana/web3.js';
import { SimMarket } from '@app/sim';
import { RouterModule } from '../apps/router/src/router.module';
import { CHAIN_GATEWAY } from '../apps/router/src/chain/chain-gateway';
import type { SimChainGateway } from '../apps/router/src/chain/sim.gateway';
import { ProjectionService } from '../apps/router/src/projection/projection.service';
import { appendUpdates, callJson, closeApp, poolLog, serveOn } from './support/app';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { MINTS, PROGRAM_IDS, associatedTokenAddress } from '@app/solana';

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

  /** the token balance of `owner`'s ATA of `mint` on the sim chain */
  const balanceOf = async (owner: string, mint: string): Promise<bigint> => {
    const sim = app.get<SimChainGateway>(CHAIN_GATEWAY);
    return sim.chain.tokenAccount(app.get(ProjectionService).projection, associatedTokenAddress(owner, mint))?.amount ?? 0n;
  };
  /** creates `owner`'s token account of `mint` on the sim chain (the faucet credits it 1 unit) */
  const openAccount = async (owner: string, mint: string): Promise<string> => (await post('/api/v1/sim/faucet', { wallet: owner, mint, amount: '1' })).body.data.account;
  /** executes a /swap answer on the sim chain */
  const send = async (transaction: string) => (await post('/api/v1/sim/send', { transaction })).body.data;
  /** the TransferChecked instructions of a transaction: destination and amount */
  const transfersOf = (b64: string): Array<{ to: string; amount: bigint }> => {
    const tx = VersionedTransaction.deserialize(Buffer.from(b64, 'base64'));
    const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
    return tx.message.compiledInstructions
      .filter((c) => keys[c.programIdIndex] === PROGRAM_IDS.token && c.data[0] === 12)
      .map((c) => ({ to: keys[c.accountKeyIndexes[2]], amount: Buffer.from(c.data).readBigUInt64LE(1) }));
  };

  it('platformFeeBps: the quote takes it from the output and reports it; /swap transfers exactly it to feeAccount, executed', async () => {
    const q = { inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '1000000000', swapMode: 'ExactIn' };
    const query = (extra: Record<string, string>) => '/api/v1/quote?' + new URLSearchParams({ ...q, ...extra }).toString();
    const plain = (await callJson(base, 'GET', query({}))).body.data;
    const charged = (await callJson(base, 'GET', query({ platformFeeBps: '75' }))).body.data;
    const fee = (BigInt(plain.amountOut) * 75n) / 10_000n;
    expect(charged.platformFee).toEqual({ amount: fee.toString(), feeBps: 75 });
    expect(plain.platformFee).toBeUndefined();
    expect(BigInt(charged.amountOut)).toBe(BigInt(plain.amountOut) - fee);
    expect(BigInt(charged.otherAmountThreshold)).toBe((BigInt(charged.amountOut) * 9950n) / 10_000n);

    const integrator = Keypair.generate().publicKey.toBase58();
    const feeAccount = await openAccount(integrator, MINTS.USDC);
    const before = await balanceOf(integrator, MINTS.USDC);
    const r = await post('/api/v1/swap', { ...body, platformFeeBps: 75, feeAccount });
    expect(r.status).toBe(200);
    expect(r.body.data.simulation.success).toBe(true);
    expect(BigInt(r.body.data.feeAmount)).toBe(fee);
    expect(transfersOf(r.body.data.transaction)).toEqual([{ to: feeAccount, amount: fee }]);
    expect((await send(r.body.data.transaction)).success).toBe(true);
    expect((await balanceOf(integrator, MINTS.USDC)) - before).toBe(fee);

    expect(await post('/api/v1/swap', { ...body, platformFeeBps: 75 })).toEqual({ status: 400, body: { success: false, error: 'invalid feeAccount' } });
    expect(await post('/api/v1/instructions', { ...body, platformFeeBps: 1001, feeAccount })).toEqual({ status: 400, body: { success: false, error: 'invalid platformFeeBps' } });
    expect((await callJson(base, 'GET', query({ platformFeeBps: 'x' }))).body).toEqual({ success: false, error: 'invalid platformFeeBps' });
    expect((await callJson(base, 'GET', query({ feeAccount }))).body).toEqual({ success: false, error: 'unknown parameter feeAccount' });
  });

  it('platformFeeBps on ExactOut: added to the input, transferred from the input mint', async () => {
    const integrator = Keypair.generate().publicKey.toBase58();
    const feeAccount = await openAccount(integrator, MINTS.USDC);
    const buyer = Keypair.generate().publicKey.toBase58();
    await post('/api/v1/sim/faucet', { wallet: buyer, amount: '10000000000' });
    await post('/api/v1/sim/faucet', { wallet: buyer, mint: MINTS.USDC, amount: '500000000' });
    const exactOut = { userWallet: buyer, inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '100000000', swapMode: 'ExactOut' };
    const plain = (await post('/api/v1/swap', { ...exactOut, skipSimulation: true })).body.data;
    const r = await post('/api/v1/swap', { ...exactOut, platformFeeBps: 40, feeAccount });
    expect(r.status).toBe(200);
    const fee = BigInt(r.body.data.feeAmount);
    expect(fee).toBeGreaterThan(0n);
    expect(BigInt(r.body.data.maxAmountIn)).toBe(BigInt(plain.maxAmountIn) + fee);
    expect(transfersOf(r.body.data.transaction)).toEqual([{ to: feeAccount, amount: fee }]);
    expect((await send(r.body.data.transaction)).success).toBe(true);
    expect(await balanceOf(integrator, MINTS.USDC)).toBe(fee + 1n);
  });

  it('wrapAndUnwrapSol false: wrapped SOL received stays wrapped, and is spent as it is (no wrap, no unwrap)', async () => {
    const user = Keypair.generate().publicKey.toBase58();
    await post('/api/v1/sim/faucet', { wallet: user, amount: '10000000000' });
    await post('/api/v1/sim/faucet', { wallet: user, mint: MINTS.USDC, amount: '300000000' });
    const sell = await post('/api/v1/instructions', { userWallet: user, inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '200000000', swapMode: 'ExactIn', wrapAndUnwrapSol: false });
    expect(sell.status).toBe(200);
    expect(sell.body.data.cleanupInstructions).toEqual([]);
    const sold = await post('/api/v1/swap', { userWallet: user, inputMint: MINTS.USDC, outputMint: MINTS.SOL, amount: '200000000', swapMode: 'ExactIn', wrapAndUnwrapSol: false });
    expect((await send(sold.body.data.transaction)).success).toBe(true);
    const wsol = await balanceOf(user, MINTS.SOL);
    expect(wsol).toBeGreaterThanOrEqual(BigInt(sold.body.data.minAmountOut));

    const spend = { userWallet: user, inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: (wsol / 2n).toString(), swapMode: 'ExactIn', wrapAndUnwrapSol: false };
    const ixs = (await post('/api/v1/instructions', spend)).body.data;
    expect(ixs.setupInstructions.some((ix: any) => ix.programId === PROGRAM_IDS.system)).toBe(false);
    expect(ixs.cleanupInstructions).toEqual([]);
    const bought = await post('/api/v1/swap', spend);
    expect(bought.body.data.simulation.success).toBe(true);
    expect((await send(bought.body.data.transaction)).success).toBe(true);
    expect(await balanceOf(user, MINTS.SOL)).toBe(wsol - wsol / 2n);

    // a wallet without wrapped SOL cannot spend it as it is: the transaction fails
    const empty = Keypair.generate().publicKey.toBase58();
    await post('/api/v1/sim/faucet', { wallet: empty, amount: '10000000000' });
    const none = await post('/api/v1/swap', { ...spend, userWallet: empty });
    expect(none.status).toBe(500);
    expect(none.body.error).toMatch(/^simulation failed: /);
  });

  it('destinationTokenAccount: the output is delivered there; with a fee from the output, the minimum is moved there', async () => {
    const recipient = Keypair.generate().publicKey.toBase58();
    const destinationTokenAccount = await openAccount(recipient, MINTS.USDC);
    const r = await post('/api/v1/swap', { ...body, destinationTokenAccount });
    expect(r.status).toBe(200);
    const tx = VersionedTransaction.deserialize(Buffer.from(r.body.data.transaction, 'base64'));
    const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
    // no token account of the user's is created for the output
    const creates = tx.message.compiledInstructions.filter((c) => keys[c.programIdIndex] === PROGRAM_IDS.associatedToken).map((c) => keys[c.accountKeyIndexes[3]]);
    expect(creates).not.toContain(MINTS.USDC);
    const before = await balanceOf(recipient, MINTS.USDC);
    const userBefore = await balanceOf(wallet, MINTS.USDC);
    expect((await send(r.body.data.transaction)).success).toBe(true);
    const received = (await balanceOf(recipient, MINTS.USDC)) - before;
    expect(received).toBeGreaterThanOrEqual(BigInt(r.body.data.minAmountOut));
    expect(await balanceOf(wallet, MINTS.USDC)).toBe(userBefore);

    const feeAccount = associatedTokenAddress(wallet, MINTS.USDC);
    const withFee = await post('/api/v1/swap', { ...body, destinationTokenAccount, platformFeeBps: 30, feeAccount });
    expect(withFee.status).toBe(200);
    const moved = transfersOf(withFee.body.data.transaction);
    expect(moved).toEqual([
      { to: feeAccount, amount: BigInt(withFee.body.data.feeAmount) },
      { to: destinationTokenAccount, amount: BigInt(withFee.body.data.minAmountOut) },
    ]);
    const before2 = await balanceOf(recipient, MINTS.USDC);
    expect((await send(withFee.body.data.transaction)).success).toBe(true);
    expect((await balanceOf(recipient, MINTS.USDC)) - before2).toBe(BigInt(withFee.body.data.minAmountOut));
    expect((await post('/api/v1/swap', { ...body, destinationTokenAccount: 'nope' })).body).toEqual({ success: false, error: 'invalid destinationTokenAccount' });
  });
});
