/**
 * Swap end to end on the sim chain: a real EmbeddedLog filled by the SimMarket (plus lookup
 * tables covering its pools, as the sim market will publish them), the RouterModule on an
 * ephemeral port with CHAIN_GATEWAY=sim. Fund a wallet through the faucet, quote, build
 * (/swap and /instructions), simulate, send on the sim chain, and check that balances move by
 * exactly the quoted amounts; every error of the swap endpoints.
 */
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { Keypair, VersionedTransaction } from '@solana/web3.js';
import { SimMarket } from '@app/sim';
import { ProjectionService } from '../apps/router/src/projection/projection.service';
import { RouterModule } from '../apps/router/src/router.module';
import { CHAIN_GATEWAY } from '../apps/router/src/chain/chain-gateway';
import type { SimChainGateway } from '../apps/router/src/chain/sim.gateway';
import { appendUpdates, callJson, closeApp, poolLog, serveOn } from './support/app';
import { type PoolUpdate } from '@app/contracts';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import { cpmmAuthority } from '@app/solana';
import { buildLookupTables } from '@app/solana';
import { associatedTokenAddress } from '@app/solana';

describe('swap e2e (sim chain)', () => {
  let dir: string;
  let log: EmbeddedLog;
  let app: INestApplication;
  let base: string;
  let market: SimMarket;
  let gateway: SimChainGateway;
  let projections: ProjectionService;
  const feeWallet = Keypair.generate().publicKey.toBase58();
  const tableAuthority = Keypair.generate().publicKey.toBase58();

  const post = (p: string, body: unknown) => callJson(base, 'POST', p, body);
  async function quote(q: Record<string, string>): Promise<any> {
    const res = await fetch(`${base}/api/v1/quote?${new URLSearchParams(q).toString()}`);
    return res.json();
  }
  const tokenBalance = (wallet: string, mint: string): bigint => gateway.chain.tokenAccount(projections.projection, associatedTokenAddress(wallet, mint))?.amount ?? 0n;

  /** lookup tables covering every pool's accounts (what the sim market's table builder publishes) */
  function tableUpdates(slot: number): PoolUpdate[] {
    const addrs: string[] = [PROGRAM_IDS.token, PROGRAM_IDS.system, PROGRAM_IDS.associatedToken, cpmmAuthority(), MINTS.SOL];
    for (const p of market.pools) {
      const s = p.state;
      addrs.push(p.address, s.ammConfig, s.token0Vault, s.token1Vault, s.token0Mint, s.token1Mint, s.observationKey);
    }
    return buildLookupTables(tableAuthority, BigInt(slot), addrs).map((t) => ({
      slot,
      address: t.address,
      owner: t.owner,
      lamports: 10_000_000n,
      data: t.data,
      source: 'test',
    }));
  }

  beforeAll(async () => {
    ({ dir, log } = await poolLog('swap-e2e-'));
    market = new SimMarket({ seed: 21, pools: 60, tokens: 20, swapsPerSlot: 6 });
    const append = (updates: PoolUpdate[]): Promise<void> => appendUpdates(log, updates);
    await append(market.genesis());
    for (let i = 0; i < 3; i++) await append(market.step());
    await append(tableUpdates(market.slot));

    ({ app, base } = await serveOn(RouterModule, dir, { FEE_BPS: '20', FEE_WALLET: feeWallet, FEE_ROUTES: 'multi-hop' }));
    projections = app.get(ProjectionService);
    gateway = app.get(CHAIN_GATEWAY);
  });

  afterAll(async () => {
    await closeApp(app, log, dir);
  });

  it('fund, quote, swap (simulated), send: SOL → USDC moves balances by exactly the quoted amounts', async () => {
    const wallet = Keypair.generate().publicKey.toBase58();
    const f = await post('/api/v1/sim/faucet', { wallet, amount: '5000000000' });
    expect(f).toEqual({ status: 200, body: { success: true, data: { wallet, mint: null, account: wallet, balance: '5000000000' } } });
    const params = { inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '1000000000', swapMode: 'ExactIn' };
    const q = await quote({ ...params, slippageBps: '50' });
    const r = await post('/api/v1/swap', { userWallet: wallet, ...params, slippageBps: 50 });
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    const d = r.body.data;
    expect(Object.keys(d).sort()).toEqual(
      ['amountIn', 'amountOut', 'computeUnitsEstimate', 'feeAmount', 'hopCount', 'isSplitRoute', 'lastValidBlockHeight', 'maxAmountIn', 'minAmountOut', 'pools', 'route', 'simulation', 'splitPercents', 'transaction'].sort(),
    );
    expect(d.amountOut).toBe(q.data.amountOut);
    expect(d.minAmountOut).toBe(q.data.otherAmountThreshold);
    expect(d.maxAmountIn).toBe('1000000000');
    expect(d.route).toEqual(q.data.routePath);
    expect(d.pools).toEqual(q.data.routes.map((x: any) => x.poolAddress));
    expect(d.hopCount).toBe(q.data.hopCount);
    expect(d.isSplitRoute).toBe(false);
    expect(d.splitPercents).toEqual([100]);
    expect(d.lastValidBlockHeight).toBe(projections.projection.slot + 150);
    expect(d.simulation).toMatchObject({ success: true, error: '', insufficientFunds: false, slippageExceeded: false });
    expect(d.simulation.computeUnitsConsumed).toBeGreaterThan(0);
    expect(d.simulation.logs.length).toBeGreaterThan(0);
    // the unit limit comes from the simulation: on the sim chain its consumption is the
    // compute-unit model's estimate (an upper bound of the programs' use), taken as it is
    expect(d.computeUnitsEstimate).toBe(d.simulation.computeUnitsConsumed);
    const bytes = Buffer.from(d.transaction, 'base64');
    expect(bytes.length).toBeLessThanOrEqual(1232);
    const tx = VersionedTransaction.deserialize(bytes);
    const budget = tx.message.compiledInstructions[0];
    expect(tx.message.staticAccountKeys[budget.programIdIndex].toBase58()).toBe(PROGRAM_IDS.computeBudget);
    expect(Buffer.from(budget.data).readUInt8(0)).toBe(2);
    expect(Buffer.from(budget.data).readUInt32LE(1)).toBe(d.computeUnitsEstimate);
    expect(tx.message.header.numRequiredSignatures).toBe(1);
    expect(tx.message.staticAccountKeys[0].toBase58()).toBe(wallet);
    expect(tx.message.addressTableLookups.length).toBeGreaterThan(0);

    const before = gateway.chain.balanceOf(wallet);
    const s = await post('/api/v1/sim/send', { transaction: d.transaction });
    expect(s.body.data.success).toBe(true);
    expect(tokenBalance(wallet, MINTS.USDC)).toBe(BigInt(d.amountOut));
    const ataCreated = d.route.filter((m: string, i: number) => i > 0 && m !== MINTS.SOL).length;
    const fee = 5000n + (BigInt(d.computeUnitsEstimate) * 0n) / 1_000_000n;
    expect(before - gateway.chain.balanceOf(wallet)).toBe(1_000_000_000n + fee + 2_039_280n * BigInt(ataCreated));
  });

  it('a multi-hop token → token swap pays the configured fee from the output; /instructions agrees', async () => {
    let params: Record<string, string> | null = null;
    let q: any;
    const tokens = market.tokens.map((t) => t.mint).filter((m) => m !== MINTS.SOL);
    outer: for (const a of tokens) {
      for (const b of tokens) {
        if (a === b) continue;
        const cand = { inputMint: a, outputMint: b, amount: '1000000', swapMode: 'ExactIn' };
        const qq = await quote(cand);
        if (qq.success && qq.data.hopCount >= 2 && !qq.data.routePath.includes(MINTS.SOL)) {
          params = cand;
          q = qq;
          break outer;
        }
      }
    }
    expect(params).not.toBeNull();
    const wallet = Keypair.generate().publicKey.toBase58();
    await post('/api/v1/sim/faucet', { wallet, amount: '1000000000' });
    const ff = await post('/api/v1/sim/faucet', { wallet, mint: params!.inputMint, amount: params!.amount });
    expect(ff.body.data.account).toBe(associatedTokenAddress(wallet, params!.inputMint));

    const ins = await post('/api/v1/instructions', { userWallet: wallet, ...params });
    expect(ins.status).toBe(200);
    const i = ins.body.data;
    // the API's fields, and the same instructions grouped (transaction-options.e2e.spec.ts)
    const groups = ['computeBudgetInstructions', 'setupInstructions', 'swapInstructions', 'cleanupInstructions'];
    expect(Object.keys(i).sort()).toEqual(['addressLookupTableAddresses', 'amountIn', 'amountOut', 'feeAmount', 'hopCount', 'instructions', 'otherAmountThreshold', 'pools', 'route', ...groups].sort());
    // the quote's amounts are the user's (net of the fee), the same as the built transaction's
    expect(i.amountOut).toBe(q.data.amountOut);
    expect(i.otherAmountThreshold).toBe(q.data.otherAmountThreshold);
    const gross = BigInt(q.data.amountOut) + BigInt(i.feeAmount);
    expect(i.feeAmount).toBe(((gross * 20n) / 10000n).toString());
    expect(BigInt(i.feeAmount)).toBeGreaterThan(0n);
    expect(i.otherAmountThreshold).toBe(((BigInt(i.amountOut) * 9950n) / 10000n).toString());
    expect(i.instructions[0].programId).toBe(PROGRAM_IDS.computeBudget);
    expect(Buffer.from(i.instructions[0].data, 'base64')[0]).toBe(2);
    // one swap instruction per pool of the quote (a split quote lists every pool)
    expect(i.instructions.filter((x: any) => x.programId === PROGRAM_IDS.raydiumCpmm).map((x: any) => x.accounts[3].publicKey)).toEqual(q.data.routes.map((x: any) => x.poolAddress));
    expect(i.pools).toEqual(q.data.routes.map((x: any) => x.poolAddress));
    expect(i.route).toEqual(q.data.routePath);
    for (const x of i.instructions) for (const a of x.accounts) if (a.isSigner) expect(a.publicKey).toBe(wallet);
    expect(i.addressLookupTableAddresses.length).toBeGreaterThan(0);

    const r = await post('/api/v1/swap', { userWallet: wallet, ...params, skipSimulation: true });
    expect(r.status).toBe(200);
    expect(r.body.data.simulation).toBeUndefined();
    // without a simulation the unit limit is the estimate, the one /instructions carries
    expect(r.body.data.computeUnitsEstimate).toBe(Buffer.from(i.instructions[0].data, 'base64').readUInt32LE(1));
    expect(r.body.data.feeAmount).toBe(i.feeAmount);
    const s = await post('/api/v1/sim/send', { transaction: r.body.data.transaction });
    expect(s.body.data.error).toBe('');
    expect(tokenBalance(wallet, params!.inputMint)).toBe(0n);
    expect(tokenBalance(wallet, params!.outputMint)).toBe(BigInt(i.amountOut));
    expect(tokenBalance(feeWallet, params!.outputMint)).toBe(BigInt(i.feeAmount));
  });

  it('ExactOut: minAmountOut = amountOut, maxAmountIn = the slippage bound, user pays exactly amountIn', async () => {
    const wallet = Keypair.generate().publicKey.toBase58();
    await post('/api/v1/sim/faucet', { wallet, amount: '10000000000' });
    const params = { inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '20000000', swapMode: 'ExactOut', slippageBps: 100 };
    const r = await post('/api/v1/swap', { userWallet: wallet, ...params });
    expect(r.status).toBe(200);
    const d = r.body.data;
    expect(d.amountOut).toBe('20000000');
    expect(d.minAmountOut).toBe('20000000');
    expect(BigInt(d.maxAmountIn)).toBe((BigInt(d.amountIn) * 10100n + 9999n) / 10000n);
    const before = gateway.chain.balanceOf(wallet);
    expect((await post('/api/v1/sim/send', { transaction: d.transaction })).body.data.success).toBe(true);
    expect(tokenBalance(wallet, MINTS.USDC)).toBe(20_000_000n);
    expect(before - gateway.chain.balanceOf(wallet)).toBe(BigInt(d.amountIn) + 5000n + 2_039_280n);
  });

  it('errors: invalid user wallet, quote errors, simulation failed for an unfunded wallet', async () => {
    const good = { userWallet: Keypair.generate().publicKey.toBase58(), inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: '1000000', swapMode: 'ExactIn' };
    for (const p of ['/api/v1/swap', '/api/v1/instructions']) {
      expect(await post(p, { ...good, userWallet: 'nope' })).toEqual({ status: 400, body: { success: false, error: 'invalid user wallet' } });
      expect(await post(p, { ...good, userWallet: undefined })).toEqual({ status: 400, body: { success: false, error: 'invalid user wallet' } });
      expect(await post(p, { ...good, amount: '0' })).toEqual({ status: 400, body: { success: false, error: 'invalid amount' } });
      expect(await post(p, { ...good, amount: 5 })).toEqual({ status: 400, body: { success: false, error: 'invalid amount' } });
      expect(await post(p, { ...good, swapMode: 'Both' })).toEqual({ status: 400, body: { success: false, error: 'invalid swapMode' } });
      expect(await post(p, { ...good, inputMint: 'x' })).toEqual({ status: 400, body: { success: false, error: 'invalid inputMint' } });
      expect(await post(p, { ...good, slippageBps: 10001 })).toEqual({ status: 400, body: { success: false, error: 'invalid slippageBps' } });
      expect(await post(p, { ...good, outputMint: Keypair.generate().publicKey.toBase58() })).toEqual({ status: 404, body: { success: false, error: 'no pool found' } });
    }
    expect(await post('/api/v1/swap', { ...good, skipSimulation: 'yes' })).toEqual({ status: 400, body: { success: false, error: 'invalid skipSimulation' } });
    const r = await post('/api/v1/swap', good);
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ success: false, error: 'simulation failed: InsufficientFundsForFee' });
    // the same build without simulation succeeds (no validation)
    expect((await post('/api/v1/swap', { ...good, skipSimulation: true })).status).toBe(200);
  });
});
