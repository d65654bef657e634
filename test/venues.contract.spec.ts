/**
 * The venue contract: every venue the registry holds (libs/pools VENUES) has every part the
 * router needs to read and to write it, and every part works on a pool of the venue:
 * - reading: its program id, label and kind, the decoder (`accountKind`, `poolDependencies`) and
 *   the pool builder (`buildPool`), and a pool of it in the simulated market;
 * - writing (its record of apps/router/src/swap/venues, the same id): the swap instruction builder,
 *   the compute-unit model, the slippage errors, whether it trades native SOL, and the sim
 *   chain's reading of the instruction;
 * - the lists that name the venues elsewhere (GET /api/v1/dexes, the ingestor's RPC pool filters).
 * A venue that forgets a part fails here: `missingParts` names it (and is itself checked on a
 * record stripped of each part), and the round trips below run over every registered venue.
 */
import { Keypair, PublicKey, TransactionMessage, VersionedTransaction, type TransactionInstruction } from '@solana/web3.js';
import { evaluatePath, type Route, type SwapMode } from '@app/amm';
import { VENUES, type Venue } from '@app/pools';
import { SimMarket } from '@app/sim';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import { isSlippageError, SLIPPAGE_ERROR_CODES } from '../apps/router/src/chain/chain-gateway';
import { SimChain } from '../apps/router/src/chain/sim-chain';
import { MAX_COMPUTE_UNITS } from '../apps/router/src/swap/compute-units';
import { buildSwap } from '../apps/router/src/swap/swap-builder';
import type { HopBuild, ProgramError, VenueWriter } from '../apps/router/src/swap/venues/venue-writer';
import { slippageErrorsOf, venueWriter, VENUE_WRITERS } from '../apps/router/src/swap/venues/venue-writers';
import { DEXES } from '../apps/router/src/quote/route-controls';
import { POOL_ACCOUNT_FILTERS } from '../apps/ingestor/src/rpc/pool-filters';
import { projectionOf } from './support/projection';

const isError = (e: unknown): e is ProgramError => Array.isArray(e) && e.length === 2 && Number.isInteger(e[0]) && typeof e[1] === 'string' && e[1] !== '';
const isFunction = (f: unknown): boolean => typeof f === 'function';

/** the parts a venue (and its writer) lacks, by name; empty when it has them all */
function missingParts(venue: Venue, writer: VenueWriter | undefined): string[] {
  const missing: string[] = [];
  const need = (ok: boolean, part: string): void => {
    if (!ok) missing.push(part);
  };
  need((Object.values(PROGRAM_IDS) as string[]).includes(venue.programId), 'program id (one of PROGRAM_IDS)');
  need(typeof venue.label === 'string' && venue.label !== '', 'label');
  need(typeof venue.kind === 'string' && (venue.kind as string) !== '', 'pool kind');
  need(typeof venue.poolAccountKind === 'string' && venue.poolAccountKind !== '', 'pool account kind');
  need(isFunction(venue.accountKind) && isFunction(venue.poolDependencies), 'decoder (accountKind, poolDependencies)');
  need(isFunction(venue.buildPool), 'pool builder (buildPool)');
  if (writer === undefined) return [...missing, 'venue writer (apps/router/src/swap/venues/venue-writers.ts)'];
  need(writer.programId === venue.programId, 'writer keyed by the venue id');
  need(isFunction(writer.hopInstruction), 'instruction builder (hopInstruction)');
  need(isFunction(writer.swapUnits), 'compute-unit model (swapUnits)');
  const s = writer.slippage as Partial<VenueWriter['slippage']> | undefined;
  need(s !== undefined && isError(s.minOut) && isError(s.maxIn) && (s.sellMinOut === undefined || isError(s.sellMinOut)), 'slippage codes (minOut, maxIn)');
  need(typeof writer.nativeSol === 'boolean', 'native SOL flag (nativeSol)');
  need(isFunction(writer.readSwap), 'sim execution (readSwap)');
  return missing;
}

