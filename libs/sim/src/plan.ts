/**
 * The pool planner: which pairs get pools, in which program and fee tier, how deep. Every token
 * reaches SOL, USDC or USDT directly; then parallel pools (same pair, other tier or program),
 * second anchors and token↔token pools, until the count is reached; a few pools are deliberately
 * tiny. With Raydium CPMM as the only program the draws are exactly those of the original
 * CPMM-only market (same seed ⇒ same market as before).
 */
import type { SimContext } from './context';
import type { Prng } from './prng';
import type { PlannedPool, SimProgram, SimProgramName } from './programs/program';

export interface ProgramPlan extends PlannedPool {
  program: SimProgramName;
}

/** share of the general (non pump.fun) pools per program when several are enabled */
export const GENERAL_WEIGHTS: Readonly<Record<SimProgramName, number>> = {
  'raydium-cpmm': 0.24,
  'orca-whirlpool': 0.24,
  'raydium-clmm': 0.22,
  'raydium-amm-v4': 0.18,
  'pump-amm': 0.12,
  'pump-fun': 0,
};

/** chance that a planned pool takes its program's variant (CPMM creator fee, Whirlpool adaptive fee, CLMM 0.01% tier on a volatile pair) */
const VARIANT_CHANCE: Readonly<Record<SimProgramName, number>> = {
  'raydium-cpmm': 0.08,
  'orca-whirlpool': 0.35,
  'raydium-clmm': 0.15,
  'raydium-amm-v4': 0,
  'pump-amm': 0,
  'pump-fun': 0,
};

const SOL = 0;
const USDC = 1;
const USDT = 2;

export function planPools(ctx: SimContext, rng: Prng, count: number, programs: readonly SimProgram[]): ProgramPlan[] {
  const single = programs.length === 1;
  const plans: ProgramPlan[] = [];
  const taken = new Set<string>();
  const pairsByKey = new Map<string, [number, number]>();
  const pairKey = (a: number, b: number): string => (a < b ? `${a}:${b}` : `${b}:${a}`);
  const isStable = (i: number) => ctx.tokens[i].stable;
  const byName = new Map(programs.map((p) => [p.name, p]));

  /** a program (weighted among those that accept the pair) and its tier; null when none accepts */
  const pick = (a: number, b: number): [SimProgram, number] | null => {
    let prog: SimProgram;
    if (single) {
      prog = programs[0];
      if (!prog.accepts(ctx, a, b)) return null;
    } else {
      const ok = programs.filter((p) => GENERAL_WEIGHTS[p.name] > 0 && p.accepts(ctx, a, b));
      if (ok.length === 0) return null;
      prog = rng.weighted(ok, ok.map((p) => GENERAL_WEIGHTS[p.name]));
    }
    return [prog, prog.pickTier(rng, isStable(a) && isStable(b))];
  };
  const tryAdd = (a: number, b: number, choice: [SimProgram, number] | null, depthUsd: number, variantDraw = 1): boolean => {
    if (a === b || plans.length >= count || choice === null) return false;
    const [prog, tier] = choice;
    const key = `${pairKey(a, b)}:${prog.name}:${tier}`;
    if (taken.has(key)) return false;
    taken.add(key);
    pairsByKey.set(pairKey(a, b), [a, b]);
    plans.push({ program: prog.name, a, b, tier, depthUsd, tiny: false, variant: variantDraw < VARIANT_CHANCE[prog.name] });
    return true;
  };
  const depth = (): number => rng.logUniform(2_000, 20_000_000);
  const anchor = (): number => rng.weighted([SOL, USDC, USDT], [0.5, 0.35, 0.15]);
  const fixed = (name: SimProgramName, tier: number): [SimProgram, number] | null => {
    const p = byName.get(name);
    return p ? [p, tier] : null;
  };

  // the core: deep SOL/stable and stable/stable pools
  tryAdd(SOL, USDC, fixed('raydium-cpmm', 0), rng.logUniform(5_000_000, 20_000_000));
  tryAdd(SOL, USDT, fixed('raydium-cpmm', 0), rng.logUniform(2_000_000, 10_000_000));
  tryAdd(USDC, USDT, fixed('raydium-cpmm', 0), rng.logUniform(2_000_000, 10_000_000));
  tryAdd(SOL, USDC, fixed('raydium-cpmm', 1), rng.logUniform(200_000, 2_000_000));
  if (!single) {
    tryAdd(SOL, USDC, fixed('orca-whirlpool', 1), rng.logUniform(5_000_000, 20_000_000));
    tryAdd(USDC, USDT, fixed('orca-whirlpool', 0), rng.logUniform(2_000_000, 10_000_000));
    tryAdd(SOL, USDC, fixed('raydium-clmm', 1), rng.logUniform(2_000_000, 10_000_000));
    tryAdd(USDC, USDT, fixed('raydium-clmm', 0), rng.logUniform(1_000_000, 5_000_000));
    tryAdd(SOL, USDC, fixed('raydium-amm-v4', 0), rng.logUniform(2_000_000, 10_000_000));
    tryAdd(SOL, USDT, fixed('orca-whirlpool', 2), rng.logUniform(500_000, 2_000_000));
  }
  const core = plans.length;
  const general = ctx.tokens.length;
  // every generated token reaches SOL / USDC / USDT
  for (let t = 3; t < general; t++) {
    let a = anchor();
    let choice = pick(t, a);
    // a token no program takes against that anchor (e.g. Token-2022 with AMM v4 only) tries the others
    for (const alt of [SOL, USDC, USDT]) {
      if (choice !== null) break;
      a = alt;
      choice = pick(t, a);
    }
    const d = depth();
    tryAdd(t, a, choice, d, rng.next());
  }
  // then parallel pools, second anchors and token↔token pools until the count is reached
  const n = general;
  let misses = 0;
  while (plans.length < count && misses < 200) {
    const kind = rng.next();
    let ok: boolean;
    if (kind < 0.2 && pairsByKey.size > 0) {
      const pairs = [...pairsByKey.values()];
      const [a, b] = pairs[rng.int(0, pairs.length - 1)];
      const choice = pick(a, b);
      const d = depth();
      ok = tryAdd(a, b, choice, d, rng.next());
    } else if (kind < 0.45 || n <= 3) {
      const a = rng.int(0, n - 1);
      const b = anchor();
      const choice = pick(a, b); // drawn even when a === b (the draw sequence stays fixed)
      const d = depth();
      ok = tryAdd(a, b, choice, d, rng.next());
    } else {
      const a = rng.int(3, n - 1);
      const b = rng.int(3, n - 1);
      const choice = pick(a, b); // drawn even when a === b (the draw sequence stays fixed)
      const d = depth();
      ok = tryAdd(a, b, choice, d, rng.next());
    }
    misses = ok ? 0 : misses + 1;
  }
  // dense corner (few tokens, many pools): take what is left in a fixed order
  for (let a = 0; a < n && plans.length < count; a++) {
    for (let b = a + 1; b < n && plans.length < count; b++) {
      for (const prog of programs) {
        if (!prog.accepts(ctx, a, b)) continue;
        for (let tier = 0; tier < prog.tierWeights.length && plans.length < count; tier++) tryAdd(a, b, [prog, tier], depth());
      }
    }
  }
  // a few deliberately tiny pools (never the core ones)
  const tinyCount = plans.length - core >= 20 ? Math.max(2, Math.floor((plans.length - core) * 0.02)) : 0;
  for (let k = 0; k < tinyCount; k++) {
    const p = plans[rng.int(core, plans.length - 1)];
    p.tiny = true;
    p.depthUsd = rng.logUniform(5, 200);
  }
  return plans;
}
