/**
 * Differential test: our Raydium AMM v4 math (libs/amm/src/programs/raydium-amm-v4/math.ts)
 * against the official SDK's liquidity math (`@raydium-io/raydium-sdk-v2`,
 * raydium/liquidity/liquidity: `computeAmountOut` / `computeAmountIn` for version 4 pools), on
 * random reserves (vault balances net of the pnl owed, as both take them) and amounts, both
 * directions.
 *
 * Where the SDK is not the program (../shared/DESIGN.md, and the comment in math.ts):
 *  - The SDK hard-codes the fee 25 / 10000; the program (and we) use the pool's own
 *    swapFeeNumerator / swapFeeDenominator. The comparison uses pools at 25 / 10000, the value
 *    nearly every v4 pool carries; other fees are covered by our own specs.
 *  - ExactOut (swap_base_out): the program rounds up twice, beforeFee = ceil(X * out / (Y - out)),
 *    in = ceil(beforeFee * 10000 / 9975); the SDK floors both and can come out 1 or 2 units low
 *    (a max_amount_in at the SDK's figure fails on chain with ExceededSlippage). We assert exactly
 *    that: ours - sdk is 0, 1 or 2, equal to the two rounding carries, and the SDK's figure is
 *    below the program's minimum whenever they differ.
 *  - An output at or above the reserve: the program refuses it (so do we); the SDK prices an output
 *    above the reserve as reserve - 1 and fails (division by zero) at exactly the reserve.
 * ExactIn (swap_base_in) must be equal to the last unit, fee included.
 * This spec is the only kind of place that imports the SDK: a devDependency, never product code.
 */
import fc from 'fast-check';
import LiquidityModule from '@raydium-io/raydium-sdk-v2/lib/raydium/liquidity/liquidity';
import { PoolQuoteError } from '@app/amm';
import { ammV4SwapBaseIn, ammV4SwapBaseOut } from '@app/amm';
import type { AmmV4Fees } from '@app/solana';

// bn.js ships without types here; it is the SDK's own number type
// eslint-disable-next-line @typescript-eslint/no-require-imports
const BN: new (v: string) => { toString(): string } = require('bn.js');
const bn = (v: bigint) => new BN(v.toString());
const big = (v: { toString(): string }) => BigInt(v.toString());

const RUNS = Number(process.env.DIFF_RUNS ?? 3000);
const COIN = 'Coin111111111111111111111111111111111111111';
const PC = 'Pc11111111111111111111111111111111111111111';

// computeAmountOut / computeAmountIn are pure for version 4 pools; they only log through `this`
const sdkThis = {
  logDebug: () => undefined,
  logAndCreateError: (m: string) => {
    throw new Error(m);
  },
};
type Compute = (this: unknown, p: Record<string, unknown>) => { amountOut?: unknown; amountIn?: unknown; fee: unknown };
const proto = (LiquidityModule as unknown as { prototype: { computeAmountOut: Compute; computeAmountIn: Compute } }).prototype;

function poolInfo(coin: bigint, pc: bigint) {
  return { version: 4, mintA: { address: COIN, decimals: 6 }, mintB: { address: PC, decimals: 9 }, baseReserve: bn(coin), quoteReserve: bn(pc) };
}

function sdkOut(coin: bigint, pc: bigint, coinIn: boolean, amountIn: bigint): { amountOut: bigint; fee: bigint } {
  const r = proto.computeAmountOut.call(sdkThis, {
    poolInfo: poolInfo(coin, pc),
    amountIn: bn(amountIn),
    mintIn: coinIn ? COIN : PC,
    mintOut: coinIn ? PC : COIN,
    slippage: 0,
  });
  return { amountOut: big(r.amountOut as object), fee: big(r.fee as object) };
}

function sdkIn(coin: bigint, pc: bigint, coinIn: boolean, amountOut: bigint): { amountIn: bigint; fee: bigint } {
  const r = proto.computeAmountIn.call(sdkThis, {
    poolInfo: poolInfo(coin, pc),
    amountOut: bn(amountOut),
    mintIn: coinIn ? COIN : PC,
    mintOut: coinIn ? PC : COIN,
    slippage: 0,
  });
  return { amountIn: big(r.amountIn as object), fee: big(r.fee as object) };
}

const FEES: AmmV4Fees = { swapFeeNumerator: 25n, swapFeeDenominator: 10_000n } as AmmV4Fees;

function logBig(lo: number, hi: number): fc.Arbitrary<bigint> {
  return fc.integer({ min: lo, max: hi }).chain((bits) => fc.bigInt({ min: 1n, max: (1n << BigInt(bits)) - 1n }));
}

const reserves = fc.tuple(logBig(1, 63), logBig(1, 63));

