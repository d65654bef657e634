/**
 * Swap build latency: POST /api/v1/instructions and POST /api/v1/swap (skipSimulation true, and
 * with the sim chain's simulation) through SwapService on a projection of the simulated market
 * (240 pools, 64 tokens, lookup tables covering the pools), for a 1-hop and a 3-hop route.
 * Service-level (no HTTP): route search + instruction building + v0 compilation (+ simulation).
 */
import { Keypair } from '@solana/web3.js';
import { encodePoolUpdate } from '@app/contracts';
import { loadConfig } from '@app/config';
import { findBestRoute } from '@app/amm';
import { buildLookupTables } from '@app/solana';
import { cpmmAuthority } from '@app/solana';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import { Projection } from '@app/pools';
import type { ProjectionService } from '../apps/router/src/projection/projection.service';
import { SimMarket } from '@app/sim';
import { SimChainGateway } from '../apps/router/src/chain/sim.gateway';
import { SwapService, type SwapParams } from '../apps/router/src/swap/swap.service';
import { buildSwap } from '../apps/router/src/swap/swap-builder';
import { compileTransaction, LookupTableIndex, TransactionTooLargeError } from '../apps/router/src/swap/transaction';
import { fmtMs, summarize, verdict, type BenchRow, type BenchSection } from './harness';

const SAMPLES = 300;

/**
 * /swap (skipSimulation) for the requests of $1,000 whose best route is over the limits on the
 * all-programs market: latency (route search + every rung of the ladder + builds + compilation)
 * and the output the served route gives up against the best route.
 */
async function overLimitRows(): Promise<BenchRow[]> {
  const market = new SimMarket({ seed: 8, pools: 150, tokens: 30, swapsPerSlot: 4, programs: 'all', lookupTables: true });
  const projection = new Projection();
  let offset = 0;
  for (const u of market.genesis()) projection.apply({ partition: 0, offset: offset++, value: encodePoolUpdate(u) });
  projection.drainChanged();
  const gateway = new SimChainGateway(() => projection);
  const service = new SwapService({ projection } as unknown as ProjectionService, loadConfig({}), gateway);
  const wallet = Keypair.generate().publicKey.toBase58();
  const tables = new LookupTableIndex({ lookupTableAddresses: () => projection.lookupTableAddresses(), account: (a) => projection.account(a) });
  let requests = 0;
  const over: Array<{ p: SwapParams; best: bigint }> = [];
  for (const a of market.tokens)
    for (const b of market.tokens) {
      if (a === b) continue;
      const amount = BigInt(Math.floor((1000 / a.priceUsd) * 10 ** a.decimals));
      let route;
      try {
        route = findBestRoute(projection, { inputMint: a.mint, outputMint: b.mint, amount, mode: 'ExactIn', maxHops: 5 });
      } catch {
        continue;
      }
      requests++;
      const ixs = buildSwap({ route, userWallet: wallet, slippageBps: 50, fee: null, computeUnitPriceMicroLamports: 0n }, projection).instructions;
      try {
        compileTransaction(wallet, ixs, '11111111111111111111111111111111', tables.select(wallet, ixs));
      } catch (e) {
        if (!(e instanceof TransactionTooLargeError)) throw e;
        over.push({ p: { userWallet: wallet, inputMint: a.mint, outputMint: b.mint, amount, swapMode: 'ExactIn', slippageBps: 50 }, best: route.amountOut });
      }
    }
  const latency: number[] = [];
  const given: number[] = [];
  let unserved = 0;
  for (const { p } of over.slice(0, 30)) await service.swap({ ...p, skipSimulation: true }).catch(() => undefined); // warm-up
  for (const { p, best } of over) {
    const t0 = process.hrtime.bigint();
    let out: bigint;
    try {
      out = BigInt((await service.swap({ ...p, skipSimulation: true })).amountOut);
    } catch {
      unserved++;
      continue;
    }
    latency.push(Number(process.hrtime.bigint() - t0) / 1e6);
    given.push(Number(((best - out) * 1_000_000n) / best) / 100);
  }
  const l = summarize(latency);
  const g = summarize(given);
  return [
    {
      metric: '/swap skipSimulation, best route over the limits (all six programs)',
      value: `p50 ${fmtMs(l.p50)}, p99 ${fmtMs(l.p99)}`,
      notes: `n=${l.n} of ${requests} requests of $1,000 (${Math.round((over.length / requests) * 100)}% over 64 accounts or 1232 bytes; ${unserved} with no fitting route)`,
    },
    {
      metric: 'output given up to fit, vs the best route (same requests)',
      value: `p50 ${g.p50.toFixed(1)} bp, p90 ${g.p90.toFixed(1)} bp, p99 ${g.p99.toFixed(1)} bp`,
      notes: 'the quote serves the best route; /swap the best of the ladder that fits',
    },
  ];
}

