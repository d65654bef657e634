/**
 * SwapBuilder over a projection of the simulated market: every built transaction deserializes,
 * the wallet is the only signer and the fee payer, the CPMM accounts carry the program's
 * writable flags, it fits 1232 bytes; executed by the sim chain, balances move by exactly the
 * quoted amounts; slippage, missing funds and the aggregator fee behave as documented.
 */
import { Keypair, TransactionInstruction, VersionedTransaction } from '@solana/web3.js';
import { SimMarket } from '@app/sim';
import { Projection } from '@app/pools';
import { encodePoolUpdate } from '@app/contracts';
import { evaluatePath, findBestRoute, type Route, type SwapMode } from '@app/amm';
import { PumpAmmPool } from '@app/amm';
import { PumpFunCurve } from '@app/amm';
import { PUMP_BUYBACK_FEE_RECIPIENTS, pumpAmmPoolV2, pumpFunBondingCurveV2 } from '@app/solana';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import { decodePumpGlobal, encodePumpGlobal, pumpGlobalAddress } from '@app/solana';
import { decodePumpAmmGlobalConfig, encodePumpAmmGlobalConfig, pumpAmmGlobalConfigAddress } from '@app/solana';
import { associatedTokenAddress } from '@app/solana';
import { buildSwap, MissingPoolDataError, shareOut } from './swap-builder';
import type { AggregatorFee } from '../quote/aggregator-fee';
import { buildQuoteResponse } from '../quote/quote-response';
import { compileTransaction, PACKET_DATA_SIZE } from './transaction';
import { SimChain, TOKEN_ACCOUNT_RENT } from '../chain/sim-chain';

const market = new SimMarket({ seed: 7, pools: 60, tokens: 16, swapsPerSlot: 4 });
const projection = new Projection();
let offset = 0;
for (const u of market.genesis()) projection.apply({ partition: 0, offset: offset++, value: encodePoolUpdate(u) });
const mints = market.tokens.map((t) => t.mint);

function routeWithHops(hops: number, mode: SwapMode = 'ExactIn'): Route {
  for (const a of mints) {
    for (const b of mints) {
      if (a === b || a === MINTS.SOL || b === MINTS.SOL) continue;
      try {
        const amount = 10n ** BigInt(Math.max(1, (market.tokens.find((t) => t.mint === (mode === 'ExactIn' ? a : b))!.decimals ?? 6) - 2));
        const r = findBestRoute(projection, { inputMint: a, outputMint: b, amount, mode, maxHops: hops });
        if (r.hops.length === hops && new Set(r.hops.map((h) => h.inputMint)).size === hops) return r; // a single path
      } catch {
        // next pair
      }
    }
  }
  throw new Error(`no ${hops}-hop route in the sim market`);
}

function build(route: Route, wallet: string, slippageBps = 50, fee: AggregatorFee | null = null) {
  return buildSwap({ route, userWallet: wallet, slippageBps, fee, computeUnitPriceMicroLamports: 1000n }, projection);
}

function compile(chain: SimChain, wallet: string, ixs: ReturnType<typeof build>['instructions']): VersionedTransaction {
  const { blockhash } = chain.blockhashAt(projection.slot);
  const { bytes } = compileTransaction(wallet, ixs, blockhash, []);
  expect(bytes.length).toBeLessThanOrEqual(PACKET_DATA_SIZE);
  return VersionedTransaction.deserialize(bytes);
}

/** a sim chain where `wallet` holds 1 SOL and `amount` of `mint`, after executing `ixs` successfully */
function executeFunded(wallet: string, mint: string, amount: bigint, ixs: ReturnType<typeof build>['instructions']): SimChain {
  const chain = new SimChain();
  chain.fund(projection, wallet, null, 10n ** 9n);
  chain.fund(projection, wallet, mint, amount);
  const ex = chain.execute(projection, compile(chain, wallet, ixs), projection.slot, true);
  expect(ex.error).toBe('');
  return chain;
}

