/**
 * SimChain, the executor behind CHAIN_GATEWAY=sim, over a projection of a simulated market of all
 * six programs:
 * - blockhash validity: a transaction executes until its lastValidBlockHeight and fails with
 *   `BlockhashExpired` (API.md §3 and §7) after it; a blockhash the chain never issued is
 *   `BlockhashNotFound`;
 * - the account lock limit: a message of more than 64 account keys (static or from lookup tables,
 *   read-only ones included) is refused with `TooManyAccountLocks` before it runs; 64 execute;
 * - a swap whose bound fails reports the error the program itself raises for that bound (its IDL:
 *   the minimum output of an exact-input swap vs the maximum input of an exact-output swap, and
 *   for pump.fun / PumpSwap which instruction carried it), as `custom program error: 0x<code>
 *   (<name>: ...)`, flagged slippageExceeded, with a code the rpc gateway also reads as slippage.
 */
import { AddressLookupTableAccount, Keypair, PublicKey, TransactionMessage, VersionedTransaction, TransactionInstruction } from '@solana/web3.js';
import { SimMarket } from '@app/sim';
import { Projection } from '@app/pools';
import { encodePoolUpdate } from '@app/contracts';
import { evaluatePath, type Route, type SwapMode } from '@app/amm';
import type { Pool } from '@app/amm';
import { PumpAmmPool } from '@app/amm';
import { PumpFunCurve } from '@app/amm';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import { buildSwap } from '../swap/swap-builder';
import { lockedAccounts, TRANSACTION_ACCOUNT_LOCK_LIMIT } from '../swap/transaction';
import { encodeAddressLookupTable, LOOKUP_TABLE_ACTIVE } from '@app/solana/address-lookup-table';
import { SLIPPAGE_ERROR_CODES } from './chain-gateway';
import { BLOCKHASH_VALIDITY, SimChain, type SimAccounts, type SimExecution } from './sim-chain';
import { VENUE_WRITERS } from '../swap/venues/venue-writers';

/** the errors the sim chain raises for a failed bound, by program (the venue writers' `slippage`) */
const SLIPPAGE_ERRORS = Object.fromEntries(VENUE_WRITERS.map((w) => [w.programId, w.slippage]));

const market = new SimMarket({ seed: 9, pools: 80, tokens: 20, swapsPerSlot: 4, programs: 'all' });
const projection = new Projection();
let offset = 0;
for (const u of market.genesis()) projection.apply({ partition: 0, offset: offset++, value: encodePoolUpdate(u) });
const pools = projection
  .markets()
  .filter((m) => m.routable)
  .map((m) => projection.pool(m.address))
  .filter((x): x is Pool => x !== undefined);

function poolOf(program: string, pick: (p: Pool) => boolean = () => true): Pool {
  const found = pools.find((p) => p.programId === program && pick(p));
  if (!found) throw new Error(`no pool of ${program} in the sim market`);
  return found;
}

function transaction(chain: SimChain, wallet: string, instructions: TransactionInstruction[], slot = projection.slot): VersionedTransaction {
  const { blockhash } = chain.blockhashAt(slot);
  return new VersionedTransaction(new TransactionMessage({ payerKey: new PublicKey(wallet), recentBlockhash: blockhash, instructions }).compileToV0Message());
}

/** a small amount of a mint: about $1 of a market token, else 10^(decimals − 2) */
function smallAmount(mint: string): bigint {
  const t = market.tokens.find((x) => x.mint === mint);
  if (t && t.priceUsd > 0) {
    const v = BigInt(Math.floor((1 / t.priceUsd) * 10 ** t.decimals));
    if (v > 0n) return v;
  }
  return 10n ** BigInt(Math.max(1, (t?.decimals ?? 6) - 2));
}

/**
 * One swap through `pool` built (slippage 0) for a route the pool can no longer meet: ExactIn asks
 * for 10% more than the pool gives (its minimum output fails), ExactOut allows 10% less input than
 * the pool takes (its maximum input fails). The wallet holds enough of everything.
 */
