/**
 * Differential test: our Raydium CLMM quotes (libs/amm/src/programs/raydium-clmm: ClmmPool over
 * swap.ts / math.ts / tick-array.ts) against the swap simulation of the official SDK
 * (`@raydium-io/raydium-sdk-v2` 0.2.73-alpha, raydium/clmm/libraries/swapSimulator `swapInternal`:
 * the pure swap loop under PoolUtils.getOutputAmountAndRemainAccounts /
 * getInputAmountAndRemainAccounts, with compute_swap, the fee on the input or on the output
 * (pool feeOn), the protocol / fund / LP split, limit orders matched on a tick, and dynamic fees).
 *
 * Random pools built with buildSyntheticClmm: tick spacing, sqrt price, trade / protocol / fund
 * fee rates, feeOn, positions spread over several tick arrays on both sides of the price (some
 * pools beyond the pool bitmap's range, i.e. through the bitmap extension), optional limit orders
 * and an optional dynamic fee with a block time; both directions, ExactIn and ExactOut; amounts
 * spread over magnitudes or sized to what the loaded tick arrays can fill.
 *
 * Both sides read the same accounts: the synthetic PoolState, AmmConfig and TickArrayStates are
 * encoded to their real byte layouts with our encoders and decoded with the SDK's own layouts
 * (PoolInfoLayout, ClmmConfigLayout, TickArrayLayout). The SDK is given the tick arrays as
 * PoolUtils gives them (every loaded array on the swap's side of the current array, in swap
 * order), we give ours the same loaded set (plus the bitmap extension, which the program reads
 * to find the next array).
 *
 * Equal to the last unit: amount in, amount out and the total trade fee (LP + protocol + fund),
 * or both refuse. Documented differences (the SDK is not the program; checked against the CLMM
 * program source, instructions/swap.rs):
 *  - A trade fee charged while the in-range liquidity is zero (a limit order filled on a tick
 *    where no position is active): the program books it as protocol fee (SwapState::spilt_fees,
 *    `else { protocol_fee += remaining_fee }`); the SDK's splitFee drops it, so its feeAmount is
 *    lower by that part. Amounts are unaffected. We assert: equal amounts, SDK fee <= ours, and
 *    equality whenever no limit order was filled.
 *  - A swap that runs out of initialized tick arrays: the program fails (LiquidityInsufficient,
 *    or NotEnoughTickArrayAccount when the next array is not passed); the SDK reports a partial
 *    fill (allTrade false). We refuse (insufficient-liquidity / not-quotable). Both refuse.
 *  - A swap that moves one side by zero (a tiny input paying nothing out): the program fails
 *    (TooSmallInputOrOutputAmount); the SDK quotes 0. We refuse (zero-output).
 *  - A swap that reaches the default price limit (MIN + 1 / MAX - 1, no limit given) unfilled: the
 *    program refuses the partial fill (`require_eq!(amount_specified, ...)` when
 *    sqrt_price_limit_x64 == 0); the SDK's loop stops at the limit and reports allTrade with the
 *    partial amount. We refuse (insufficient-liquidity); asserted via the SDK's end price.
 *  - An amount beyond u64 (amount_calculated overflowing): the program fails (CalculateOverflow);
 *    the SDK computes in big numbers and returns it. We refuse; asserted as SDK amount > u64.
 *  - The last unit of an exact input that is all fee on a limit-order tick (fill of 0 in, 1 fee):
 *    the program applies it (the fill is applied when any of in / out / fee is non-zero) and the
 *    swap ends; the SDK applies a fill only when its amountIn > 0, so the unit stays unspent, the
 *    tick keeps its orders and the SDK comes back to it forever. To keep that from hanging the
 *    suite, the SDK's swap loop is loaded with one added line (an iteration guard at 200_000 inner
 *    steps, the same bound as our own loop guard, far beyond a transaction's compute budget); the
 *    math is untouched. Asserted: the SDK trips the guard exactly there.
 *  - Our loop guard itself (a swap of more than 200_000 steps, e.g. a dynamic-fee walk over that
 *    many tick-spacing groups: the program would run out of compute units): we refuse
 *    (not-quotable); the SDK may finish.
 * Not compared here: Token-2022 transfer fees (swapInternal has none; the shared transfer-fee
 * layer is compared against Orca's core in the Whirlpool differential) and the split of the fee
 * into protocol / fund / LP (swapInternal returns only the total).
 * This spec is the only kind of place that imports the SDK: a devDependency, never product code.
 */