describe('buildSwap', () => {
  it.each([1, 2, 3])('%i-hop ExactIn: one signer (the payer), CPMM flags, fits, and balances move by the quote', (hops) => {
    const route = routeWithHops(hops);
    const wallet = Keypair.generate().publicKey.toBase58();
    const built = build(route, wallet);
    expect(built.hopCount).toBe(hops);
    expect(built.otherAmountThreshold).toBe((route.amountOut * 9950n) / 10000n);
    const tx = compile(new SimChain(), wallet, built.instructions);
    expect(tx.message.header.numRequiredSignatures).toBe(1);
    expect(tx.message.staticAccountKeys[0].toBase58()).toBe(wallet);
    for (const ix of built.instructions) for (const k of ix.keys) if (k.isSigner) expect(k.pubkey.toBase58()).toBe(wallet);
    const swaps = built.instructions.filter((i) => i.programId.toBase58() === PROGRAM_IDS.raydiumCpmm);
    expect(swaps).toHaveLength(hops);
    for (const s of swaps) expect(s.keys.map((k) => k.isWritable)).toEqual([false, false, false, true, true, true, true, true, false, false, false, false, true]);

    const chain = new SimChain();
    chain.fund(projection, wallet, null, 10n ** 9n);
    chain.fund(projection, wallet, route.inputMint, route.amountIn);
    const tx2 = compile(chain, wallet, built.instructions);
    const ex = chain.execute(projection, tx2, projection.slot, true);
    expect(ex.error).toBe('');
    expect(ex.success).toBe(true);
    expect(ex.computeUnitsConsumed).toBeGreaterThan(0);
    expect(ex.computeUnitsConsumed).toBeLessThanOrEqual(built.computeUnitsEstimate);
    const bal = (m: string): bigint => chain.tokenAccount(projection, associatedTokenAddress(wallet, m))?.amount ?? -1n;
    expect(bal(route.inputMint)).toBe(0n);
    expect(bal(route.outputMint)).toBe(route.amountOut);
    // intermediates end empty (wrapped SOL is closed: its account is gone, its rent back)
    for (const h of route.hops.slice(0, -1)) expect(bal(h.outputMint)).toBe(h.outputMint === MINTS.SOL ? -1n : 0n);
    const created = new Set(route.hops.map((h) => h.outputMint).filter((m) => m !== MINTS.SOL)).size;
    expect(chain.balanceOf(wallet)).toBe(10n ** 9n - ex.feeLamports - TOKEN_ACCOUNT_RENT * BigInt(created));
  });

  it('ExactOut: exact output, maximum input on the first hop, user pays exactly the quoted input', () => {
    const route = routeWithHops(2, 'ExactOut');
    const wallet = Keypair.generate().publicKey.toBase58();
    const built = build(route, wallet, 100);
    expect(built.otherAmountThreshold).toBe((route.amountIn * 10100n + 9999n) / 10000n);
    const chain = new SimChain();
    chain.fund(projection, wallet, null, 10n ** 9n);
    chain.fund(projection, wallet, route.inputMint, built.otherAmountThreshold);
    const ex = chain.execute(projection, compile(chain, wallet, built.instructions), projection.slot, true);
    expect(ex.error).toBe('');
    const bal = (m: string): bigint => chain.tokenAccount(projection, associatedTokenAddress(wallet, m))!.amount;
    expect(bal(route.outputMint)).toBe(route.amountOut);
    expect(built.otherAmountThreshold - bal(route.inputMint)).toBe(route.amountIn);
  });

  it('a quote the pool can no longer meet reverts with slippageExceeded and moves nothing', () => {
    const route = routeWithHops(1);
    const greedy: Route = { ...route, amountOut: route.amountOut + 1000n, hops: [{ ...route.hops[0], amountOut: route.hops[0].amountOut + 1000n }] };
    const wallet = Keypair.generate().publicKey.toBase58();
    const chain = new SimChain();
    chain.fund(projection, wallet, null, 10n ** 9n);
    chain.fund(projection, wallet, route.inputMint, route.amountIn);
    const ex = chain.execute(projection, compile(chain, wallet, build(greedy, wallet, 0).instructions), projection.slot, true);
    expect(ex.success).toBe(false);
    expect(ex.slippageExceeded).toBe(true);
    expect(ex.insufficientFunds).toBe(false);
    expect(ex.error).toMatch(/0x1775 \(ExceededSlippage/);
    expect(chain.tokenAccount(projection, associatedTokenAddress(wallet, route.inputMint))!.amount).toBe(route.amountIn);
  });

  it('an unfunded wallet: insufficientFunds (fee payer, then token balance)', () => {
    const route = routeWithHops(1);
    const wallet = Keypair.generate().publicKey.toBase58();
    const chain = new SimChain();
    const ix = build(route, wallet).instructions;
    let ex = chain.execute(projection, compile(chain, wallet, ix), projection.slot);
    expect([ex.success, ex.insufficientFunds, ex.error]).toEqual([false, true, 'InsufficientFundsForFee']);
    chain.fund(projection, wallet, null, 10n ** 9n);
    ex = chain.execute(projection, compile(chain, wallet, ix), projection.slot);
    expect(ex.insufficientFunds).toBe(true);
    expect(ex.slippageExceeded).toBe(false);
    expect(ex.logs.some((l) => l.includes('failed'))).toBe(true);
  });

  it('an expired blockhash fails with BlockhashExpired', () => {
    const route = routeWithHops(1);
    const wallet = Keypair.generate().publicKey.toBase58();
    const chain = new SimChain();
    chain.fund(projection, wallet, null, 10n ** 9n);
    const tx = compile(chain, wallet, build(route, wallet).instructions);
    expect(chain.execute(projection, tx, projection.slot + 151).error).toBe('BlockhashExpired');
  });

  it('aggregator fee: taken from the output (ExactIn), paid to the fee wallet, amountOut net of it', () => {
    const route = routeWithHops(2);
    const wallet = Keypair.generate().publicKey.toBase58();
    const feeWallet = Keypair.generate().publicKey.toBase58();
    const fee: AggregatorFee = { bps: 30, wallet: feeWallet, routes: 'multi-hop' };
    const built = build(route, wallet, 50, fee);
    expect(built.feeAmount).toBe((route.amountOut * 30n) / 10000n);
    expect(built.amountOut).toBe(route.amountOut - built.feeAmount);
    expect(built.otherAmountThreshold).toBe((built.amountOut * 9950n) / 10000n);
    expect(build(routeWithHops(1), wallet, 50, fee).feeAmount).toBe(0n); // multi-hop only
    const chain = executeFunded(wallet, route.inputMint, route.amountIn, built.instructions);
    expect(chain.tokenAccount(projection, associatedTokenAddress(wallet, route.outputMint))!.amount).toBe(built.amountOut);
    expect(chain.tokenAccount(projection, associatedTokenAddress(feeWallet, route.outputMint))!.amount).toBe(built.feeAmount);
  });

  it('the quote of a route reports the amounts and bound /swap builds for it, the aggregator fee included', () => {
    const wallet = Keypair.generate().publicKey.toBase58();
    const feeWallet = Keypair.generate().publicKey.toBase58();
    let compared = 0;
    for (const mode of ['ExactIn', 'ExactOut'] as const) {
      for (const hops of [1, 2, 3]) {
        const route = routeWithHops(hops, mode);
        for (const fee of [null, { bps: 30, wallet: feeWallet, routes: 'all' as const }, { bps: 25, wallet: feeWallet, routes: 'multi-hop' as const }]) {
          for (const slippageBps of [0, 50, 300]) {
            const built = build(route, wallet, slippageBps, fee);
            const q = buildQuoteResponse(route, { slippageBps, contextSlot: projection.slot, logPosition: {}, fee });
            expect([q.amountIn, q.amountOut, q.otherAmountThreshold]).toEqual([built.amountIn, built.amountOut, built.otherAmountThreshold].map(String));
            // the fee moves the user's side only: the route's own side is the quote's
            if (fee !== null && (fee.routes === 'all' || hops > 1)) {
              expect(built.feeAmount).toBeGreaterThan(0n);
              if (mode === 'ExactIn') expect(BigInt(q.amountOut)).toBe(route.amountOut - built.feeAmount);
              else expect(BigInt(q.amountIn)).toBe(route.amountIn + built.feeAmount);
            } else {
              expect(built.feeAmount).toBe(0n);
              expect([q.amountIn, q.amountOut]).toEqual([route.amountIn, route.amountOut].map(String));
            }
            compared++;
          }
        }
      }
    }
    expect(compared).toBe(2 * 3 * 3 * 3);
  });

  it('aggregator fee on ExactOut: added to the input, paid to the fee wallet; the user receives exactly the amount', () => {
    const route = routeWithHops(2, 'ExactOut');
    const wallet = Keypair.generate().publicKey.toBase58();
    const feeWallet = Keypair.generate().publicKey.toBase58();
    const built = build(route, wallet, 100, { bps: 40, wallet: feeWallet, routes: 'all' });
    expect(built.feeAmount).toBe((route.amountIn * 40n) / 10000n);
    expect(built.amountIn).toBe(route.amountIn + built.feeAmount);
    const chain = executeFunded(wallet, route.inputMint, built.amountIn, built.instructions);
    expect(chain.tokenAccount(projection, associatedTokenAddress(wallet, route.outputMint))!.amount).toBe(route.amountOut);
    expect(chain.tokenAccount(projection, associatedTokenAddress(wallet, route.inputMint))!.amount).toBe(0n);
    expect(chain.tokenAccount(projection, associatedTokenAddress(feeWallet, route.inputMint))!.amount).toBe(built.feeAmount);
  });

  it('SOL input is wrapped and the wrapped account closed: lamports move by amountIn + fee + new ATAs rent', () => {
    let route: Route | null = null;
    for (const b of mints) {
      if (b === MINTS.SOL) continue;
      try {
        route = findBestRoute(projection, { inputMint: MINTS.SOL, outputMint: b, amount: 10n ** 8n, mode: 'ExactIn', maxHops: 2 });
        break;
      } catch {
        // next
      }
    }
    expect(route).not.toBeNull();
    const wallet = Keypair.generate().publicKey.toBase58();
    const chain = new SimChain();
    chain.fund(projection, wallet, null, 10n ** 10n);
    const built = build(route!, wallet);
    const ex = chain.execute(projection, compile(chain, wallet, built.instructions), projection.slot, true);
    expect(ex.error).toBe('');
    const created = new Set(route!.hops.map((h) => h.outputMint)).size;
    expect(chain.balanceOf(wallet)).toBe(10n ** 10n - route!.amountIn - ex.feeLamports - TOKEN_ACCOUNT_RENT * BigInt(created));
    expect(chain.tokenAccount(projection, associatedTokenAddress(wallet, MINTS.SOL))).toBeNull();
    expect(chain.tokenAccount(projection, associatedTokenAddress(wallet, route!.outputMint))!.amount).toBe(route!.amountOut);
  });

  it('missing pool data: a pool whose mint account is unknown', () => {
    const route = routeWithHops(1);
    const empty = { account: () => undefined, decimals: () => undefined };
    expect(() => buildSwap({ route, userWallet: Keypair.generate().publicKey.toBase58(), slippageBps: 50, fee: null, computeUnitPriceMicroLamports: 0n }, empty)).toThrow(
      MissingPoolDataError,
    );
  });

  it('shareOut splits a bound over legs exactly', () => {
    expect(shareOut(100n, [1n, 1n, 1n], 3n)).toEqual([33n, 33n, 34n]);
    expect(shareOut(0n, [5n], 5n)).toEqual([0n]);
  });

  it('pump.fun and PumpSwap hops carry the accounts the programs take since the 2026-04-28 upgrade', () => {
    const all = new SimMarket({ seed: 9, pools: 80, tokens: 20, swapsPerSlot: 4, programs: 'all' });
    const p = new Projection();
    let o = 0;
    for (const u of all.genesis()) p.apply({ partition: 0, offset: o++, value: encodePoolUpdate(u) });
    const wallet = Keypair.generate().publicKey.toBase58();
    const pools = p.markets().filter((m) => m.routable).map((m) => p.pool(m.address));
    const pumpFun = pools.filter((x): x is PumpFunCurve => x instanceof PumpFunCurve);
    const pumpSwap = pools.filter((x): x is PumpAmmPool => x instanceof PumpAmmPool);
    expect(pumpFun.length).toBeGreaterThan(0);
    expect(pumpSwap.length).toBeGreaterThan(0);
    const keysOf = (pool: PumpFunCurve | PumpAmmPool, inputMint: string, programId: string) => {
      const outputMint = inputMint === pool.mintA ? pool.mintB : pool.mintA;
      const route = evaluatePath({ pools: [pool], mints: [inputMint, outputMint] }, 'ExactIn', 10n ** 6n);
      const ix = buildSwap({ route, userWallet: wallet, slippageBps: 50, fee: null, computeUnitPriceMicroLamports: 0n }, p).instructions.find((i) => i.programId.toBase58() === programId)!;
      return ix.keys.map((k) => ({ key: k.pubkey.toBase58(), w: k.isWritable }));
    };
    for (const pool of pumpFun) {
      const buyback = pool.global.buybackFeeRecipients?.find((k) => k !== PROGRAM_IDS.system) ?? PUMP_BUYBACK_FEE_RECIPIENTS[0];
      for (const input of [pool.mintA, pool.mintB]) {
        const keys = keysOf(pool, input, PROGRAM_IDS.pumpFun);
        // the tail: bonding-curve-v2 (read-only), then a buyback fee recipient (writable)
        expect(keys.slice(-2)).toEqual([
          { key: pumpFunBondingCurveV2(pool.mintA === MINTS.SOL ? pool.mintB : pool.mintA), w: false },
          { key: buyback, w: true },
        ]);
      }
    }
    for (const pool of pumpSwap) {
      for (const input of [pool.mintA, pool.mintB]) {
        const keys = keysOf(pool, input, PROGRAM_IDS.pumpSwapAmm).map((k) => k.key);
        if (pool.pool.coinCreator !== PROGRAM_IDS.system) expect(keys).toContain(pumpAmmPoolV2(pool.pool.baseMint));
        const buyback = pool.globalConfig.buybackFeeRecipients?.find((k) => k !== PROGRAM_IDS.system) ?? PUMP_BUYBACK_FEE_RECIPIENTS[0];
        // the tail: the buyback fee recipient and its quote-token account (the market's quote
        // mints, SOL and USDC, are Token-program mints)
        expect([MINTS.SOL, MINTS.USDC]).toContain(pool.pool.quoteMint);
        expect(keys.slice(-2)).toEqual([buyback, associatedTokenAddress(buyback, pool.pool.quoteMint)]);
      }
    }

    // the Global / GlobalConfig accounts list buyback fee recipients: the hops pay the first one listed
    const listedFun = PUMP_BUYBACK_FEE_RECIPIENTS[3];
    const listedAmm = PUMP_BUYBACK_FEE_RECIPIENTS[6];
    const listing = (first: string): string[] => [PROGRAM_IDS.system, first, ...PUMP_BUYBACK_FEE_RECIPIENTS.filter((k) => k !== first).slice(0, 6)];
    const g = p.account(pumpGlobalAddress())!;
    const gc = p.account(pumpAmmGlobalConfigAddress())!;
    const write = (address: string, owner: string, data: Buffer): void => {
      p.apply({ partition: 0, offset: o++, value: encodePoolUpdate({ slot: p.slot, address, owner, lamports: 1_000_000n, data, source: 'sim' }) });
    };
    write(pumpGlobalAddress(), g.owner, encodePumpGlobal({ ...decodePumpGlobal(g.data), buybackFeeRecipients: listing(listedFun) }, g.data.length));
    write(pumpAmmGlobalConfigAddress(), gc.owner, encodePumpAmmGlobalConfig({ ...decodePumpAmmGlobalConfig(gc.data), buybackFeeRecipients: listing(listedAmm) }, gc.data.length));
    const curve = p.pool(pumpFun[0].address) as PumpFunCurve;
    const amm = p.pool(pumpSwap[0].address) as PumpAmmPool;
    expect(curve.global.buybackFeeRecipients[1]).toBe(listedFun);
    expect(keysOf(curve, MINTS.SOL, PROGRAM_IDS.pumpFun).at(-1)).toEqual({ key: listedFun, w: true });
    expect(keysOf(amm, amm.pool.quoteMint, PROGRAM_IDS.pumpSwapAmm).slice(-2).map((k) => k.key)).toEqual([listedAmm, associatedTokenAddress(listedAmm, amm.pool.quoteMint)]);
  });

  it('the sim chain executes pump.fun and PumpSwap hops with those accounts and, as the upgraded programs, refuses them without', () => {
    const all = new SimMarket({ seed: 9, pools: 80, tokens: 20, swapsPerSlot: 4, programs: 'all' });
    const p = new Projection();
    let o = 0;
    for (const u of all.genesis()) p.apply({ partition: 0, offset: o++, value: encodePoolUpdate(u) });
    const pools = p.markets().filter((m) => m.routable).map((m) => p.pool(m.address));
    const curve = pools.find((x): x is PumpFunCurve => x instanceof PumpFunCurve)!;
    const amm = pools.find((x): x is PumpAmmPool => x instanceof PumpAmmPool && x.pool.quoteMint === MINTS.SOL && x.pool.coinCreator !== PROGRAM_IDS.system)!;
    const run = (pool: PumpFunCurve | PumpAmmPool, edit: (keys: TransactionInstruction['keys']) => TransactionInstruction['keys']) => {
      const wallet = Keypair.generate().publicKey.toBase58();
      const outputMint = pool.mintA === MINTS.SOL ? pool.mintB : pool.mintA;
      const route = evaluatePath({ pools: [pool], mints: [MINTS.SOL, outputMint] }, 'ExactIn', 10n ** 7n);
      const built = buildSwap({ route, userWallet: wallet, slippageBps: 50, fee: null, computeUnitPriceMicroLamports: 0n }, p);
      const instructions = built.instructions.map((ix) =>
        ix.programId.toBase58() === pool.programId ? new TransactionInstruction({ programId: ix.programId, keys: edit(ix.keys), data: ix.data }) : ix,
      );
      const chain = new SimChain();
      chain.fund(p, wallet, null, 10n ** 10n);
      const { blockhash } = chain.blockhashAt(p.slot);
      return chain.execute(p, VersionedTransaction.deserialize(compileTransaction(wallet, instructions, blockhash, []).bytes), p.slot);
    };
    const stranger = Keypair.generate().publicKey;
    for (const [pool, tail, missing, unauthorized] of [
      [curve, 2, '0x17ae (BuybackFeeRecipientMissing', '0x17a9 (BuybackFeeRecipientNotAuthorized'],
      [amm, 3, '0x17aa (BuybackFeeRecipientMissing', '0x17a5 (BuybackFeeRecipientNotAuthorized'],
    ] as const) {
      const ok = run(pool, (k) => k);
      expect({ label: pool.label, error: ok.error }).toEqual({ label: pool.label, error: '' });
      // the IDL's accounts only: refused
      expect(run(pool, (k) => k.slice(0, -tail)).error).toContain(missing);
      // a buyback fee recipient the global account does not list: refused
      const buybackAt = pool instanceof PumpFunCurve ? 1 : 2;
      expect(run(pool, (k) => k.map((m, i) => (i === k.length - buybackAt ? { ...m, pubkey: stranger } : m))).error).toContain(unauthorized);
      // bonding-curve-v2 / pool-v2 swapped for another address: refused
      expect(run(pool, (k) => k.map((m, i) => (i === k.length - tail ? { ...m, pubkey: stranger } : m))).error).toContain('0x7d6 (ConstraintSeeds');
    }
  });
});