function slipped(pool: Pool, inputMint: string, mode: SwapMode): SimExecution {
  const outputMint = inputMint === pool.mintA ? pool.mintB : pool.mintA;
  const route = evaluatePath({ pools: [pool], mints: [inputMint, outputMint] }, mode, smallAmount(mode === 'ExactIn' ? inputMint : outputMint));
  const hop = route.hops[0];
  let greedy: Route;
  if (mode === 'ExactIn') {
    const d = route.amountOut / 10n + 1n;
    greedy = { ...route, amountOut: route.amountOut + d, hops: [{ ...hop, amountOut: hop.amountOut + d }] };
  } else {
    const d = route.amountIn / 10n + 1n;
    expect(route.amountIn > d).toBe(true);
    greedy = { ...route, amountIn: route.amountIn - d, hops: [{ ...hop, amountIn: hop.amountIn - d }] };
  }
  const wallet = Keypair.generate().publicKey.toBase58();
  const built = buildSwap({ route: greedy, userWallet: wallet, slippageBps: 0, fee: null, computeUnitPriceMicroLamports: 0n }, projection);
  const chain = new SimChain();
  chain.fund(projection, wallet, null, 10n ** 13n);
  if (inputMint !== MINTS.SOL) chain.fund(projection, wallet, inputMint, route.amountIn * 2n);
  const ex = chain.execute(projection, transaction(chain, wallet, built.instructions), projection.slot);
  return ex;
}

/** a failed bound: flagged slippage (not missing funds), the program's code in hex and its name */
const expectSlippage = (ex: SimExecution, code: number, name: string): void => {
  expect({ success: ex.success, slippageExceeded: ex.slippageExceeded, insufficientFunds: ex.insufficientFunds }).toEqual({
    success: false,
    slippageExceeded: true,
    insufficientFunds: false,
  });
  expect(ex.error).toMatch(new RegExp(`^custom program error: 0x${code.toString(16)} \\(${name}: `));
  expect(ex.logs.at(-1)).toContain(`failed: custom program error: 0x${code.toString(16)} (${name}`);
};

describe('SimChain blockhash validity', () => {
  const cpmm = poolOf(PROGRAM_IDS.raydiumCpmm, (p) => p.mintA !== MINTS.SOL && p.mintB !== MINTS.SOL);

  function funded(chain: SimChain): { wallet: string; instructions: TransactionInstruction[] } {
    const wallet = Keypair.generate().publicKey.toBase58();
    const route = evaluatePath({ pools: [cpmm], mints: [cpmm.mintA, cpmm.mintB] }, 'ExactIn', smallAmount(cpmm.mintA));
    const built = buildSwap({ route, userWallet: wallet, slippageBps: 50, fee: null, computeUnitPriceMicroLamports: 0n }, projection);
    chain.fund(projection, wallet, null, 10n ** 10n);
    chain.fund(projection, wallet, cpmm.mintA, route.amountIn);
    return { wallet, instructions: built.instructions };
  }

  it('valid through lastValidBlockHeight, BlockhashExpired after it', () => {
    const chain = new SimChain();
    const { wallet, instructions } = funded(chain);
    const { lastValidBlockHeight } = chain.blockhashAt(projection.slot);
    expect(lastValidBlockHeight).toBe(projection.slot + BLOCKHASH_VALIDITY);
    const tx = transaction(chain, wallet, instructions);
    expect(chain.execute(projection, tx, lastValidBlockHeight).error).toBe('');
    const ex = chain.execute(projection, tx, lastValidBlockHeight + 1);
    expect(ex).toMatchObject({ success: false, error: 'BlockhashExpired', slippageExceeded: false, insufficientFunds: false, computeUnitsConsumed: 0 });
  });

  it('a blockhash the chain never issued is BlockhashNotFound', () => {
    const chain = new SimChain();
    const { wallet, instructions } = funded(chain);
    const tx = new VersionedTransaction(
      new TransactionMessage({ payerKey: new PublicKey(wallet), recentBlockhash: Keypair.generate().publicKey.toBase58(), instructions }).compileToV0Message(),
    );
    expect(chain.execute(projection, tx, projection.slot).error).toBe('BlockhashNotFound');
  });
});

