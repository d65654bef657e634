import { controlledSearch, dexProgramId, parseDexList } from './route-controls';
import { routeControlsOf } from '../http/route-controls.dto';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import type { Pool } from '@app/amm';

const pool = (programId: string, mintA: string, mintB: string): Pool => ({ programId, mintA, mintB }) as unknown as Pool;
const X = 'X1111111111111111111111111111111111111111111';
const Y = 'Y1111111111111111111111111111111111111111111';

describe('route controls', () => {
  it('names dexes by label (any case) or program id; an unknown or empty name refuses the list', () => {
    expect(dexProgramId('raydium cpmm')).toBe(PROGRAM_IDS.raydiumCpmm);
    expect(dexProgramId(PROGRAM_IDS.pumpFun)).toBe(PROGRAM_IDS.pumpFun);
    expect(parseDexList('Orca Whirlpool, pump.fun')).toEqual([PROGRAM_IDS.orcaWhirlpool, PROGRAM_IDS.pumpFun]);
    expect(parseDexList(['PumpSwap', 'pumpswap'])).toEqual([PROGRAM_IDS.pumpSwapAmm]);
    expect(parseDexList('Orca,')).toBeNull();
    expect(parseDexList([])).toBeNull();
    expect(parseDexList(3)).toBeNull();
  });

  it('turns dexes, excludeDexes and restrictIntermediateTokens into one pool filter, onlyDirectRoutes and maxHops into the hop limit', () => {
    const liquid = new Set([MINTS.USDC]);
    const none = controlledSearch({}, 5, liquid, X, Y);
    expect(none).toEqual({ maxHops: 5, options: {} });
    expect(controlledSearch({ maxHops: 3 }, 5, liquid, X, Y).maxHops).toBe(3);
    expect(controlledSearch({ maxHops: 3, onlyDirectRoutes: true }, 5, liquid, X, Y).maxHops).toBe(1);
    const s = controlledSearch({ dexes: [PROGRAM_IDS.raydiumCpmm, PROGRAM_IDS.orcaWhirlpool], excludeDexes: [PROGRAM_IDS.orcaWhirlpool], restrictIntermediateTokens: true }, 5, liquid, X, Y);
    const keep = s.options.poolFilter!;
    expect(keep(pool(PROGRAM_IDS.raydiumCpmm, X, MINTS.USDC))).toBe(true);
    expect(keep(pool(PROGRAM_IDS.raydiumCpmm, X, Y))).toBe(true);
    expect(keep(pool(PROGRAM_IDS.orcaWhirlpool, X, Y))).toBe(false);
    expect(keep(pool(PROGRAM_IDS.raydiumClmm, X, Y))).toBe(false);
    // an intermediate outside the liquid set
    expect(keep(pool(PROGRAM_IDS.raydiumCpmm, X, MINTS.SOL))).toBe(false);
  });

  it('refuses maxHops above the configured MAX_HOPS', () => {
    expect(routeControlsOf({ maxHops: 3 }, 3)).toEqual({ maxHops: 3 });
    expect(() => routeControlsOf({ maxHops: 4 }, 3)).toThrow(expect.objectContaining({ error: 'invalid maxHops' }));
  });
});
