/**
 * Regression (found by test/differential/pump-amm.differential.spec.ts): selling for a wanted
 * quote amount whose base estimate lies beyond u64 threw a RangeError (a crash) instead of the
 * documented PoolQuoteError('insufficient-liquidity'). Same search in pump.fun's sell-for-SOL.
 */
import { PoolQuoteError } from '../../pool';
import { pumpAmmSellForQuote } from './math';
import { searchMinInput } from '../pump-fun/math';

describe('sell for a wanted amount whose base would exceed u64', () => {
  it('PumpSwap: a tiny quote reserve against a huge base reserve is refused with insufficient-liquidity', () => {
    const fees = { lpFeeBps: 240n, protocolFeeBps: 260n, creatorFeeBps: 2n };
    const want = (754n * 879_311n) / 1_000_000n;
    expect(() => pumpAmmSellForQuote(1_451_460_549_433_512_645n, 754n, fees, want)).toThrow(PoolQuoteError);
    expect(() => pumpAmmSellForQuote(1_451_460_549_433_512_645n, 754n, fees, want)).toThrow(expect.objectContaining({ reason: 'insufficient-liquidity' }));
  });

  it('searchMinInput starts within u64 when the estimate is beyond it', () => {
    const calls: bigint[] = [];
    const out = (x: bigint) => {
      calls.push(x);
      if (x > 0xffffffffffffffffn) throw new RangeError('beyond u64');
      return x >= 10n ? x : 0n;
    };
    expect(searchMinInput(out, 10n, 1n << 70n)).toBe(10n);
    expect(calls.every((x) => x <= 0xffffffffffffffffn)).toBe(true);
  });
});
