/**
 * Two-hop Whirlpool routes as one two_hop_swap_v2 on the real Whirlpool program (LiteSVM): with
 * nothing moved they pay exactly the quote; when the first pool moves against the user within
 * the slippage (another trader's swap executed first) they still land, the user's output at least
 * otherAmountThreshold.
 */
import { VersionedTransaction } from '@solana/web3.js';
import { PROGRAM_IDS } from '@app/solana';
import { SWAP_DISCRIMINATORS } from '@app/solana';
import { landSwap, moveSize, svmWorld, tradeFirst, type SvmWorld, type SwapAsk } from './svm-world';

jest.setTimeout(180_000);

describe('orca-whirlpool two-hop routes', () => {
  let w: SvmWorld;
  const asks: SwapAsk[] = [];
  beforeAll(async () => {
    w = svmWorld({ seed: 11, pools: 24, tokens: 8, programs: ['orca-whirlpool'] });
    const mints = [...new Set(w.projection.markets().flatMap((m) => [m.mintA!, m.mintB!]))];
    for (const a of mints) {
      for (const b of mints) {
        if (a === b || asks.length >= 6) continue;
        for (const swapMode of ['ExactIn', 'ExactOut'] as const) {
          const ask = { inputMint: a, outputMint: b, amount: 10n ** BigInt(Math.max(2, (w.projection.decimals(swapMode === 'ExactIn' ? a : b) ?? 6) - 2)), swapMode, slippageBps: 50 };
          try {
            const r = await landSwap(w, ask);
            if (r.result.pools.length === 2 && !r.result.isSplitRoute && r.outcome.success) asks.push(ask);
          } catch {
            // no route
          }
        }
      }
    }
  });

  it('is one two_hop_swap_v2 and pays exactly the quote', async () => {
    expect(asks.length).toBeGreaterThanOrEqual(3);
    for (const ask of asks) {
      const r = await landSwap(w, ask);
      expect(r.outcome.success).toBe(true);
      expect([r.paid, r.received]).toEqual([BigInt(r.result.amountIn), BigInt(r.result.amountOut)]);
      const tx = VersionedTransaction.deserialize(Buffer.from(r.result.transaction, 'base64'));
      const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
      const swaps = tx.message.compiledInstructions.filter((ix) => keys[ix.programIdIndex] === PROGRAM_IDS.orcaWhirlpool);
      expect(swaps).toHaveLength(1);
      expect(Buffer.from(swaps[0].data.subarray(0, 8))).toEqual(SWAP_DISCRIMINATORS.whirlpoolTwoHopSwapV2);
    }
  });

  it('lands when the first pool moved 20 bp against the user with 50 bp of slippage', async () => {
    let landed = 0;
    for (const ask of asks) {
      const r = await landSwap(w, ask, {
        before: (res) => {
          const pool = w.projection.pool(res.pools[0])!;
          expect(tradeFirst(w, pool, ask.inputMint, moveSize(pool, ask.inputMint, 20))).toBe(true);
        },
      });
      if (!r.outcome.success) continue;
      landed++;
      if (ask.swapMode === 'ExactIn') expect(r.received).toBeGreaterThanOrEqual(BigInt(r.result.minAmountOut));
      else expect(r.paid).toBeLessThanOrEqual(BigInt(r.result.maxAmountIn));
    }
    expect(landed).toBe(asks.length);
  });
});