describe('SimChain account lock limit', () => {
  const cpmm = poolOf(PROGRAM_IDS.raydiumCpmm, (p) => p.mintA !== MINTS.SOL && p.mintB !== MINTS.SOL);
  const extra = Array.from({ length: 80 }, () => Keypair.generate().publicKey);
  const table = Keypair.generate().publicKey;
  const tableAccount = { owner: PROGRAM_IDS.addressLookupTable, data: encodeAddressLookupTable({ deactivationSlot: LOOKUP_TABLE_ACTIVE, lastExtendedSlot: 0n, lastExtendedSlotStartIndex: 0, authority: null, addresses: extra.map((k) => k.toBase58()) }) };
  /** the projection, with one lookup table holding `extra` */
  const accounts: SimAccounts = {
    account: (a) => (a === table.toBase58() ? tableAccount : projection.account(a)),
    pool: (a) => projection.pool(a),
    decimals: (m) => projection.decimals(m),
  };
  const lookup = new AddressLookupTableAccount({ key: table, state: { deactivationSlot: LOOKUP_TABLE_ACTIVE, lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, addresses: extra } });

  /**
   * A funded one-hop swap whose message lists exactly `total` account keys: the compute-budget
   * instruction carries read-only keys of `extra` as padding (the executor reads its data only);
   * with `tables`, the padding is loaded from the lookup table.
   */
  function swapOf(total: number, tables: boolean): { chain: SimChain; tx: VersionedTransaction } {
    const chain = new SimChain();
    const wallet = Keypair.generate().publicKey.toBase58();
    const route = evaluatePath({ pools: [cpmm], mints: [cpmm.mintA, cpmm.mintB] }, 'ExactIn', smallAmount(cpmm.mintA));
    const built = buildSwap({ route, userWallet: wallet, slippageBps: 50, fee: null, computeUnitPriceMicroLamports: 0n }, projection);
    chain.fund(projection, wallet, null, 10n ** 10n);
    chain.fund(projection, wallet, cpmm.mintA, route.amountIn);
    const own = transaction(chain, wallet, built.instructions).message.staticAccountKeys.length;
    expect(total - own).toBeGreaterThanOrEqual(0);
    const [first, ...rest] = built.instructions;
    const padded = new TransactionInstruction({ programId: first.programId, data: first.data, keys: [...first.keys, ...extra.slice(0, total - own).map((pubkey) => ({ pubkey, isSigner: false, isWritable: false }))] });
    const { blockhash } = chain.blockhashAt(projection.slot);
    const message = new TransactionMessage({ payerKey: new PublicKey(wallet), recentBlockhash: blockhash, instructions: [padded, ...rest] }).compileToV0Message(tables ? [lookup] : []);
    const listed = lockedAccounts(message);
    expect(listed).toBe(total);
    if (tables) expect(message.addressTableLookups.length).toBe(1);
    return { chain, tx: new VersionedTransaction(message) };
  }

  it('the limit is the router\'s (64)', () => {
    expect(TRANSACTION_ACCOUNT_LOCK_LIMIT).toBe(64);
  });

  it.each([
    ['static keys', false],
    ['keys loaded from a lookup table (read-only)', true],
  ])('64 account keys execute; 65 are refused with TooManyAccountLocks before anything runs (%s)', (_label, tables) => {
    const ok = swapOf(64, tables as boolean);
    expect(ok.chain.execute(accounts, ok.tx, projection.slot)).toMatchObject({ success: true, error: '' });
    const over = swapOf(65, tables as boolean);
    const ex = over.chain.execute(accounts, over.tx, projection.slot, true);
    expect(ex).toMatchObject({ success: false, error: 'TooManyAccountLocks', slippageExceeded: false, insufficientFunds: false, computeUnitsConsumed: 0, feeLamports: 0n });
  });
});