describe('venue contract: every registered venue has every part', () => {
  it('the registry and the writer table hold the same venues, each once', () => {
    const ids = VENUES.map((v) => v.programId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(VENUE_WRITERS.map((w) => w.programId).sort()).toEqual([...ids].sort());
  });

  it.each(VENUES.map((v) => [v.label, v] as const))('%s: no part missing', (_label, venue) => {
    expect(missingParts(venue, venueWriter(venue.programId))).toEqual([]);
  });

  it('a record without a part is caught, whichever part it is', () => {
    const venue = VENUES[0];
    const writer = venueWriter(venue.programId)!;
    expect(missingParts(venue, undefined)).toEqual(['venue writer (apps/router/src/swap/venues/venue-writers.ts)']);
    for (const key of ['accountKind', 'buildPool', 'label'] as const) {
      expect(missingParts({ ...venue, [key]: undefined } as unknown as Venue, writer)).toHaveLength(1);
    }
    for (const key of ['hopInstruction', 'swapUnits', 'slippage', 'nativeSol', 'readSwap'] as const) {
      expect(missingParts(venue, { ...writer, [key]: undefined } as unknown as VenueWriter)).toHaveLength(1);
    }
  });

  it('the dexes list and the ingestor\'s pool filters name every venue (by its label / program id)', () => {
    expect(DEXES.map((d) => `${d.programId} ${d.label}`).sort()).toEqual(VENUES.map((v) => `${v.programId} ${v.label}`).sort());
    expect(Object.values(POOL_ACCOUNT_FILTERS).map((f) => f.programId).sort()).toEqual(VENUES.map((v) => v.programId).sort());
  });

  it('every venue\'s slippage codes are read as slippage by the rpc gateway', () => {
    for (const w of VENUE_WRITERS) {
      for (const [code, name] of slippageErrorsOf(w.slippage)) {
        expect(SLIPPAGE_ERROR_CODES).toContainEqual([w.programId, code, name]);
        expect(isSlippageError(w.programId, code, new Uint8Array(1))).toBe(true);
      }
    }
  });
});

describe('venue contract: the parts work on a pool of every venue', () => {
  const market = new SimMarket({ seed: 5, pools: 80, tokens: 20, swapsPerSlot: 4, programs: 'all' });
  const projection = projectionOf(market.genesis());

  /** about $1 of `mint` at the market's price (a hundredth of a unit when it has none) */
  const dollar = (mint: string): bigint => {
    const t = market.tokens.find((x) => x.mint === mint);
    const v = t && t.priceUsd > 0 ? BigInt(Math.floor(10 ** t.decimals / t.priceUsd)) : 0n;
    return v > 0n ? v : 10n ** BigInt(Math.max(1, (t?.decimals ?? 6) - 2));
  };

  const swaps: Array<[string, Venue, 'A->B' | 'B->A', SwapMode]> = VENUES.flatMap((v) =>
    (['A->B', 'B->A'] as const).flatMap((dir) => (['ExactIn', 'ExactOut'] as const).map((mode) => [`${v.label} ${dir} ${mode}`, v, dir, mode] as [string, Venue, 'A->B' | 'B->A', SwapMode])),
  );

  /** the venue's first routable pool, its route one way for about $1 */
  function routeOf(venue: Venue, dir: 'A->B' | 'B->A', mode: SwapMode): Route {
    const listed = projection.markets().find((m) => m.programId === venue.programId && m.routable);
    const pool = listed && projection.pool(listed.address);
    if (!pool) throw new Error(`no routable pool of ${venue.label} in the simulated market (libs/sim has no generator for it)`);
    const mints = dir === 'A->B' ? [pool.mintA, pool.mintB] : [pool.mintB, pool.mintA];
    return evaluatePath({ pools: [pool], mints }, mode, dollar(mode === 'ExactIn' ? mints[0] : mints[1]));
  }

  /** a funded wallet's transaction of `instructions`, executed on a fresh sim chain */
  function execute(route: Route, wallet: string, instructions: TransactionInstruction[]) {
    const chain = new SimChain();
    chain.fund(projection, wallet, null, 10n ** 13n);
    if (route.inputMint !== MINTS.SOL) chain.fund(projection, wallet, route.inputMint, route.amountIn * 2n);
    const message = new TransactionMessage({ payerKey: new PublicKey(wallet), recentBlockhash: chain.blockhashAt(projection.slot).blockhash, instructions }).compileToV0Message();
    return chain.execute(projection, new VersionedTransaction(message), projection.slot);
  }

  it.each(swaps)('%s: the built instruction reads back as the same swap (instruction builder, sim reading, native SOL)', (_label, venue, dir, mode) => {
    const writer = venueWriter(venue.programId)!;
    const hop = routeOf(venue, dir, mode).hops[0];
    const wallet = Keypair.generate().publicKey.toBase58();
    const tokenProgramOf = (m: string): string => (m === MINTS.SOL ? PROGRAM_IDS.token : projection.account(m)!.owner);
    const build: HopBuild = {
      pool: hop.pool,
      inputMint: hop.inputMint,
      outputMint: hop.outputMint,
      mode,
      amount: mode === 'ExactIn' ? hop.amountIn : hop.amountOut,
      bound: mode === 'ExactIn' ? hop.amountOut : hop.amountIn,
      quotedIn: hop.amountIn,
      wallet,
      source: Keypair.generate().publicKey.toBase58(),
      destination: Keypair.generate().publicKey.toBase58(),
      tokenProgramOf,
      account: (a) => projection.account(a),
    };
    const ix = writer.hopInstruction(build);
    expect(ix.programId.toBase58()).toBe(venue.programId);
    const keys = ix.keys.map((k) => k.pubkey.toBase58());
    const read = writer.readSwap(Buffer.from(ix.data), keys.length, (i) => keys[i]);
    expect(read.form).toBe('hop');
    if (read.form !== 'hop') return;
    expect({ pool: read.pool, user: read.user }).toEqual({ pool: hop.pool.address, user: wallet });
    // an exact-output sell pays its quoted input and requires the exact output as its minimum
    const asSell = read.exactIn !== (mode === 'ExactIn');
    if (asSell) expect(read.sell).toBe(true);
    expect({ amount: read.amount, bound: read.bound }).toEqual(asSell ? { amount: hop.amountIn, bound: build.amount } : { amount: build.amount, bound: build.bound });
    if (read.inputMint !== null) expect(read.inputMint).toBe(hop.inputMint);
    // a side in native SOL (no token account) exactly when the venue trades native SOL
    const nativeSides = [read.source, read.destination].filter((a) => a === null).length;
    expect(nativeSides > 0).toBe(writer.nativeSol);
    if (!writer.nativeSol) expect([read.source, read.destination]).toEqual([build.source, build.destination]);
    const units = writer.swapUnits({ pool: hop.pool, inputMint: hop.inputMint, mode, amount: build.amount, token2022Sides: 0 });
    expect(units > 0 && units <= MAX_COMPUTE_UNITS).toBe(true);
  });

  it.each(swaps)('%s: the sim chain executes the built swap, consuming the estimate (sim execution, compute-unit model)', (_label, venue, dir, mode) => {
    const route = routeOf(venue, dir, mode);
    const wallet = Keypair.generate().publicKey.toBase58();
    const built = buildSwap({ route, userWallet: wallet, slippageBps: 50, fee: null, computeUnitPriceMicroLamports: 0n }, projection);
    const ex = execute(route, wallet, built.instructions);
    expect({ error: ex.error, consumed: ex.computeUnitsConsumed }).toEqual({ error: '', consumed: built.computeUnitsEstimate });
  });

  it.each(swaps)('%s: a bound the pool no longer meets fails with one of the venue\'s slippage codes (slippage codes)', (_label, venue, dir, mode) => {
    const route = routeOf(venue, dir, mode);
    // the quote asks a tenth more output (ExactIn) or allows a tenth less input (ExactOut) than the pool gives
    const hop = route.hops[0];
    const tenth = (mode === 'ExactIn' ? hop.amountOut : hop.amountIn) / 10n + 1n;
    const greedy: Route =
      mode === 'ExactIn'
        ? { ...route, amountOut: route.amountOut + tenth, hops: [{ ...hop, amountOut: hop.amountOut + tenth }] }
        : { ...route, amountIn: route.amountIn - tenth, hops: [{ ...hop, amountIn: hop.amountIn - tenth }] };
    const wallet = Keypair.generate().publicKey.toBase58();
    const built = buildSwap({ route: greedy, userWallet: wallet, slippageBps: 0, fee: null, computeUnitPriceMicroLamports: 0n }, projection);
    const ex = execute(route, wallet, built.instructions);
    expect({ success: ex.success, slippageExceeded: ex.slippageExceeded }).toEqual({ success: false, slippageExceeded: true });
    const code = Number.parseInt(/^custom program error: 0x([0-9a-f]+) /.exec(ex.error)?.[1] ?? 'NaN', 16);
    expect(slippageErrorsOf(venueWriter(venue.programId)!.slippage).map(([c]) => c)).toContain(code);
  });
});