describe('Raydium AMM v4 vs @raydium-io/raydium-sdk-v2 liquidity math (fee 25/10000)', () => {
  it('ExactIn (swap_base_in): amount out and fee equal to the last unit', () => {
    let compared = 0;
    fc.assert(
      fc.property(reserves, fc.boolean(), logBig(1, 63), ([coin, pc], coinIn, amount) => {
        const [rIn, rOut] = coinIn ? [coin, pc] : [pc, coin];
        let ours;
        try {
          ours = ammV4SwapBaseIn(amount, rIn, rOut, FEES);
        } catch (e) {
          if (!(e instanceof PoolQuoteError)) throw e;
          // we refuse what the program refuses: zero out (InvalidInput) or the whole reserve
          const sdk = sdkOut(coin, pc, coinIn, amount);
          expect(sdk.amountOut === 0n || sdk.amountOut >= rOut).toBe(true);
          return;
        }
        compared++;
        expect(sdkOut(coin, pc, coinIn, amount)).toEqual({ amountOut: ours.amountOut, fee: ours.fee });
      }),
      { numRuns: RUNS, seed: 5 },
    );
    expect(compared).toBeGreaterThan(RUNS / 3);
  });

  it('ExactOut (swap_base_out): the program rounds up twice, the SDK floors twice: ours - sdk = the two carries (0..2)', () => {
    const seen = new Set<bigint>();
    fc.assert(
      fc.property(reserves, fc.boolean(), fc.integer({ min: 1, max: 999_999 }), ([coin, pc], coinIn, ppm) => {
        const [rIn, rOut] = coinIn ? [coin, pc] : [pc, coin];
        const amountOut = (rOut * BigInt(ppm)) / 1_000_000n;
        if (amountOut === 0n) return;
        let ours;
        try {
          ours = ammV4SwapBaseOut(amountOut, rIn, rOut, FEES);
        } catch (e) {
          if (!(e instanceof PoolQuoteError)) throw e;
          return;
        }
        const sdk = sdkIn(coin, pc, coinIn, amountOut);
        // the carries of the program's two ceiling divisions
        const num1 = rIn * amountOut;
        const den1 = rOut - amountOut;
        const floor1 = num1 / den1;
        const carry1 = num1 % den1 === 0n ? 0n : 1n;
        const beforeFee = floor1 + carry1;
        expect(ours.amountIn - ours.fee).toBe(beforeFee);
        const sdkFloor2 = (floor1 * 10_000n) / 9_975n;
        expect(sdk.amountIn).toBe(sdkFloor2);
        const diff = ours.amountIn - sdk.amountIn;
        expect(diff >= 0n && diff <= 2n).toBe(true);
        if (carry1 === 0n) {
          // the only difference left is the second rounding
          expect(diff).toBe((floor1 * 10_000n) % 9_975n === 0n ? 0n : 1n);
        }
        if (diff > 0n) {
          // the SDK's figure is below what the program asks: as max_amount_in it would fail on chain
          expect(sdk.amountIn < ours.amountIn).toBe(true);
        }
        seen.add(diff);
      }),
      { numRuns: RUNS, seed: 6 },
    );
    // every documented outcome occurs
    expect([...seen].sort()).toEqual([0n, 1n, 2n]);
  });

  it('worked example of the ExactOut difference: X = 1,000,000, Y = 1,000,000, out = 1,000', () => {
    const ours = ammV4SwapBaseOut(1000n, 1_000_000n, 1_000_000n, FEES);
    // ceil(1e9 / 999000) = 1002 (1001.001..), ceil(1002 * 10000 / 9975) = 1005 (1004.51..)
    expect(ours.amountIn).toBe(1005n);
    // SDK: floor = 1001, floor(1001 * 10000 / 9975) = 1003: two units low
    expect(sdkIn(1_000_000n, 1_000_000n, true, 1000n).amountIn).toBe(1003n);
    // and at the SDK's 1003 the program's exact-in gives less than the 1000 asked
    expect(ammV4SwapBaseIn(1003n, 1_000_000n, 1_000_000n, FEES).amountOut).toBeLessThan(1000n);
  });

  it('an output at or above the reserve: the program (and we) refuse; the SDK clamps above it and divides by zero at it', () => {
    expect(() => ammV4SwapBaseOut(1_000_001n, 5n, 1_000_000n, FEES)).toThrow(PoolQuoteError);
    expect(() => ammV4SwapBaseOut(1_000_000n, 5n, 1_000_000n, FEES)).toThrow(PoolQuoteError);
    // above the reserve: priced as reserve - 1
    expect(sdkIn(5n, 1_000_000n, true, 1_000_001n).amountIn).toBe(sdkIn(5n, 1_000_000n, true, 999_999n).amountIn);
    expect(() => sdkIn(5n, 1_000_000n, true, 1_000_000n)).toThrow();
  });
});
