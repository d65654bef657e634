/**
 * The byte budget (fit.ts) and the unit limit from the simulation (SwapService), over a projection
 * of a simulated market of all six programs WITHOUT lookup tables, where many best routes need
 * more than 1232 bytes.
 */
import { AddressLookupTableAccount, Keypair, PublicKey, TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { SimMarket } from '@app/sim';
import { Projection } from '@app/pools';
import { encodePoolUpdate } from '@app/contracts';
import { evaluatePath, findBestRoute, findCandidatePaths, type Route } from '@app/amm';
import { loadConfig } from '@app/config';
import { PROGRAM_IDS } from '@app/solana';
import type { ChainGateway, SimulationResult } from '../chain/chain-gateway';
import type { ProjectionService } from '../projection/projection.service';
import { ApiError } from '../http/api-error';
import { buildQuoteResponse } from '../quote/quote-response';
import { buildSwap, type BuiltSwap } from './swap-builder';
import { fitLadder, fitRoute, NoFittingRouteError, type RouteShape } from './fit';
import { accountCount, compileTransaction, lockedAccounts, LookupTableIndex, PACKET_DATA_SIZE, TooManyAccountsError, TRANSACTION_ACCOUNT_LOCK_LIMIT, TransactionTooLargeError, transactionSize } from './transaction';
import { MAX_COMPUTE_UNITS, SwapService, unitLimitFromSimulation } from './swap.service';

const market = new SimMarket({ seed: 8, pools: 150, tokens: 30, swapsPerSlot: 4, programs: 'all' });
const projection = new Projection();
let offset = 0;
for (const u of market.genesis()) projection.apply({ partition: 0, offset: offset++, value: encodePoolUpdate(u) });
const wallet = Keypair.generate().publicKey.toBase58();
const BLOCKHASH = '11111111111111111111111111111111';

const build = (route: Route): BuiltSwap => buildSwap({ route, userWallet: wallet, slippageBps: 50, fee: null, computeUnitPriceMicroLamports: 0n }, projection);
const size = (b: BuiltSwap): number => compileTransaction(wallet, b.instructions, BLOCKHASH, []).bytes.length;

type Request = { inputMint: string; outputMint: string; amount: bigint };

/** up to `limit` requests ($1000 of the input) whose best route's swap is `wanted` */
function requestsWhere(limit: number, wanted: (b: BuiltSwap) => boolean): Request[] {
  const out: Request[] = [];
  for (const a of market.tokens) {
    for (const b of market.tokens) {
      if (a === b || out.length >= limit) continue;
      const amount = BigInt(Math.floor((1000 / a.priceUsd) * 10 ** a.decimals));
      let route: Route;
      try {
        route = findBestRoute(projection, { inputMint: a.mint, outputMint: b.mint, amount, mode: 'ExactIn', maxHops: 5 });
      } catch {
        continue;
      }
      if (wanted(build(route))) out.push({ inputMint: a.mint, outputMint: b.mint, amount });
    }
  }
  return out;
}

/** distinct accounts of a message of these instructions (the product's count) */
const distinctAccounts = (ixs: readonly TransactionInstruction[]): number => accountCount(wallet, ixs);

/** requests whose best route's transaction (no lookup tables) is too large */
function oversized(limit: number): Request[] {
  return requestsWhere(limit, (built) => {
    try {
      size(built);
      return false;
    } catch (e) {
      if (e instanceof TransactionTooLargeError) return true;
      throw e;
    }
  });
}

/** requests whose best route references more than 64 distinct accounts (the lock limit) */
const overAccountLimit = (limit: number): Request[] => requestsWhere(limit, (built) => distinctAccounts(built.instructions) > TRANSACTION_ACCOUNT_LOCK_LIMIT);

describe('fitRoute', () => {
  const cases = oversized(12);

  it('a best route too large for 1232 bytes gives way to the best smaller shape that fits', () => {
    expect(cases.length).toBeGreaterThanOrEqual(8);
    let fits = 0;
    for (const req of cases) {
      const search = (shape: RouteShape | null): Route =>
        findBestRoute(projection, { ...req, mode: 'ExactIn', maxHops: shape?.maxHops ?? 5 }, shape?.options ?? {});
      const best = search(null);
      let fitted;
      try {
        fitted = fitRoute(search, build, size, fitLadder(5));
      } catch (e) {
        // nothing fits: then no rung's route fits either
        expect(e).toBeInstanceOf(NoFittingRouteError);
        for (const shape of fitLadder(5)) {
          let r: Route;
          try {
            r = search(shape);
          } catch {
            continue;
          }
          expect(() => size(build(r))).toThrow(TransactionTooLargeError);
        }
        continue;
      }
      fits++;
      expect(fitted.shape).not.toBeNull();
      expect(fitted.size).toBeLessThanOrEqual(PACKET_DATA_SIZE);
      expect(size(fitted.built)).toBe(fitted.size);
      // the built swap is the fitted route's, and it cannot beat the unconstrained best
      expect(fitted.built.amountOut).toBe(fitted.route.amountOut);
      expect(fitted.route.amountOut <= best.amountOut).toBe(true);
      // no rung's route that fits gives more; one that gives more is too large
      for (const shape of fitLadder(5)) {
        let r: Route;
        try {
          r = search(shape);
        } catch {
          continue;
        }
        if (r.amountOut > fitted.route.amountOut) expect(() => size(build(r))).toThrow(TransactionTooLargeError);
      }
    }
    expect(fits).toBeGreaterThanOrEqual(4);
  });

  it('a best route over the 64-account lock limit (a message could index it; the runtime would refuse it) gives way to the best smaller shape that fits, as one over 1232 bytes does', () => {
    const wide = overAccountLimit(6);
    expect(wide.length).toBeGreaterThanOrEqual(3);
    let fits = 0;
    for (const req of wide) {
      const search = (shape: RouteShape | null): Route =>
        findBestRoute(projection, { ...req, mode: 'ExactIn', maxHops: shape?.maxHops ?? 5 }, shape?.options ?? {});
      const best = build(search(null));
      const accounts = distinctAccounts(best.instructions);
      expect(accounts).toBeGreaterThan(64);
      // web3.js compiles it (a message indexes up to 256 accounts): the limit is the runtime's
      if (accounts <= 256) expect(() => new TransactionMessage({ payerKey: new PublicKey(wallet), recentBlockhash: BLOCKHASH, instructions: best.instructions }).compileToV0Message([])).not.toThrow();
      // the measure says what it is: too large, by its account count
      expect(() => size(best)).toThrow(new TooManyAccountsError(accounts));
      expect(() => size(best)).toThrow(TransactionTooLargeError);
      let fitted;
      try {
        fitted = fitRoute(search, build, size, fitLadder(5));
      } catch (e) {
        expect(e).toBeInstanceOf(NoFittingRouteError);
        expect((e as Error).message).toMatch(new RegExp(`^transaction too large: ${accounts} accounts exceed the 64-account lock limit; no smaller route fits \\(\\d+ other routes tried\\)$`));
        expect((e as NoFittingRouteError).best).toEqual(best);
        continue;
      }
      fits++;
      expect(fitted.shape).not.toBeNull();
      expect(fitted.size).toBeLessThanOrEqual(PACKET_DATA_SIZE);
      expect(distinctAccounts(fitted.built.instructions)).toBeLessThanOrEqual(64);
      expect(VersionedTransaction.deserialize(compileTransaction(wallet, fitted.built.instructions, BLOCKHASH, []).bytes).message.header.numRequiredSignatures).toBe(1);
    }
    expect(fits).toBeGreaterThanOrEqual(1);
  });

  it('serves the best fitting rung, not the first: a tie goes to the earlier rung, a route no better than the served one is not built', () => {
    const fake = (id: string, amountOut: bigint, mode: 'ExactIn' | 'ExactOut' = 'ExactIn'): Route =>
      ({ mode, inputMint: 'a', outputMint: 'b', amountIn: 1000n - amountOut, amountOut, hops: [{ pool: { address: id }, inputMint: 'a', outputMint: 'b', amountIn: 1n }] }) as unknown as Route;
    const ladder: RouteShape[] = ['r1', 'r2', 'r3', 'r4', 'r5'].map((label) => ({ label, options: {} }));
    // r1 too large, r2 fits (90), r3 fits (95), r4 fits (95: a tie), r5 too large (99)
    const routes: Record<string, Route> = { best: fake('best', 100n), r1: fake('r1', 98n), r2: fake('r2', 90n), r3: fake('r3', 95n), r4: fake('r4', 95n), r5: fake('r5', 99n) };
    const fits = new Set(['r2', 'r3', 'r4']);
    const built: string[] = [];
    const fitted = fitRoute(
      (shape) => routes[shape?.label ?? 'best'],
      (r) => {
        built.push(r.hops[0].pool.address);
        return r.hops[0].pool.address;
      },
      (b) => {
        if (!fits.has(b)) throw new TransactionTooLargeError(1300);
        return 1000;
      },
      ladder,
    );
    expect(fitted.shape!.label).toBe('r3');
    expect(fitted.route.amountOut).toBe(95n);
    expect(built).toEqual(['best', 'r1', 'r2', 'r3', 'r5']);
    // ExactOut: the least input wins
    const out: Record<string, Route> = { best: fake('best', 900n, 'ExactOut'), r1: fake('r1', 850n, 'ExactOut'), r2: fake('r2', 880n, 'ExactOut'), r3: fake('r3', 870n, 'ExactOut'), r4: fake('r4', 860n, 'ExactOut'), r5: fake('r5', 800n, 'ExactOut') };
    const f2 = fitRoute((shape) => out[shape?.label ?? 'best'], (r) => r.hops[0].pool.address, (b) => (fits.has(b) ? 1000 : (() => { throw new TransactionTooLargeError(1300); })()), ladder);
    expect(f2.shape!.label).toBe('r2'); // amountIn 120, the least among r2 (120), r3 (130), r4 (140)
    // a caller's comparison (the swap service's: net of the aggregator fee) decides instead
    const f3 = fitRoute((shape) => routes[shape?.label ?? 'best'], (r) => r.hops[0].pool.address, (b) => (fits.has(b) ? 1000 : (() => { throw new TransactionTooLargeError(1300); })()), ladder, (a, b) => b.amountOut < a.amountOut);
    expect(f3.shape!.label).toBe('r2');
  });

  it('with lookup tables, a route over the account limit is served as a split over fewer pools where that beats the best single path that fits', () => {
    // the market as it runs (lookup tables cover the pools): the limit is the 64 accounts
    const lt = new SimMarket({ seed: 8, pools: 150, tokens: 30, swapsPerSlot: 4, programs: 'all', lookupTables: true });
    const p = new Projection();
    let o = 0;
    for (const u of lt.genesis()) p.apply({ partition: 0, offset: o++, value: encodePoolUpdate(u) });
    const tables = new LookupTableIndex({ lookupTableAddresses: () => p.lookupTableAddresses(), account: (a) => p.account(a) });
    const buildLt = (route: Route): BuiltSwap => buildSwap({ route, userWallet: wallet, slippageBps: 50, fee: null, computeUnitPriceMicroLamports: 0n }, p);
    const sizeLt = (b: BuiltSwap): number => compileTransaction(wallet, b.instructions, BLOCKHASH, tables.select(wallet, b.instructions)).bytes.length;
    let over = 0;
    let splits = 0;
    let gained = 0;
    for (const a of lt.tokens.slice(0, 12)) {
      for (const b of lt.tokens) {
        if (a === b) continue;
        const req = { inputMint: a.mint, outputMint: b.mint, amount: BigInt(Math.floor((1000 / a.priceUsd) * 10 ** a.decimals)), mode: 'ExactIn' as const };
        const search = (shape: RouteShape | null): Route => findBestRoute(p, { ...req, maxHops: shape?.maxHops ?? 5 }, shape?.options ?? {});
        let fitted;
        try {
          fitted = fitRoute(search, buildLt, sizeLt, fitLadder(5));
        } catch {
          continue;
        }
        if (fitted.shape === null) continue;
        over++;
        const tx = VersionedTransaction.deserialize(compileTransaction(wallet, fitted.built.instructions, BLOCKHASH, tables.select(wallet, fitted.built.instructions)).bytes);
        expect(lockedAccounts(tx.message)).toBeLessThanOrEqual(TRANSACTION_ACCOUNT_LOCK_LIMIT);
        // never worse than the best single path that fits (a rung of the ladder)
        let single: Route | undefined;
        for (const shape of fitLadder(5).filter((x) => x.options.split === false)) {
          try {
            const r = search(shape);
            sizeLt(buildLt(r));
            single = r;
            break;
          } catch {
            continue;
          }
        }
        if (single !== undefined) expect(fitted.route.amountOut >= single.amountOut).toBe(true);
        if (fitted.route.hops.length > new Set(fitted.route.hops.map((h) => h.inputMint)).size) {
          splits++;
          if (single === undefined || fitted.route.amountOut > single.amountOut) gained++;
        }
      }
    }
    expect(over).toBeGreaterThanOrEqual(50);
    // most routes over the limit keep a split (what the old ladder lost by falling back to a single path)
    expect(splits).toBeGreaterThanOrEqual(over / 3);
    expect(gained).toBeGreaterThanOrEqual(over / 4);
  });

  it('a route that fits is kept as it is', () => {
    const a = market.tokens[0];
    const b = market.tokens[1];
    const amount = BigInt(Math.floor((1 / a.priceUsd) * 10 ** a.decimals));
    const search = (shape: RouteShape | null): Route => findBestRoute(projection, { inputMint: a.mint, outputMint: b.mint, amount, mode: 'ExactIn', maxHops: shape?.maxHops ?? 2 }, { split: false, ...(shape?.options ?? {}) });
    const fitted = fitRoute(search, build, size, fitLadder(2));
    expect(fitted.shape).toBeNull();
    expect(fitted.route).toEqual(search(null));
  });

  it('nothing fits: NoFittingRouteError with the best route size; rungs without a route are skipped', () => {
    const req = cases[0];
    let rungs = 0;
    const search = (shape: RouteShape | null): Route => {
      if (shape !== null) rungs++;
      if (shape !== null && shape.maxHops !== undefined) throw new Error('no route of that shape');
      return findBestRoute(projection, { ...req, mode: 'ExactIn', maxHops: 5 }, shape?.options ?? {});
    };
    const tooLarge = (): number => {
      throw new TransactionTooLargeError(1500);
    };
    let error: unknown;
    try {
      fitRoute(search, build, tooLarge, fitLadder(5));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(NoFittingRouteError);
    // it carries the build of the best route (what /instructions serves then)
    expect((error as NoFittingRouteError).best).toEqual(build(search(null)));
    expect((error as Error).message).toMatch(/^transaction too large: 1500 bytes exceeds the 1232-byte limit; no smaller route fits \(\d+ other routes tried\)$/);
    expect(rungs).toBe(fitLadder(5).length);
  });
});

describe('compileTransaction: the 64-account lock limit', () => {
  const program = Keypair.generate().publicKey;
  const keys = Array.from({ length: 260 }, () => Keypair.generate().publicKey);
  /** one instruction of `program` over the first n keys (read-only, not signing): n + 2 accounts with the payer */
  const over = (n: number): TransactionInstruction[] => [new TransactionInstruction({ programId: program, keys: keys.slice(0, n).map((pubkey) => ({ pubkey, isSigner: false, isWritable: false })), data: Buffer.alloc(0) })];
  const table = new AddressLookupTableAccount({ key: Keypair.generate().publicKey, state: { deactivationSlot: 2n ** 64n - 1n, lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, addresses: keys.slice(0, 255) } });
  const listed = lockedAccounts;

  it('the limit is 64', () => {
    expect(TRANSACTION_ACCOUNT_LOCK_LIMIT).toBe(64);
  });

  it('exactly 64 distinct accounts compile (a lookup table keeps them within 1232 bytes)', () => {
    const { bytes } = compileTransaction(wallet, over(62), BLOCKHASH, [table]);
    expect(bytes.length).toBeLessThanOrEqual(PACKET_DATA_SIZE);
    expect(listed(VersionedTransaction.deserialize(bytes).message)).toBe(64);
  });

  it('65 distinct accounts, read-only and looked up included: TooManyAccountsError, a TransactionTooLargeError, though web3.js compiles it within 1232 bytes', () => {
    // the format takes it: only the runtime's lock limit refuses it
    const message = new TransactionMessage({ payerKey: new PublicKey(wallet), recentBlockhash: BLOCKHASH, instructions: over(63) }).compileToV0Message([table]);
    expect(listed(message)).toBe(65);
    expect(transactionSize(message)).toBeLessThanOrEqual(PACKET_DATA_SIZE);
    let error: unknown;
    try {
      compileTransaction(wallet, over(63), BLOCKHASH, [table]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TooManyAccountsError);
    expect(error).toBeInstanceOf(TransactionTooLargeError);
    expect((error as TooManyAccountsError).accounts).toBe(65);
    expect((error as TooManyAccountsError).size).toBe(Infinity);
    expect((error as Error).message).toBe('transaction too large: 65 accounts exceed the 64-account lock limit');
    // a key listed twice, or the payer and program among the keys, count once
    const repeated = [...over(62), new TransactionInstruction({ programId: program, keys: [keys[0], new PublicKey(wallet), program].map((pubkey) => ({ pubkey, isSigner: false, isWritable: true })), data: Buffer.alloc(0) })];
    expect(compileTransaction(wallet, repeated, BLOCKHASH, [table]).bytes.length).toBeLessThanOrEqual(PACKET_DATA_SIZE);
  });

  it('past 256 accounts web3.js cannot compile at all (a plain Error): still the TooManyAccountsError', () => {
    expect(() => new TransactionMessage({ payerKey: new PublicKey(wallet), recentBlockhash: BLOCKHASH, instructions: over(255) }).compileToV0Message([table])).toThrow('Account index overflow encountered during compilation');
    expect(() => compileTransaction(wallet, over(255), BLOCKHASH, [table])).toThrow(new TooManyAccountsError(257));
  });

  it('64 accounts without lookup tables: too large by its bytes, measured exactly', () => {
    const size = transactionSize(new TransactionMessage({ payerKey: new PublicKey(wallet), recentBlockhash: BLOCKHASH, instructions: over(62) }).compileToV0Message([]));
    expect(size).toBeGreaterThan(PACKET_DATA_SIZE);
    expect(() => compileTransaction(wallet, over(62), BLOCKHASH, [])).toThrow(new TransactionTooLargeError(size));
  });
});

describe('SwapService: byte budget and unit limit', () => {
  function service(simulate: (tx: VersionedTransaction) => SimulationResult): { svc: SwapService; sims: VersionedTransaction[] } {
    const sims: VersionedTransaction[] = [];
    // a node's simulation (the sim gateway's consumption is the compute-unit model itself and gets no margin)
    const gateway: ChainGateway = {
      kind: 'rpc',
      latestBlockhash: async () => ({ blockhash: BLOCKHASH, lastValidBlockHeight: 1_000 }),
      simulate: async (tx) => {
        sims.push(tx);
        return simulate(tx);
      },
    };
    const config = loadConfig({ DATA_DIR: 'unused' });
    return { svc: new SwapService({ projection } as unknown as ProjectionService, config, gateway), sims };
  }
  const limitOf = (tx: VersionedTransaction): number => {
    const ix = tx.message.compiledInstructions[0];
    expect(tx.message.staticAccountKeys[ix.programIdIndex].toBase58()).toBe(PROGRAM_IDS.computeBudget);
    return Buffer.from(ix.data).readUInt32LE(1);
  };
  const ok = (consumed: number): SimulationResult => ({ success: true, error: '', insufficientFunds: false, slippageExceeded: false, computeUnitsConsumed: consumed, logs: ['Program log: ok'] });

  /**
   * Each request through /swap and /instructions: a served transaction passes `check` and
   * /instructions gives the same route; when nothing fits, /swap's documented error and
   * /instructions the best route's. Returns how many were served.
   */
  async function serveEach(requests: Request[], check: (tx: Buffer) => void): Promise<number> {
    const { svc } = service(() => ok(100_000));
    let served = 0;
    for (const req of requests) {
      const p = { userWallet: wallet, ...req, swapMode: 'ExactIn' as const, slippageBps: 50 };
      let s;
      try {
        s = await svc.swap({ ...p, skipSimulation: true });
      } catch (e) {
        expect((e as ApiError).error).toBe('failed to build transaction');
        expect(svc.instructions(p).amountOut).toBe(findBestRoute(projection, { ...req, mode: 'ExactIn', maxHops: 5 }).amountOut.toString());
        continue;
      }
      served++;
      check(Buffer.from(s.transaction, 'base64'));
      const i = svc.instructions(p);
      expect(i.amountOut).toBe(s.amountOut);
      expect(i.pools).toEqual(s.pools);
    }
    return served;
  }

  it('/swap answers an oversized best route with the best route that fits; /instructions with the same route', async () => {
    const served = await serveEach(oversized(12), (tx) => expect(tx.length).toBeLessThanOrEqual(PACKET_DATA_SIZE));
    expect(served).toBeGreaterThanOrEqual(4);
  });

  it('/swap and /instructions answer a best route over the 64-account lock limit with the best route that fits, as an oversized one (not a 500)', async () => {
    const served = await serveEach(overAccountLimit(6), (tx) => expect(lockedAccounts(VersionedTransaction.deserialize(tx).message)).toBeLessThanOrEqual(64));
    expect(served).toBeGreaterThanOrEqual(1);
  });

  it('splitPercents has one entry per pool of `pools`, in its order: 100 for each pool of a single path, the quote\'s percents for a split', async () => {
    const { svc } = service(() => ok(100_000));
    let single = 0;
    let split = 0;
    for (const a of market.tokens) {
      for (const b of market.tokens) {
        if (a === b || (single >= 3 && split >= 3)) continue;
        for (const usd of [10, 10_000]) {
          const amount = BigInt(Math.floor((usd / a.priceUsd) * 10 ** a.decimals));
          let route: Route;
          try {
            route = findBestRoute(projection, { inputMint: a.mint, outputMint: b.mint, amount, mode: 'ExactIn', maxHops: 5 });
          } catch {
            continue;
          }
          const wanted = build(route).isSplitRoute ? split < 3 : single < 3 && route.hops.length >= 2;
          if (!wanted) continue;
          let s;
          try {
            s = await svc.swap({ userWallet: wallet, inputMint: a.mint, outputMint: b.mint, amount, swapMode: 'ExactIn', slippageBps: 50, skipSimulation: true });
          } catch {
            continue;
          }
          expect(s.splitPercents.length).toBe(s.pools.length);
          if (!s.isSplitRoute) {
            if (s.pools.length < 2) continue;
            expect(s.splitPercents).toEqual(s.pools.map(() => 100));
            single++;
          } else {
            // the served route's hops, as the quote lists them: pool i carries percent i
            const served = findBestRoute(projection, { inputMint: a.mint, outputMint: b.mint, amount, mode: 'ExactIn', maxHops: 5 });
            if (served.hops.map((h) => h.pool.address).join() !== s.pools.join()) continue;
            const q = buildQuoteResponse(served, { slippageBps: 50, contextSlot: 0, logPosition: {} });
            expect(s.splitPercents).toEqual(q.routes.map((r) => r.percent));
            expect(s.pools).toEqual(q.routes.map((r) => r.poolAddress));
            split++;
          }
        }
      }
    }
    expect(single).toBeGreaterThanOrEqual(3);
    expect(split).toBeGreaterThanOrEqual(1);
  });

  it('the unit limit is the simulated consumption plus 10%; a simulation out of units runs again with the most a transaction may use', async () => {
    const req = { userWallet: wallet, inputMint: market.tokens[0].mint, outputMint: market.tokens[1].mint, amount: 10n ** 6n, swapMode: 'ExactIn' as const, slippageBps: 50 };
    const first = service(() => ok(123_457));
    const s = await first.svc.swap({ ...req, skipSimulation: false });
    expect(s.computeUnitsEstimate).toBe(unitLimitFromSimulation(123_457));
    expect(s.computeUnitsEstimate).toBe(135_803);
    // exactly 10% more, rounded up (no floating-point unit: 100,000 × 1.1 is 110,000.00000000001 in doubles)
    expect([1, 50, 100, 100_000, 99_300, 1_272_727, 1_272_728, 1_300_000].map(unitLimitFromSimulation)).toEqual([2, 55, 110, 110_000, 109_230, 1_400_000, 1_400_000, 1_400_000]);
    expect(limitOf(VersionedTransaction.deserialize(Buffer.from(s.transaction, 'base64')))).toBe(135_803);
    expect(first.sims.length).toBe(1);

    const estimate = (await service(() => ok(1)).svc.swap({ ...req, skipSimulation: true })).computeUnitsEstimate;
    const second = service((tx) =>
      limitOf(tx) < MAX_COMPUTE_UNITS
        ? { ...ok(limitOf(tx)), success: false, error: 'InstructionError: [2, ComputationalBudgetExceeded]' }
        : ok(estimate + 50_000),
    );
    const r = await second.svc.swap({ ...req, skipSimulation: false });
    expect(second.sims.map(limitOf)).toEqual([estimate, MAX_COMPUTE_UNITS]);
    expect(r.computeUnitsEstimate).toBe(estimate + 50_000 + Math.ceil((estimate + 50_000) / 10));
    expect(r.simulation?.success).toBe(true);

    // a failure of another kind is reported as it is
    const third = service(() => ({ ...ok(0), success: false, error: 'custom program error: 0x1771' }));
    await expect(third.svc.swap({ ...req, skipSimulation: false })).rejects.toMatchObject({ error: 'simulation failed: custom program error: 0x1771' });
    expect(third.sims.length).toBe(1);
  });
});

describe('the longest supported route', () => {
  /** a projection of a market of these programs, with or without its lookup tables */
  function marketOf(programs: 'all' | ['raydium-cpmm'], lookupTables: boolean): { m: SimMarket; p: Projection; index: LookupTableIndex } {
    const m = new SimMarket({ seed: 8, pools: 150, tokens: 30, swapsPerSlot: 4, programs, lookupTables });
    const p = new Projection();
    let o = 0;
    for (const u of m.genesis()) p.apply({ partition: 0, offset: o++, value: encodePoolUpdate(u) });
    return { m, p, index: new LookupTableIndex({ lookupTableAddresses: () => p.lookupTableAddresses(), account: (a) => p.account(a) }) };
  }

  /**
   * 5-hop single paths of a market: each built, measured (bytes and distinct accounts) and
   * compiled; `fits` when both are within their limits (1232 bytes, 64 accounts)
   */
  function fiveHops(programs: 'all' | ['raydium-cpmm'], lookupTables: boolean): Array<{ size: number; accounts: number; fits: boolean; labels: string[] }> {
    const { m, p, index } = marketOf(programs, lookupTables);
    const out: Array<{ size: number; accounts: number; fits: boolean; labels: string[] }> = [];
    // at least 40 paths, and (all programs) until every program's pools are on some path
    const seen = new Set<string>();
    const enough = (): boolean => out.length >= 40 && seen.size >= (programs === 'all' ? 6 : 1);
    for (const a of m.tokens) {
      for (const b of m.tokens) {
        if (a === b || enough()) continue;
        const amount = BigInt(Math.floor((10 / a.priceUsd) * 10 ** a.decimals));
        const paths = findCandidatePaths(p, { inputMint: a.mint, outputMint: b.mint, amount, mode: 'ExactIn', maxHops: 5 }, { hopSlack: 4, candidatesPerToken: 8 }).filter((c) => c.pools.length === 5);
        for (const path of paths.slice(0, 2)) {
          let route: Route;
          try {
            route = evaluatePath(path, 'ExactIn', amount);
          } catch {
            continue;
          }
          const built = buildSwap({ route, userWallet: wallet, slippageBps: 50, fee: null, computeUnitPriceMicroLamports: 1000n }, p);
          const tables = index.select(wallet, built.instructions);
          const size = transactionSize(new TransactionMessage({ payerKey: new PublicKey(wallet), recentBlockhash: BLOCKHASH, instructions: built.instructions }).compileToV0Message(tables));
          const labels = path.pools.map((x) => x.label);
          for (const l of labels) seen.add(l);
          const accounts = distinctAccounts(built.instructions);
          if (accounts > TRANSACTION_ACCOUNT_LOCK_LIMIT) {
            // over the lock limit: refused whatever its size (the runtime would fail it with TooManyAccountLocks)
            expect(() => compileTransaction(wallet, built.instructions, BLOCKHASH, tables)).toThrow(new TooManyAccountsError(accounts));
            out.push({ size, accounts, fits: false, labels });
          } else if (size <= PACKET_DATA_SIZE) {
            // the measure is the serialized length
            const bytes = compileTransaction(wallet, built.instructions, BLOCKHASH, tables).bytes;
            expect(bytes.length).toBe(size);
            expect(VersionedTransaction.deserialize(bytes).message.header.numRequiredSignatures).toBe(1);
            out.push({ size, accounts, fits: true, labels });
          } else {
            // too large: the clear error with the measured size (web3.js itself cannot serialize it)
            expect(() => compileTransaction(wallet, built.instructions, BLOCKHASH, tables)).toThrow(new TransactionTooLargeError(size));
            out.push({ size, accounts, fits: false, labels });
          }
        }
      }
    }
    return out;
  }

  it('5-hop Raydium CPMM paths fit 1232 bytes and the 64-account lock limit with the market lookup tables', () => {
    const routes = fiveHops(['raydium-cpmm'], true);
    expect(routes.length).toBeGreaterThanOrEqual(20);
    expect(routes.every((r) => r.fits)).toBe(true);
    expect(Math.max(...routes.map((r) => r.accounts))).toBeLessThanOrEqual(TRANSACTION_ACCOUNT_LOCK_LIMIT);
  });

  it('5-hop paths through every program, pump.fun and PumpSwap hops with their remaining accounts, fit 1232 bytes with the market lookup tables; those over the 64-account lock limit are refused', () => {
    const routes = fiveHops('all', true);
    expect(routes.length).toBeGreaterThanOrEqual(20);
    const labels = new Set(routes.flatMap((r) => r.labels));
    expect(labels.size).toBe(6);
    // the bytes are never the bound with the tables
    expect(routes.filter((r) => r.size > PACKET_DATA_SIZE)).toEqual([]);
    // the lock limit is the only bound: a path over 64 accounts is refused (transaction.spec
    // meets many with the tables); the others compile
    expect(routes.some((r) => r.fits)).toBe(true);
    expect(routes.filter((r) => !r.fits).every((r) => r.accounts > TRANSACTION_ACCOUNT_LOCK_LIMIT)).toBe(true);
  });

  it('without lookup tables 5-hop paths through the heavier programs are measured exactly past 1232 bytes (the byte budget then serves a smaller route)', () => {
    const routes = fiveHops('all', false);
    expect(routes.length).toBeGreaterThanOrEqual(20);
    expect(new Set(routes.flatMap((r) => r.labels)).size).toBeGreaterThanOrEqual(5);
    expect(routes.some((r) => !r.fits)).toBe(true);
    // within the lock limit, still too large by their bytes (TransactionTooLargeError with the measured size)
    expect(routes.some((r) => r.accounts <= TRANSACTION_ACCOUNT_LOCK_LIMIT && r.size > PACKET_DATA_SIZE)).toBe(true);
    expect(routes.some((r) => r.fits)).toBe(false);
  });

  it("with the market lookup tables, a swap through any pool lists no address outside them but the user's own and the programs it invokes", () => {
    const { p, index } = marketOf('all', true);
    const covered = new Set<string>();
    for (const t of index.tables()) for (const a of t.state.addresses) covered.add(a.toBase58());
    const [w1, w2] = [Keypair.generate().publicKey.toBase58(), Keypair.generate().publicKey.toBase58()];
    const keysOf = (route: Route, user: string): { keys: Set<string>; programs: Set<string> } => {
      const ixs = buildSwap({ route, userWallet: user, slippageBps: 50, fee: null, computeUnitPriceMicroLamports: 1000n }, p).instructions;
      return { keys: new Set(ixs.flatMap((ix) => ix.keys.map((k) => k.pubkey.toBase58()))), programs: new Set(ixs.map((ix) => ix.programId.toBase58())) };
    };
    const checked = new Map<string, number>();
    const missing: string[] = [];
    for (const market of p.markets().filter((x) => x.routable)) {
      const pool = p.pool(market.address)!;
      for (const [inMint, outMint] of [
        [pool.mintA, pool.mintB],
        [pool.mintB, pool.mintA],
      ]) {
        let route: Route;
        try {
          route = evaluatePath({ pools: [pool], mints: [inMint, outMint] }, 'ExactIn', 10n ** 5n);
        } catch {
          continue;
        }
        const one = keysOf(route, w1);
        const other = keysOf(route, w2).keys;
        // an address the two wallets' swaps share is not the user's own
        for (const k of one.keys) if (other.has(k) && !one.programs.has(k) && !covered.has(k)) missing.push(`${pool.label} ${market.address}: ${k}`);
        checked.set(pool.label, (checked.get(pool.label) ?? 0) + 1);
      }
    }
    expect(checked.size).toBe(6);
    expect(missing).toEqual([]);
  });
});