import * as fs from 'node:fs';
import Module, { createRequire } from 'node:module';
import * as path from 'node:path';
import fc from 'fast-check';
import type { swapInternal as SwapInternal } from '@raydium-io/raydium-sdk-v2/lib/raydium/clmm/libraries/swapSimulator';
import type * as ClmmLayouts from '@raydium-io/raydium-sdk-v2/lib/raydium/clmm/layout';
import { PoolQuoteError } from '@app/amm';
import { ClmmPool, clmmTickArrayStartIndexes } from '@app/amm';
import { getSqrtPriceAtTick, CLMM_MAX_SQRT_PRICE_X64 as MAX_SQRT_PRICE_X64, MAX_TICK, CLMM_MIN_SQRT_PRICE_X64 as MIN_SQRT_PRICE_X64, MIN_TICK } from '@app/amm';
import type { ClmmSwapResult } from '@app/amm';
import { buildSyntheticClmm, type SyntheticClmm, type SyntheticClmmSpec } from '@app/amm/programs/raydium-clmm/synthetic';
import { getArrayStartIndex, tickCount } from '@app/amm';
import {
  encodeClmmAmmConfig,
  encodeClmmPoolState,
  encodeClmmTickArrayBitmapExtension,
  encodeClmmTickArrayState,
  type ClmmDynamicFeeInfo,
} from '@app/solana';

/**
 * The SDK, loaded with Node's own loader (its modules, bn.js and web3.js included, one consistent
 * set), and with one addition to its swap loop: an iteration guard. The SDK's loop can fail to
 * terminate where the program ends (see the header: a last unit that is all fee on a limit-order
 * tick); the guard makes it throw SDK_ITERATION_GUARD after 200_000 inner steps (our own loop
 * guard; far beyond what the program can do within a transaction's compute budget). Nothing else
 * is changed; the anchor must be found exactly once, or the spec fails loudly.
 */
