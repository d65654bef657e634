/**
 * Two Whirlpool hops as one two_hop_swap_v2: the program pays the first swap's output into the
 * second, so only the route's outer bound is checked and an intermediate pool that moves against
 * the user costs the user within `slippageBps` instead of failing the route. The amounts are the
 * same exact math (hop two takes exactly what hop one gives), so the quote stands unchanged.
 * Used for a single path of exactly two Whirlpool hops whose intermediate mint is a classic SPL
 * token (a Token-2022 intermediate would pay a transfer fee between the vaults).
 */
import type { TransactionInstruction } from '@solana/web3.js';
import type { RouteHop } from '@app/amm';
import { WhirlpoolPool } from '@app/amm';
import { swapTickArrayStartIndexes } from '@app/amm';
import { whirlpoolOracleAddress, whirlpoolTickArrayAddress } from '@app/solana';
import { orcaWhirlpoolTwoHopSwapV2 } from '@app/solana';
import { PROGRAM_IDS } from '@app/solana';

/** the three tick arrays a Whirlpool swap from the current tick walks (the last repeated when fewer exist) */
export function whirlpoolSwapTickArrays(pool: WhirlpoolPool, aToB: boolean): [string, string, string] {
  const wp = pool.whirlpool;
  const arrays = swapTickArrayStartIndexes(wp.tickCurrentIndex, wp.tickSpacing, aToB)
    .slice(0, 3)
    .map((st) => whirlpoolTickArrayAddress(pool.address, st));
  while (arrays.length < 3) arrays.push(arrays[arrays.length - 1]);
  return [arrays[0], arrays[1], arrays[2]];
}

/** whether a route's hops go as one two_hop_swap_v2 */
export function isWhirlpoolTwoHop(hops: readonly RouteHop[], isSplit: boolean, tokenProgramOf: (mint: string) => string): boolean {
  return (
    !isSplit &&
    hops.length === 2 &&
    hops.every((h) => h.pool instanceof WhirlpoolPool) &&
    hops[0].pool.address !== hops[1].pool.address &&
    tokenProgramOf(hops[0].outputMint) === PROGRAM_IDS.token
  );
}

export function whirlpoolTwoHopInstruction(a: {
  hops: readonly RouteHop[];
  mode: 'ExactIn' | 'ExactOut';
  amount: bigint;
  threshold: bigint;
  wallet: string;
  source: string;
  destination: string;
  tokenProgramOf: (mint: string) => string;
}): TransactionInstruction {
  const [h1, h2] = a.hops;
  const p1 = h1.pool as WhirlpoolPool;
  const p2 = h2.pool as WhirlpoolPool;
  const leg = (p: WhirlpoolPool, inputMint: string) => ({
    pool: p.address,
    whirlpool: p.whirlpool,
    tickArrays: whirlpoolSwapTickArrays(p, inputMint === p.whirlpool.tokenMintA),
    oracle: whirlpoolOracleAddress(p.address),
  });
  return orcaWhirlpoolTwoHopSwapV2({
    one: leg(p1, h1.inputMint),
    two: leg(p2, h2.inputMint),
    inputMint: h1.inputMint,
    intermediateMint: h1.outputMint,
    outputMint: h2.outputMint,
    tokenPrograms: { input: a.tokenProgramOf(h1.inputMint), intermediate: a.tokenProgramOf(h1.outputMint), output: a.tokenProgramOf(h2.outputMint) },
    mode: a.mode,
    amount: a.amount,
    threshold: a.threshold,
    wallet: a.wallet,
    source: a.source,
    destination: a.destination,
  });
}
