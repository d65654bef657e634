import * as fs from 'node:fs';
import * as path from 'node:path';
import { PoolQuoteError } from '@app/amm';
import { WhirlpoolPool } from '@app/amm';
import { swapTickArrayStartIndexes } from '@app/amm';
import { exactInWithTransferFees, exactOutWithTransferFees } from '@app/amm';
import { decodeTickArray, decodeWhirlpool, encodeWhirlpool, whirlpoolTickArrayAddress } from '@app/solana';
import { PROGRAM_IDS } from '@app/solana';
import { decodeMint, encodeMint } from '@app/solana';
import { Feed, FIXTURES, fixtureAccount, transferFeeExtension, type RawAccount } from '../../../test/support/pool-fixtures';

const ESS = 'orca-whirlpool/whirlpool-essentials';
const SAMO_USDC = '9vqYJjDUFecLL2xPUC4Rc7hyCtZ6iJ4mDiVZX7aFXoAe';
const SLOT = 160156384;
const whirlpool = fixtureAccount(`${ESS}/samo_usdc_wp_whirlpool.${SAMO_USDC}.json`);
const arrays: RawAccount[] = fs
  .readdirSync(path.join(FIXTURES, ESS))
  .filter((n) => n.startsWith('samo_usdc_wp_ta_'))
  .map((n) => fixtureAccount(`${ESS}/${n}`));
const samoMint = fixtureAccount('spl-token/whirlpool-essentials/token_samo.7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU.json');
const usdcMint = fixtureAccount('spl-token/whirlpool-essentials/token_usdc.EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v.json');
const w = decodeWhirlpool(whirlpool.data, whirlpool.owner, SAMO_USDC);
const A = w.tokenMintA;
const B = w.tokenMintB;

/** the pool built directly from all 7 fixture arrays */
const direct = new WhirlpoolPool({
  address: SAMO_USDC,
  whirlpool: w,
  tickArrays: arrays.map((a) => decodeTickArray(a.data, a.owner, a.address)),
  slot: SLOT,
});

/** a quote or the error it raises, for comparing two pools outcome by outcome */
function outcome(f: () => unknown): unknown {
  try {
    return f();
  } catch (e) {
    return { error: (e as Error).message };
  }
}

function complete(): Feed {
  return new Feed().put([whirlpool, ...arrays, samoMint, usdcMint], SLOT);
}

