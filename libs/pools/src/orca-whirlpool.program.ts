/**
 * Orca Whirlpool in the program registry: Whirlpool accounts are pools. A pool depends on the
 * tick arrays a swap from its current tick may use in either direction (PDAs, fixed or dynamic),
 * its Oracle when it comes from an adaptive fee tier, and both mints (Token-2022 transfer fees).
 *
 * Completeness: both mints, the Oracle of an adaptive-fee pool, and the first tick array of each
 * direction's sequence (the one the swap starts in) must be present and decodable, or the pool is
 * unroutable with the reason. Further arrays are optional: a swap that runs past the arrays
 * present is refused ('insufficient-liquidity'), as the transaction without them would fail.
 *
 * Time: the projection has no clock. An adaptive-fee pool is quoted at the newest on-chain
 * timestamp its accounts carry (the Whirlpool's reward update time, the Oracle's reference and
 * major-swap times). The adaptive fee only decays as time passes, so the quote is the one the
 * program gives at that instant and never overstates the output at any later instant.
 */
import type { Pool } from '@app/amm';
import { WhirlpoolPool, whirlpoolDependencies } from '@app/amm';
import { swapTickArrayStartIndexes } from '@app/amm';
import { whirlpoolTickArrayStarts } from '@app/amm';
import {
  WHIRLPOOL_DISCRIMINATORS,
  decodeOracle,
  decodeTickArray,
  decodeWhirlpool,
  isAdaptiveFeeWhirlpool,
  whirlpoolAccountType,
  whirlpoolOracleAddress,
  whirlpoolTickArrayAddress,
  type Whirlpool,
  type WhirlpoolOracle,
  type WhirlpoolTickArray,
} from '@app/solana';
import { PROGRAM_IDS } from '@app/solana';
import { building, decodeAs, mintWithTransferFee, need, PoolIncomplete, routableOrReason } from './account-decoders';
import type { AccountView, BuildResult, Venue } from './program-registry';

const POOL_DISC = WHIRLPOOL_DISCRIMINATORS.Whirlpool;

export const whirlpoolState = (a: AccountView): Whirlpool => a.memo('orca:Whirlpool', (x) => decodeWhirlpool(x.data, x.owner, x.address));
export const whirlpoolTickArray = (a: AccountView): WhirlpoolTickArray => a.memo('orca:TickArray', (x) => decodeTickArray(x.data, x.owner, x.address));
const oracleAccount = (a: AccountView): WhirlpoolOracle => a.memo('orca:Oracle', (x) => decodeOracle(x.data, x.owner, x.address));

function maxBig(...xs: bigint[]): bigint {
  return xs.reduce((m, x) => (x > m ? x : m));
}

export const orcaWhirlpoolVenue: Venue = {
  programId: PROGRAM_IDS.orcaWhirlpool,
  label: 'Orca Whirlpool',
  kind: 'concentrated-liquidity',
  poolAccountKind: 'Whirlpool',

  accountKind(data: Buffer): string | null {
    if (data.length >= 8 && data.compare(POOL_DISC, 0, 8, 0, 8) === 0) return 'Whirlpool';
    return whirlpoolAccountType(data);
  },

  poolDependencies(poolAddress: string, pool: AccountView): string[] {
    return whirlpoolDependencies(poolAddress, whirlpoolState(pool));
  },

  buildPool(poolAddress: string, get: (address: string) => AccountView | undefined, slot: number): BuildResult {
    const mints: { mintA?: string; mintB?: string } = {};
    return building(mints, () => {
      const w = decodeAs(need(get, poolAddress, 'pool'), 'pool account', whirlpoolState);
      mints.mintA = w.tokenMintA;
      mints.mintB = w.tokenMintB;
      const a = mintWithTransferFee(get, w.tokenMintA, 'token A mint', slot);
      const b = mintWithTransferFee(get, w.tokenMintB, 'token B mint', slot);

      const tickArrays: WhirlpoolTickArray[] = [];
      for (const start of whirlpoolTickArrayStarts(w)) {
        const address = whirlpoolTickArrayAddress(poolAddress, start);
        const acc = get(address);
        if (!acc) continue;
        const ta = decodeAs(acc, `tick array ${address} (start ${start})`, whirlpoolTickArray);
        if (ta.whirlpool !== poolAddress) throw new PoolIncomplete(`tick array ${address} belongs to whirlpool ${ta.whirlpool}`);
        if (ta.startTickIndex !== start) throw new PoolIncomplete(`tick array ${address} starts at ${ta.startTickIndex}, expected ${start}`);
        tickArrays.push(ta);
      }
      const have = new Set(tickArrays.map((t) => t.startTickIndex));
      for (const aToB of [true, false]) {
        const first = swapTickArrayStartIndexes(w.tickCurrentIndex, w.tickSpacing, aToB)[0];
        if (first !== undefined && !have.has(first)) {
          throw new PoolIncomplete(
            `missing tick array account ${whirlpoolTickArrayAddress(poolAddress, first)} (start ${first}) a ${aToB ? 'A->B' : 'B->A'} swap starts in`,
          );
        }
      }

      let oracle: WhirlpoolOracle | undefined;
      let unixTimestamp: number | undefined;
      if (isAdaptiveFeeWhirlpool(w)) {
        const address = whirlpoolOracleAddress(poolAddress);
        oracle = decodeAs(need(get, address, 'Oracle'), 'Oracle', oracleAccount);
        const v = oracle.adaptiveFeeVariables;
        unixTimestamp = Number(maxBig(w.rewardLastUpdatedTimestamp, v.lastReferenceUpdateTimestamp, v.lastMajorSwapTimestamp));
      }
      const pool = new WhirlpoolPool({
        address: poolAddress,
        whirlpool: w,
        tickArrays,
        slot,
        ...(oracle ? { oracle, unixTimestamp } : {}),
        transferFeeA: a.transferFee,
        transferFeeB: b.transferFee,
      });
      const r = routableOrReason(pool);
      if (r !== pool) return r;
      if (w.liquidity === 0n && tickArrays.every((t) => t.ticks.every((k) => !k.initialized))) {
        return { unroutable: 'no liquidity: the pool and its loaded tick arrays hold none', ...mints };
      }
      return pool as Pool;
    });
  },
};