describe('SimChain slippage: the error the program raises for the bound that failed', () => {
  const sol = (p: Pool): boolean => p.mintA === MINTS.SOL || p.mintB === MINTS.SOL;
  const other = (p: Pool): string => (p.mintA === MINTS.SOL ? p.mintB : p.mintA);
  const curve = poolOf(PROGRAM_IDS.pumpFun) as PumpFunCurve;
  const amm = poolOf(PROGRAM_IDS.pumpSwapAmm) as PumpAmmPool;
  const cases: Array<[label: string, pool: Pool, inputMint: string, mode: SwapMode, code: number, name: string]> = [
    ['Orca Whirlpool ExactIn (minimum output)', poolOf(PROGRAM_IDS.orcaWhirlpool), poolOf(PROGRAM_IDS.orcaWhirlpool).mintA, 'ExactIn', 6036, 'AmountOutBelowMinimum'],
    ['Orca Whirlpool ExactOut (maximum input)', poolOf(PROGRAM_IDS.orcaWhirlpool), poolOf(PROGRAM_IDS.orcaWhirlpool).mintA, 'ExactOut', 6037, 'AmountInAboveMaximum'],
    ['Orca Whirlpool ExactOut, B to A', poolOf(PROGRAM_IDS.orcaWhirlpool), poolOf(PROGRAM_IDS.orcaWhirlpool).mintB, 'ExactOut', 6037, 'AmountInAboveMaximum'],
    ['Raydium CLMM ExactIn (minimum output)', poolOf(PROGRAM_IDS.raydiumClmm), poolOf(PROGRAM_IDS.raydiumClmm).mintA, 'ExactIn', 6022, 'TooLittleOutputReceived'],
    ['Raydium CLMM ExactOut (maximum input)', poolOf(PROGRAM_IDS.raydiumClmm), poolOf(PROGRAM_IDS.raydiumClmm).mintA, 'ExactOut', 6023, 'TooMuchInputPaid'],
    ['Raydium CLMM ExactIn, 1 to 0', poolOf(PROGRAM_IDS.raydiumClmm), poolOf(PROGRAM_IDS.raydiumClmm).mintB, 'ExactIn', 6022, 'TooLittleOutputReceived'],
    ['Raydium CPMM ExactIn (one error for both bounds)', poolOf(PROGRAM_IDS.raydiumCpmm), poolOf(PROGRAM_IDS.raydiumCpmm).mintA, 'ExactIn', 6005, 'ExceededSlippage'],
    ['Raydium CPMM ExactOut', poolOf(PROGRAM_IDS.raydiumCpmm), poolOf(PROGRAM_IDS.raydiumCpmm).mintA, 'ExactOut', 6005, 'ExceededSlippage'],
    ['Raydium AMM v4 ExactIn (one error for both bounds)', poolOf(PROGRAM_IDS.raydiumAmmV4), poolOf(PROGRAM_IDS.raydiumAmmV4).mintA, 'ExactIn', 30, 'ExceededSlippage'],
    ['Raydium AMM v4 ExactOut', poolOf(PROGRAM_IDS.raydiumAmmV4), poolOf(PROGRAM_IDS.raydiumAmmV4).mintA, 'ExactOut', 30, 'ExceededSlippage'],
    ['pump.fun buy (ExactOut: max_sol_cost)', curve, MINTS.SOL, 'ExactOut', 6002, 'TooMuchSolRequired'],
    ['pump.fun sell (min_sol_output)', curve, other(curve), 'ExactIn', 6003, 'TooLittleSolReceived'],
    ['pump.fun buy_exact_sol_in (min_tokens_out)', curve, MINTS.SOL, 'ExactIn', 6042, 'BuySlippageBelowMinTokensOut'],
    ['pump.fun sell of an ExactOut route (a sell checks its minimum output)', curve, other(curve), 'ExactOut', 6003, 'TooLittleSolReceived'],
    ['PumpSwap buy (ExactOut: max_quote_amount_in)', amm, amm.pool.quoteMint, 'ExactOut', 6004, 'ExceededSlippage'],
    ['PumpSwap sell (min_quote_amount_out)', amm, amm.pool.baseMint, 'ExactIn', 6004, 'ExceededSlippage'],
    ['PumpSwap buy_exact_quote_in (min_base_amount_out)', amm, amm.pool.quoteMint, 'ExactIn', 6040, 'BuySlippageBelowMinBaseAmountOut'],
    ['PumpSwap sell of an ExactOut route (a sell checks its minimum output)', amm, amm.pool.baseMint, 'ExactOut', 6004, 'ExceededSlippage'],
  ];

  it('the market has a pool of every program (pump.fun on native SOL)', () => {
    expect(sol(curve)).toBe(true);
    expect(new Set(cases.map(([, p]) => p.programId)).size).toBe(6);
  });

  it.each(cases)('%s', (_label, pool, inputMint, mode, code, name) => {
    const ex = slipped(pool, inputMint, mode);
    expectSlippage(ex, code, name);
    // the bound's own wording follows the code (a pump sell always pays an exact amount and checks its output)
    const pumpSell = (pool === curve && inputMint !== MINTS.SOL) || (pool === amm && inputMint === amm.pool.baseMint);
    expect(ex.error).toMatch(mode === 'ExactIn' || pumpSell ? /: out \d+ < minimum \d+\)$/ : /: in \d+ > maximum \d+\)$/);
    // the rpc gateway classifies the same (program, code) as a slippage failure
    expect(SLIPPAGE_ERROR_CODES.some(([p, c, n]) => p === pool.programId && c === code && n === name)).toBe(true);
  });

  it('every error of the table is one the rpc gateway reads as slippage (chain-gateway SLIPPAGE_ERROR_CODES)', () => {
    expect(Object.keys(SLIPPAGE_ERRORS).sort()).toEqual(
      [PROGRAM_IDS.orcaWhirlpool, PROGRAM_IDS.raydiumClmm, PROGRAM_IDS.raydiumCpmm, PROGRAM_IDS.raydiumAmmV4, PROGRAM_IDS.pumpFun, PROGRAM_IDS.pumpSwapAmm].sort(),
    );
    for (const [program, e] of Object.entries(SLIPPAGE_ERRORS)) {
      for (const [code, name] of [e.minOut, e.maxIn, ...(e.sellMinOut ? [e.sellMinOut] : [])]) {
        expect({ program, code, name, known: SLIPPAGE_ERROR_CODES.some(([p, c, n]) => p === program && c === code && n === name) }).toEqual({ program, code, name, known: true });
      }
    }
  });

  it('a route the pool still meets executes (the bound is only a failure when it fails)', () => {
    for (const [, pool, inputMint, mode] of cases) {
      const outputMint = inputMint === pool.mintA ? pool.mintB : pool.mintA;
      const route = evaluatePath({ pools: [pool], mints: [inputMint, outputMint] }, mode, smallAmount(mode === 'ExactIn' ? inputMint : outputMint));
      const wallet = Keypair.generate().publicKey.toBase58();
      const built = buildSwap({ route, userWallet: wallet, slippageBps: 0, fee: null, computeUnitPriceMicroLamports: 0n }, projection);
      const chain = new SimChain();
      chain.fund(projection, wallet, null, 10n ** 13n);
      if (inputMint !== MINTS.SOL) chain.fund(projection, wallet, inputMint, route.amountIn * 2n);
      const ex = chain.execute(projection, transaction(chain, wallet, built.instructions), projection.slot);
      expect({ program: pool.programId, mode, error: ex.error }).toEqual({ program: pool.programId, mode, error: '' });
    }
  });
});