describe('Orca Whirlpool venue on the SAMO/USDC capture', () => {
  it('is routable and quotes exactly as the Whirlpool math, both modes and directions', () => {
    const f = complete();
    const pool = f.projection.pool(SAMO_USDC) as WhirlpoolPool;
    expect(pool).toBeInstanceOf(WhirlpoolPool);
    expect(f.market(SAMO_USDC)).toMatchObject({ routable: true, label: 'Orca Whirlpool', kind: 'concentrated-liquidity', mintA: A, mintB: B });
    let quoted = 0;
    for (const amt of [1n, 1_000n, 1_000_000n, 50_000_000n, 2_000_000_000n]) {
      for (const [mint, a] of [
        [A, amt * 1000n],
        [B, amt],
      ] as const) {
        const x = outcome(() => pool.quoteExactIn(mint, a));
        expect(x).toEqual(outcome(() => direct.quoteExactIn(mint, a)));
        const y = outcome(() => pool.quoteExactOut(mint, a));
        expect(y).toEqual(outcome(() => direct.quoteExactOut(mint, a)));
        if (!('error' in (x as object))) quoted++;
      }
    }
    expect(quoted).toBeGreaterThanOrEqual(6);
    expect(f.projection.poolsOf(A)).toContain(pool);
    expect(f.projection.decimals(A)).toBe(9);
  });

  it('without the tick array a swap starts in, it is unroutable and says which', () => {
    const first = swapTickArrayStartIndexes(w.tickCurrentIndex, w.tickSpacing, true)[0];
    const missing = whirlpoolTickArrayAddress(SAMO_USDC, first);
    const f = new Feed().put([whirlpool, ...arrays.filter((a) => a.address !== missing), samoMint, usdcMint], SLOT);
    expect(f.projection.pool(SAMO_USDC)).toBeUndefined();
    const m = f.market(SAMO_USDC)!;
    expect(m.routable).toBe(false);
    expect(m.reason).toBe(`missing tick array account ${missing} (start ${first}) a A->B swap starts in`);
    expect(m.mintA).toBe(A);
    // the array arrives: routable
    f.put(arrays.filter((a) => a.address === missing), SLOT + 1);
    expect(f.projection.pool(SAMO_USDC)).toBeDefined();
  });

  it('a missing mint, a tick array under the wrong owner, or a truncated pool account: unroutable with the reason', () => {
    let f = new Feed().put([whirlpool, ...arrays, samoMint], SLOT);
    expect(f.market(SAMO_USDC)!.reason).toBe(`missing token B mint account ${B}`);

    const first = whirlpoolTickArrayAddress(SAMO_USDC, swapTickArrayStartIndexes(w.tickCurrentIndex, w.tickSpacing, false)[0]);
    f = new Feed().put([whirlpool, ...arrays.map((a) => (a.address === first ? { ...a, owner: PROGRAM_IDS.raydiumClmm } : a)), samoMint, usdcMint], SLOT);
    expect(f.market(SAMO_USDC)!.reason).toMatch(new RegExp(`^undecodable tick array ${first} .*wrong owner`));

    f = new Feed().put([{ ...whirlpool, data: whirlpool.data.subarray(0, 600) }, ...arrays, samoMint, usdcMint], SLOT);
    expect(f.market(SAMO_USDC)!.reason).toMatch(/^undecodable pool account: .*size/);
  });

  it('re-materialises on a pool write: the new price is quoted', () => {
    const f = complete();
    const before = f.projection.pool(SAMO_USDC)!;
    const moved = encodeWhirlpool({ ...w, liquidity: w.liquidity * 2n });
    f.put([{ ...whirlpool, data: moved }], SLOT + 1);
    const after = f.projection.pool(SAMO_USDC) as WhirlpoolPool;
    expect(after).not.toBe(before);
    expect(after.whirlpool.liquidity).toBe(w.liquidity * 2n);
    expect(after.slot).toBe(SLOT + 1);
  });

  it('a Token-2022 transfer-fee mint changes the quote as the token program does (fee in force at the epoch of the slot)', () => {
    const samo = decodeMint(samoMint.data, samoMint.owner);
    // 1% capped at 5e9, from epoch 400; 3% before (the slot 160156384 is epoch 370: the older fee)
    const ext = transferFeeExtension({ bps: 100, max: 5_000_000_000n }, 400n, { bps: 300, max: 5_000_000_000n });
    const feeMint = { ...samoMint, owner: PROGRAM_IDS.token2022, data: encodeMint({ ...samo, extensions: [ext] }) };
    const f = new Feed().put([whirlpool, ...arrays, feeMint, usdcMint], SLOT);
    const pool = f.projection.pool(SAMO_USDC) as WhirlpoolPool;
    expect(pool.transferFeeA).toEqual({ bps: 300, maximumFee: 5_000_000_000n });
    expect(pool.transferFeeB).toBeNull();
    const fee = pool.transferFeeA;
    const amount = 10_000_000_000n;
    // SAMO in: the pool receives amount - 3%
    const exIn = pool.quoteExactIn(A, amount);
    expect(exIn).toEqual(exactInWithTransferFees(amount, fee, null, (net) => direct.quoteExactIn(A, net)));
    expect(exIn.amountOut).toBe(direct.quoteExactIn(A, amount - 300_000_000n).amountOut);
    // SAMO out: the user receives out - 3%
    const buy = pool.quoteExactIn(B, 1_000_000n);
    const raw = direct.quoteExactIn(B, 1_000_000n);
    expect(buy.amountOut).toBe(raw.amountOut - (raw.amountOut * 300n + 9_999n) / 10_000n);
    // ExactOut grosses both sides up
    expect(pool.quoteExactOut(B, amount)).toEqual(exactOutWithTransferFees(amount, null, fee, (g) => direct.quoteExactOut(B, g)));
    expect(pool.quoteExactOut(A, 1_000_000n)).toEqual(exactOutWithTransferFees(1_000_000n, fee, null, (g) => direct.quoteExactOut(A, g)));
    // at a slot in epoch 400 the newer 1% applies
    const g = new Feed().put([whirlpool, ...arrays, feeMint, usdcMint], 400 * 432_000);
    expect((g.projection.pool(SAMO_USDC) as WhirlpoolPool).transferFeeA).toEqual({ bps: 100, maximumFee: 5_000_000_000n });
  });

  it('past the tick arrays loaded, a quote fails with insufficient-liquidity rather than a guessed amount', () => {
    const pool = complete().projection.pool(SAMO_USDC)!;
    expect(() => pool.quoteExactIn(A, 10n ** 19n)).toThrow(PoolQuoteError);
  });
});