export async function bench(): Promise<BenchSection[]> {
  const market = new SimMarket({ seed: 7, pools: 240, tokens: 64, swapsPerSlot: 8 });
  const projection = new Projection();
  let offset = 0;
  const apply = (u: Parameters<typeof encodePoolUpdate>[0]): void => void projection.apply({ partition: 0, offset: offset++, value: encodePoolUpdate(u) });
  market.genesis().forEach(apply);
  const addrs: string[] = [PROGRAM_IDS.token, PROGRAM_IDS.system, PROGRAM_IDS.associatedToken, cpmmAuthority(), MINTS.SOL];
  for (const p of market.pools) addrs.push(p.address, p.state.ammConfig, p.state.token0Vault, p.state.token1Vault, p.state.token0Mint, p.state.token1Mint, p.state.observationKey);
  for (const t of buildLookupTables(Keypair.generate().publicKey.toBase58(), BigInt(market.slot), addrs)) apply({ slot: market.slot, address: t.address, owner: t.owner, lamports: 1n, data: t.data, source: 'bench' });
  projection.drainChanged();

  const config = loadConfig({});
  const projections = { projection } as unknown as ProjectionService;
  const gateway = new SimChainGateway(() => projection);
  const service = new SwapService(projections, config, gateway);
  const wallet = Keypair.generate().publicKey.toBase58();
  gateway.fund(wallet, null, 10n ** 15n);

  const mints = market.tokens.map((t) => t.mint);
  const find = (hops: number): SwapParams => {
    for (const a of mints)
      for (const b of mints) {
        if (a === b || a === MINTS.SOL || b === MINTS.SOL) continue;
        const amount = 10n ** BigInt(Math.max(1, market.tokens.find((t) => t.mint === a)!.decimals - 1));
        try {
          const r = findBestRoute(projection, { inputMint: a, outputMint: b, amount, mode: 'ExactIn', maxHops: 5 });
          if (new Set(r.hops.map((h) => h.inputMint)).size === hops) {
            gateway.fund(wallet, a, amount * 10n);
            return { userWallet: wallet, inputMint: a, outputMint: b, amount, swapMode: 'ExactIn', slippageBps: 50 };
          }
        } catch {
          // next pair
        }
      }
    throw new Error(`no ${hops}-hop route`);
  };

  const time = async (f: () => unknown): Promise<number[]> => {
    for (let i = 0; i < 30; i++) await f();
    const out: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const t0 = process.hrtime.bigint();
      await f();
      out.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    return out;
  };

  const rows: BenchRow[] = [];
  for (const hops of [1, 3]) {
    const p = find(hops);
    const search = summarize(await time(() => findBestRoute(projection, { inputMint: p.inputMint, outputMint: p.outputMint, amount: p.amount, mode: 'ExactIn', maxHops: 5 })));
    rows.push({ metric: `route search alone (findBestRoute), ${hops}-hop route`, value: `p50 ${fmtMs(search.p50)}, p99 ${fmtMs(search.p99)}`, notes: `n=${search.n}; part of every row below` });
    const ins = summarize(await time(() => service.instructions(p)));
    const sw = summarize(await time(() => service.swap({ ...p, skipSimulation: true })));
    const sim = summarize(await time(() => service.swap({ ...p, skipSimulation: false })));
    const target = hops === 3 ? 'p99 ≤ 10 ms' : undefined;
    rows.push(
      { metric: `/instructions, ${hops}-hop route`, value: `p50 ${fmtMs(ins.p50)}, p99 ${fmtMs(ins.p99)}`, target, verdict: target ? verdict(ins.p99 <= 10) : '', notes: `n=${ins.n}` },
      { metric: `/swap skipSimulation, ${hops}-hop route`, value: `p50 ${fmtMs(sw.p50)}, p99 ${fmtMs(sw.p99)}`, target, verdict: target ? verdict(sw.p99 <= 10) : '', notes: `n=${sw.n}` },
      { metric: `/swap with sim-chain simulation, ${hops}-hop route`, value: `p50 ${fmtMs(sim.p50)}, p99 ${fmtMs(sim.p99)}`, notes: `n=${sim.n}` },
    );
  }
  rows.push(...(await overLimitRows()));
  return [
    {
      title: 'swap',
      description:
        'SwapService build latency on a projection of the simulated market (240 pools, 64 tokens, lookup tables covering the pools): route search + instructions (+ v0 compilation with lookup tables, + sim-chain simulation). Service-level, no HTTP. The last rows: requests whose best route is over the transaction limits (64 accounts, 1232 bytes) on the market of all six programs with lookup tables (seed 8, 150 pools), served by the fit ladder (every tighter shape searched, the best fitting route served).',
      rows,
    },
  ];
}