const guard = { n: 0 };
const GUARD_LIMIT = 200_000;
const sdkRequire = createRequire(require.resolve('@raydium-io/raydium-sdk-v2/package.json'));
function loadGuardedSwapInternal(): typeof SwapInternal {
  const file = sdkRequire.resolve('@raydium-io/raydium-sdk-v2/lib/raydium/clmm/libraries/swapSimulator');
  const src = fs.readFileSync(file, 'utf8');
  const anchor = /do\{(\w+)\.updateVolatilityAccumulator\(\{state:(\w+)\}\);/g;
  const hits = src.match(anchor);
  if (!hits || hits.length !== 1) throw new Error(`swapSimulator.js: the swap loop anchor was found ${hits?.length ?? 0} times (SDK changed?)`);
  const patched = src.replace(anchor, (m) => `${m.slice(0, 3)}if(++module.__guard.n>${GUARD_LIMIT})throw new Error("SDK_ITERATION_GUARD");${m.slice(3)}`);
  const m = new Module(file) as Module & { _compile(code: string, filename: string): void; paths: string[]; __guard: typeof guard };
  m.__guard = guard;
  m.filename = file;
  m.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(path.dirname(file));
  m._compile(patched, file);
  return (m.exports as { swapInternal: typeof SwapInternal }).swapInternal;
}
const swapInternal = loadGuardedSwapInternal();
const { ClmmConfigLayout, PoolInfoLayout, TickArrayBitmapExtensionLayout, TickArrayLayout } = sdkRequire('@raydium-io/raydium-sdk-v2/lib/raydium/clmm/layout') as typeof ClmmLayouts;
const { PublicKey } = sdkRequire('@solana/web3.js') as typeof import('@solana/web3.js');
// the SDK's own bn.js (no types here)
const BN: new (v: string) => { toString(): string } = sdkRequire('bn.js');
const bn = (v: bigint) => new BN(v.toString());
const big = (v: { toString(): string }) => BigInt(v.toString());

const RUNS = Number(process.env.DIFF_RUNS ?? 200);
const POOL = 'AcPS8SrzXDwPxk6LLz2tykwFEsSeD5LtctMLVeh2shq8';
const M0 = 'So11111111111111111111111111111111111111112';
const M1 = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const CFG = '9iFER3bpjf1PTTCQCfTRu17EJgvsxo9pVyA9QWwEuX4x';
const PROGRAM = new PublicKey('CAMMCzo5YL8w4VFF8KVHrK22GGUsp5VTaW7grrKgrWqK');
const POOL_KEY = new PublicKey(POOL);
const SPACINGS = [1, 2, 5, 10, 60, 120];
const NOW = 1_750_000_000;
const U64_MAX = (1n << 64n) - 1n;

function logBig(lo: number, hi: number): fc.Arbitrary<bigint> {
  return fc.integer({ min: lo, max: hi }).chain((bits) => fc.bigInt({ min: 1n, max: (1n << BigInt(bits)) - 1n }));
}

interface Case {
  pool: SyntheticClmm;
  /** block time (dynamic-fee pools) */
  now: number;
  hasOrders: boolean;
}

const dynamicArb: fc.Arbitrary<(tickSpacingIndex: number) => ClmmDynamicFeeInfo> = fc
  .record({
    filterPeriod: fc.integer({ min: 1, max: 120 }),
    decayExtra: fc.integer({ min: 1, max: 1200 }),
    reductionFactor: fc.integer({ min: 0, max: 10_000 }),
    dynamicFeeControl: fc.integer({ min: 0, max: 200_000 }),
    maxVolatilityAccumulator: fc.integer({ min: 0, max: 350_000 }),
    refShift: fc.integer({ min: -40, max: 40 }),
    volatilityReference: fc.integer({ min: 0, max: 350_000 }),
    volatilityAccumulator: fc.integer({ min: 0, max: 350_000 }),
    age: fc.integer({ min: 0, max: 3000 }),
  })
  .map((d) => (tickSpacingIndex: number) => ({
    filterPeriod: d.filterPeriod,
    decayPeriod: d.filterPeriod + d.decayExtra,
    reductionFactor: d.reductionFactor,
    dynamicFeeControl: d.dynamicFeeControl,
    maxVolatilityAccumulator: d.maxVolatilityAccumulator,
    tickSpacingIndexReference: tickSpacingIndex + d.refShift,
    volatilityReference: Math.min(d.volatilityReference, d.maxVolatilityAccumulator),
    volatilityAccumulator: Math.min(d.volatilityAccumulator, d.maxVolatilityAccumulator),
    // lastUpdateTimestamp = NOW - age
    lastUpdateTimestamp: BigInt(NOW - d.age),
  }));

/** random pool: positions over up to ±4 tick arrays around the price, optional limit orders and dynamic fee */
function caseArb(opts: { orders: boolean; dynamic: boolean; wide?: boolean }): fc.Arbitrary<Case> {
  return fc
    .record({
      spacing: fc.constantFrom(...SPACINGS),
      tickFrac: fc.integer({ min: -1_000_000, max: 1_000_000 }),
      priceFrac: fc.bigInt({ min: 0n, max: (1n << 32n) - 1n }),
      tradeFeeRate: fc.oneof(fc.constantFrom(100, 500, 2500, 10_000), fc.integer({ min: 0, max: 99_999 })),
      protocolFeeRate: fc.oneof(fc.constantFrom(120_000, 0), fc.integer({ min: 0, max: 500_000 })),
      fundFeeRate: fc.oneof(fc.constantFrom(40_000, 0), fc.integer({ min: 0, max: 400_000 })),
      feeOn: fc.constantFrom(0, 0, 1, 2),
      positions: fc.array(
        fc.record({ lo: fc.integer({ min: -240, max: 240 }), w: fc.integer({ min: 1, max: 240 }), liq: logBig(1, 80) }),
        { minLength: 1, maxLength: 30, size: 'medium' },
      ),
      fullRange: fc.option(logBig(10, 72), { nil: undefined, freq: 3 }),
      orders: opts.orders
        ? fc.array(fc.record({ at: fc.integer({ min: -240, max: 240 }), amount: logBig(1, 50), part: fc.option(logBig(1, 40), { nil: undefined }) }), { minLength: 1, maxLength: 6 })
        : fc.constant([] as { at: number; amount: bigint; part?: bigint }[]),
      dynamic: opts.dynamic ? dynamicArb : fc.constant(null),
    })
    .map((r) => {
      const ts = r.spacing;
      // current tick: anywhere in range (a wide spread for small spacings goes through the extension)
      const span = opts.wide ? 400_000 : 60_000 * Math.min(ts, 5);
      const tick = Math.max(MIN_TICK + 300 * ts, Math.min(MAX_TICK - 300 * ts, Math.round((r.tickFrac / 1_000_000) * span)));
      const lowerP = getSqrtPriceAtTick(tick);
      const upperP = getSqrtPriceAtTick(tick + 1);
      let sqrtPriceX64 = lowerP + ((upperP - lowerP) * r.priceFrac) / (1n << 32n);
      if (sqrtPriceX64 >= upperP) sqrtPriceX64 = upperP - 1n;
      const base = Math.floor(tick / ts) * ts;
      const minUsable = Math.ceil(MIN_TICK / ts) * ts;
      const maxUsable = Math.floor(MAX_TICK / ts) * ts;
      const clamp = (t: number) => Math.max(minUsable, Math.min(maxUsable, t));
      const positions = [];
      for (const p of r.positions) {
        const lo = clamp(base + p.lo * ts);
        const hi = clamp(lo + p.w * ts);
        if (lo < hi) positions.push({ tickLower: lo, tickUpper: hi, liquidity: p.liq });
      }
      if (r.fullRange !== undefined) positions.push({ tickLower: minUsable, tickUpper: maxUsable, liquidity: r.fullRange });
      // limit orders on ticks away from the current price (a tick at the price would be matched at once)
      const limitOrders = r.orders
        .map((o) => ({ tick: clamp(base + (o.at >= 0 ? o.at + 2 : o.at - 1) * ts), ordersAmount: o.amount, partFilledOrdersRemaining: o.part }))
        .filter((o) => o.tick !== base && o.tick !== base + ts);
      const spec: SyntheticClmmSpec = {
        address: POOL,
        mint0: M0,
        mint1: M1,
        ammConfig: CFG,
        tickSpacing: ts,
        sqrtPriceX64,
        positions,
        limitOrders,
        tradeFeeRate: r.tradeFeeRate,
        protocolFeeRate: Math.min(r.protocolFeeRate, 1_000_000 - r.fundFeeRate),
        fundFeeRate: r.fundFeeRate,
        feeOn: r.feeOn,
        dynamicFeeInfo: r.dynamic ? r.dynamic(Math.floor(tick / ts)) : undefined,
      };
      const c: Case = { pool: buildSyntheticClmm(spec), now: NOW, hasOrders: limitOrders.length > 0 };
      // a counterexample prints as its spec, not as 60-tick arrays
      Object.defineProperty(c, fc.toStringMethod, { value: () => `Case(${JSON.stringify(spec, big2s)})` });
      return c;
    });
}

function ours(c: Case, loaded?: number[]): ClmmPool {
  return new ClmmPool({
    address: POOL,
    state: c.pool.state,
    config: c.pool.config,
    extension: c.pool.extension,
    tickArrays: loaded ? c.pool.tickArrays.filter((a) => loaded.includes(a.startTickIndex)) : c.pool.tickArrays,
    slot: 1,
    unixTimestamp: c.now,
  });
}

/** the SDK's view of the same accounts: our encoders' bytes through the SDK's layouts */
interface SdkAccounts {
  poolInfo: Buffer;
  config: Buffer;
  extension: Buffer;
  arrays: { start: number; data: Buffer }[];
}
const encoded = new WeakMap<Case, SdkAccounts>();
function sdkAccounts(c: Case): SdkAccounts {
  let a = encoded.get(c);
  if (!a) {
    a = {
      poolInfo: encodeClmmPoolState(c.pool.state),
      config: encodeClmmAmmConfig(c.pool.config),
      extension: encodeClmmTickArrayBitmapExtension(c.pool.extension),
      arrays: c.pool.tickArrays.map((t) => ({ start: t.startTickIndex, data: encodeClmmTickArrayState(t) })),
    };
    encoded.set(c, a);
  }
  return a;
}

interface SdkResult {
  allTrade: boolean;
  amountCalculated: bigint;
  feeAmount: bigint;
  sqrtPriceX64: bigint;
}

function sdkSwap(c: Case, zeroForOne: boolean, isBaseInput: boolean, amount: bigint, loaded?: number[]): SdkResult {
  const acc = sdkAccounts(c);
  // decoded afresh for each swap: the SDK mutates the dynamic fee info and the ticks' limit orders
  const poolInfo = PoolInfoLayout.decode(acc.poolInfo);
  const current = getArrayStartIndex(c.pool.state.tickCurrent, c.pool.state.tickSpacing);
  const arrays = acc.arrays
    .filter((a) => (loaded ? loaded.includes(a.start) : true))
    .filter((a) => (zeroForOne ? a.start <= current : a.start >= current))
    .sort((x, y) => (zeroForOne ? y.start - x.start : x.start - y.start))
    .map((a) => ({ address: PublicKey.default, value: TickArrayLayout.decode(a.data) }));
  guard.n = 0;
  const r = swapInternal({
    programId: PROGRAM,
    poolId: POOL_KEY,
    poolInfo,
    tickArrays: arrays,
    configInfo: ClmmConfigLayout.decode(acc.config),
    tickarrayBitmapExtension: TickArrayBitmapExtensionLayout.decode(acc.extension),
    amountSpecified: bn(amount) as never,
    sqrtPriceLimitX64: bn(0n) as never,
    zeroForOne,
    isBaseInput,
    blockTimestamp: c.now,
    includeExtraTickArrays: false,
  });
  return { allTrade: r.allTrade, amountCalculated: big(r.amountCalculated), feeAmount: big(r.feeAmount), sqrtPriceX64: big(r.sqrtPriceX64) };
}

type Outcome<T> = { ok: true; v: T } | { ok: false; e: unknown };
function attempt<T>(f: () => T): Outcome<T> {
  try {
    return { ok: true, v: f() };
  } catch (e) {
    return { ok: false, e };
  }
}

const stats = { compared: 0, crossing: 0, orderFills: 0, feeBelow: 0, bothRefuse: 0, zeroOut: 0, extension: 0, priceLimit: 0, u64: 0, sdkLoops: 0, loopGuard: 0 };
function resetStats(): void {
  for (const k of Object.keys(stats) as (keyof typeof stats)[]) stats[k] = 0;
}

function big2s(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? v.toString() : v;
}

const isGuard = (e: unknown) => e instanceof Error && e.message === 'SDK_ITERATION_GUARD';

/** the swap ended exactly at the price of a tick holding limit orders */
function endsOnOrderTick(c: Case, r: ClmmSwapResult): boolean {
  return c.pool.tickArrays.some((a) =>
    a.ticks.some((t) => (t.ordersAmount > 0n || t.partFilledOrdersRemaining > 0n) && getSqrtPriceAtTick(t.tick) === r.sqrtPriceX64),
  );
}

/** one hop both ways; throws on any undocumented disagreement */
function check(c: Case, zeroForOne: boolean, exactIn: boolean, amount: bigint, loaded?: number[]): void {
  const pool = ours(c, loaded);
  const input = zeroForOne ? M0 : M1;
  const mine: Outcome<ClmmSwapResult> = attempt(() => pool.swap(input, exactIn ? 'ExactIn' : 'ExactOut', amount));
  const sdk: Outcome<SdkResult> = attempt(() => sdkSwap(c, zeroForOne, exactIn, amount, loaded));
  const ctx = () =>
    `zeroForOne=${zeroForOne} exactIn=${exactIn} amount=${amount} ours=${mine.ok ? JSON.stringify({ in: mine.v.amountIn, out: mine.v.amountOut, fee: mine.v.tradeFee }, big2s) : String(mine.e)} sdk=${
      sdk.ok ? JSON.stringify(sdk.v, big2s) : String(sdk.e)
    }`;
  if (mine.ok) {
    if (!sdk.ok && isGuard(sdk.e) && exactIn && mine.v.feeOnInput && endsOnOrderTick(c, mine.v)) {
      // documented: the last unit is all fee on a limit-order tick; the program books it and
      // ends, the SDK applies a fill only when its amountIn > 0 and comes back to the tick forever
      stats.sdkLoops++;
      return;
    }
    if (!sdk.ok) throw new Error(`we quote what the SDK cannot: ${ctx()}`);
    if (!sdk.v.allTrade) throw new Error(`we fill what the SDK fills only partly: ${ctx()}`);
    const r = mine.v;
    if (exactIn) {
      if (r.amountIn !== amount) throw new Error(`amountIn differs: ${ctx()}`);
      if (r.amountOut !== sdk.v.amountCalculated) throw new Error(`amountOut differs: ${ctx()}`);
    } else {
      if (r.amountOut !== amount) throw new Error(`amountOut differs: ${ctx()}`);
      if (r.amountIn !== sdk.v.amountCalculated) throw new Error(`amountIn differs: ${ctx()}`);
    }
    if (r.limitOrderAmountIn === 0n && r.limitOrderAmountOut === 0n) {
      if (r.tradeFee !== sdk.v.feeAmount) throw new Error(`fee differs: ${ctx()}`);
    } else {
      // documented: a fee charged at zero in-range liquidity is protocol fee on chain, dropped by the SDK
      if (sdk.v.feeAmount > r.tradeFee) throw new Error(`SDK fee above ours: ${ctx()}`);
      if (sdk.v.feeAmount < r.tradeFee) stats.feeBelow++;
      stats.orderFills++;
    }
    stats.compared++;
    if (r.ticksCrossed > 0) stats.crossing++;
    if (r.tickArraysUsed.some((s) => s < -tickCount(c.pool.state.tickSpacing) * 512 || s >= tickCount(c.pool.state.tickSpacing) * 512)) stats.extension++;
    return;
  }
  if (!(mine.e instanceof PoolQuoteError)) throw new Error(`our quote crashed: ${ctx()}`);
  if (mine.e.reason === 'zero-output') {
    // documented: the program refuses a swap that moves one side by zero; the SDK quotes 0
    if (sdk.ok && sdk.v.allTrade && exactIn && sdk.v.amountCalculated !== 0n) throw new Error(`zero-output disagreement: ${ctx()}`);
    // (an input that is all fee on a limit-order tick: the SDK does not terminate, as above)
    if (!sdk.ok && isGuard(sdk.e)) stats.sdkLoops++;
    stats.zeroOut++;
    return;
  }
  if (/LoopGuard/.test(mine.e.message)) {
    // our loop guard (200_000 steps, far beyond a transaction's compute budget): the SDK may still finish
    stats.loopGuard++;
    return;
  }
  // we refuse (out of tick arrays, a needed array not loaded, a program failure): so must the SDK,
  // except (documented) at the default price limit, where the SDK's loop stops and calls it filled
  if (sdk.ok && sdk.v.allTrade) {
    const limit = zeroForOne ? MIN_SQRT_PRICE_X64 + 1n : MAX_SQRT_PRICE_X64 - 1n;
    if (mine.e.reason === 'insufficient-liquidity' && sdk.v.sqrtPriceX64 === limit) {
      stats.priceLimit++;
      return;
    }
    // documented: the program keeps amounts in u64 (checked_add fails with CalculateOverflow); the SDK does not
    if (/CalculateOverflow/.test(mine.e.message) && sdk.v.amountCalculated > U64_MAX) {
      stats.u64++;
      return;
    }
    throw new Error(`the SDK fills what we refuse: ${ctx()}`);
  }
  stats.bothRefuse++;
}

/** an amount: spread over magnitudes, or a share (0..120%) of what the loaded arrays can fill (float guide) */
type AmountPick = { log: bigint } | { permille: number };
const amountPick: fc.Arbitrary<AmountPick> = fc.oneof(
  logBig(1, 63).map((log) => ({ log })),
  fc.integer({ min: 1, max: 1200 }).map((permille) => ({ permille })),
  fc.integer({ min: 1, max: 1200 }).map((permille) => ({ permille })),
);

function amountFor(c: Case, zeroForOne: boolean, exactIn: boolean, pick: AmountPick): bigint {
  if ('log' in pick) return pick.log;
  const pool = ours(c);
  const input = zeroForOne ? M0 : M1;
  const depth = pool.reserve(zeroForOne ? M1 : M0);
  const wantOut = (depth * pick.permille) / 1000;
  const x = exactIn ? pool.approxIn(input, wantOut) : wantOut;
  if (!Number.isFinite(x) || !(x >= 1)) return 1_000_000n;
  const v = BigInt(Math.floor(Math.min(x, 2 ** 63)));
  return v < 1n ? 1n : v;
}

const direction = fc.boolean();
const mode = fc.boolean();

describe('Raydium CLMM vs @raydium-io/raydium-sdk-v2 swapInternal', () => {
  beforeEach(resetStats);
  afterEach(() => {
    // eslint-disable-next-line no-console
    if (process.env.DIFF_VERBOSE) console.log(expect.getState().currentTestName, JSON.stringify(stats));
  });

  it('static-fee pools (fee from input or one token): ExactIn and ExactOut, both directions, equal to the last unit', () => {
    fc.assert(
      fc.property(caseArb({ orders: false, dynamic: false }), direction, mode, amountPick, (c, zeroForOne, exactIn, pick) => {
        check(c, zeroForOne, exactIn, amountFor(c, zeroForOne, exactIn, pick));
      }),
      { numRuns: RUNS * 2, seed: Number(process.env.DIFF_SEED ?? 4242) },
    );
    expect(stats.compared).toBeGreaterThan(RUNS / 2);
    expect(stats.crossing).toBeGreaterThan(RUNS / 5);
    expect(stats.bothRefuse).toBeGreaterThan(0);
  });

  it('price anywhere in the tick range (small spacings reach the bitmap extension)', () => {
    fc.assert(
      fc.property(caseArb({ orders: false, dynamic: false, wide: true }), direction, mode, amountPick, (c, zeroForOne, exactIn, pick) => {
        check(c, zeroForOne, exactIn, amountFor(c, zeroForOne, exactIn, pick));
      }),
      { numRuns: RUNS, seed: 43 },
    );
    expect(stats.compared).toBeGreaterThan(RUNS / 4);
    expect(stats.extension).toBeGreaterThan(0);
  });

  it('dynamic-fee pools at a block time: equal to the last unit', () => {
    fc.assert(
      fc.property(caseArb({ orders: false, dynamic: true }), direction, mode, amountPick, (c, zeroForOne, exactIn, pick) => {
        check(c, zeroForOne, exactIn, amountFor(c, zeroForOne, exactIn, pick));
      }),
      { numRuns: RUNS, seed: 44 },
    );
    expect(stats.compared).toBeGreaterThan(RUNS / 4);
    expect(stats.crossing).toBeGreaterThan(0);
  });

  it('limit orders on ticks: amounts equal; the fee equal or (documented) above the SDK by the part booked at zero liquidity', () => {
    fc.assert(
      fc.property(caseArb({ orders: true, dynamic: false }), direction, mode, amountPick, (c, zeroForOne, exactIn, pick) => {
        check(c, zeroForOne, exactIn, amountFor(c, zeroForOne, exactIn, pick));
      }),
      { numRuns: RUNS, seed: 45 },
    );
    expect(stats.compared).toBeGreaterThan(RUNS / 4);
    expect(stats.orderFills).toBeGreaterThan(0);
  });

  it('limit orders with a dynamic fee', () => {
    fc.assert(
      fc.property(caseArb({ orders: true, dynamic: true }), direction, mode, amountPick, (c, zeroForOne, exactIn, pick) => {
        check(c, zeroForOne, exactIn, amountFor(c, zeroForOne, exactIn, pick));
      }),
      { numRuns: RUNS / 2, seed: 46 },
    );
    expect(stats.compared).toBeGreaterThan(RUNS / 10);
  });

  it('only the arrays around the price loaded (as the router loads them): equal where both fill, both refuse past the last loaded array', () => {
    fc.assert(
      fc.property(caseArb({ orders: false, dynamic: false }), fc.integer({ min: 1, max: 3 }), direction, mode, amountPick, (c, perSide, zeroForOne, exactIn, pick) => {
        const loaded = clmmTickArrayStartIndexes(c.pool.state, c.pool.extension, perSide);
        check(c, zeroForOne, exactIn, amountFor(c, zeroForOne, exactIn, pick), loaded);
      }),
      { numRuns: RUNS, seed: 47 },
    );
    expect(stats.compared).toBeGreaterThan(RUNS / 4);
    expect(stats.bothRefuse).toBeGreaterThan(0);
  });

  describe('documented differences, on purpose', () => {
    it('a limit order filled where no position is in range: the SDK drops the fee the program books as protocol fee', () => {
      const pool = buildSyntheticClmm({
        address: POOL,
        mint0: M0,
        mint1: M1,
        ammConfig: CFG,
        tickSpacing: 10,
        tickCurrent: 0,
        positions: [{ tickLower: -600, tickUpper: -300, liquidity: 1_000_000_000n }],
        limitOrders: [{ tick: 100, ordersAmount: 1_000_000n }],
        tradeFeeRate: 3000,
      });
      const c: Case = { pool, now: NOW, hasOrders: true };
      const r = ours(c).swap(M1, 'ExactIn', 100_000n);
      const s = sdkSwap(c, false, true, 100_000n);
      expect(s.allTrade).toBe(true);
      expect(r.amountOut).toBe(s.amountCalculated);
      expect(r.limitOrderAmountOut).toBe(r.amountOut);
      // fee: ceil(100_000 * 3000 / 1e6) = 300, all of it protocol (+ fund) fee on chain
      expect(r.tradeFee).toBe(300n);
      expect(r.lpFee).toBe(0n);
      expect(r.protocolFee + r.fundFee).toBe(300n);
      // the SDK keeps only the protocol (300 * 12% = 36) and fund (300 * 4% = 12) shares
      expect(s.feeAmount).toBe(48n);
    });

    it('a swap past the last initialized tick array: the program fails, the SDK fills partly; we refuse', () => {
      const pool = buildSyntheticClmm({
        address: POOL,
        mint0: M0,
        mint1: M1,
        ammConfig: CFG,
        tickSpacing: 10,
        tickCurrent: 0,
        positions: [{ tickLower: -600, tickUpper: 600, liquidity: 1_000_000_000n }],
      });
      const c: Case = { pool, now: NOW, hasOrders: false };
      const s = sdkSwap(c, true, true, 10n ** 15n);
      expect(s.allTrade).toBe(false);
      expect(s.amountCalculated).toBeGreaterThan(0n);
      expect(() => ours(c).swap(M0, 'ExactIn', 10n ** 15n)).toThrow(expect.objectContaining({ reason: 'insufficient-liquidity' }));
    });

    it('a last unit that is all fee on a limit-order tick: the program books it and ends; the SDK never terminates', () => {
      const pool = buildSyntheticClmm({
        address: POOL,
        mint0: M0,
        mint1: M1,
        ammConfig: CFG,
        tickSpacing: 10,
        tickCurrent: 0,
        positions: [{ tickLower: -600, tickUpper: -300, liquidity: 1_000_000_000n }],
        limitOrders: [{ tick: 100, ordersAmount: 1_000_000n }],
        tradeFeeRate: 3000,
      });
      const c: Case = { pool, now: NOW, hasOrders: true };
      // 1 unit in reaches the order tick (no liquidity on the way); its fill is 0 in + 1 fee: the
      // program applies the fee (amounts 0 / fee 1 are not all zero) and the swap is done (then
      // refused as TooSmallInputOrOutputAmount: nothing comes out). The SDK applies a fill only
      // when its amountIn > 0, leaves the unit unspent and comes back to the same tick forever.
      expect(() => ours(c).swap(M1, 'ExactIn', 1n)).toThrow(expect.objectContaining({ reason: 'zero-output' }));
      expect(() => sdkSwap(c, false, true, 1n)).toThrow('SDK_ITERATION_GUARD');
      expect(guard.n).toBeGreaterThan(GUARD_LIMIT);
    });

    it('an input too small to move anything out: the SDK quotes 0, we refuse with zero-output', () => {
      const pool = buildSyntheticClmm({
        address: POOL,
        mint0: M0,
        mint1: M1,
        ammConfig: CFG,
        tickSpacing: 10,
        tickCurrent: 0,
        positions: [{ tickLower: -600, tickUpper: 600, liquidity: 1_000_000_000n }],
      });
      const c: Case = { pool, now: NOW, hasOrders: false };
      const s = sdkSwap(c, true, true, 1n);
      expect(s).toMatchObject({ allTrade: true, amountCalculated: 0n });
      expect(() => ours(c).swap(M0, 'ExactIn', 1n)).toThrow(expect.objectContaining({ reason: 'zero-output' }));
    });
  });
});
