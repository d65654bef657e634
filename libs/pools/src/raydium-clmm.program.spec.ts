import { ClmmPool, clmmTickArrayStartIndexes } from '@app/amm';
import { buildSyntheticClmm, type SyntheticClmm } from '@app/amm/programs/raydium-clmm/synthetic';
import { exactInWithTransferFees, exactOutWithTransferFees } from '@app/amm';
import { PROGRAM_IDS } from '@app/solana';
import {
  clmmBitmapExtensionAddress,
  clmmTickArrayAddress,
  decodeClmmPoolState,
  encodeClmmAmmConfig,
  encodeClmmPoolState,
  encodeClmmTickArrayBitmapExtension,
  encodeClmmTickArrayState,
} from '@app/solana';
import { encodeMint } from '@app/solana';
import { Feed, fixtureAccount, testKey, transferFeeExtension, type RawAccount } from '../../../test/support/pool-fixtures';

const POOL = testKey(101);
const CONFIG = testKey(102);
const M0 = testKey(103);
const M1 = testKey(104);
const CLMM = PROGRAM_IDS.raydiumClmm;

const s: SyntheticClmm = buildSyntheticClmm({
  address: POOL,
  mint0: M0,
  mint1: M1,
  ammConfig: CONFIG,
  tickSpacing: 10,
  tickCurrent: 5,
  positions: [
    { tickLower: -3000, tickUpper: 3000, liquidity: 5_000_000_000n },
    { tickLower: -100, tickUpper: 100, liquidity: 8_000_000_000n },
    { tickLower: -700, tickUpper: 1300, liquidity: 2_000_000_000n },
  ],
  tradeFeeRate: 2500,
});

function mint(address: string, decimals: number, ext?: ReturnType<typeof transferFeeExtension>): RawAccount {
  const data = encodeMint({ mintAuthority: null, supply: 10n ** 15n, decimals, isInitialized: true, freezeAuthority: null, ...(ext ? { extensions: [ext] } : {}) });
  return { address, owner: ext ? PROGRAM_IDS.token2022 : PROGRAM_IDS.token, data };
}

const poolAcc: RawAccount = { address: POOL, owner: CLMM, data: encodeClmmPoolState(s.state) };
const configAcc: RawAccount = { address: CONFIG, owner: CLMM, data: encodeClmmAmmConfig(s.config) };
const extAcc: RawAccount = { address: clmmBitmapExtensionAddress(POOL), owner: CLMM, data: encodeClmmTickArrayBitmapExtension(s.extension) };
const arrayAccs: RawAccount[] = s.tickArrays.map((t) => ({ address: clmmTickArrayAddress(POOL, t.startTickIndex), owner: CLMM, data: encodeClmmTickArrayState(t) }));
const all = (): RawAccount[] => [poolAcc, configAcc, extAcc, ...arrayAccs, mint(M0, 9), mint(M1, 6)];
/** the arrays the venue loads: the initialized ones found through the bitmaps, 3 each way */
const loaded = new Set(clmmTickArrayStartIndexes(s.state, s.extension));
const direct = new ClmmPool({
  address: POOL,
  state: s.state,
  config: s.config,
  extension: s.extension,
  tickArrays: s.tickArrays.filter((t) => loaded.has(t.startTickIndex)),
  slot: 1,
});
const current = s.tickArrays.find((t) => t.startTickIndex === 0)!;

function outcome(f: () => unknown): unknown {
  try {
    return f();
  } catch (e) {
    return { error: (e as Error).message };
  }
}

describe('Raydium CLMM venue', () => {
  it('a complete synthetic pool is routable and quotes exactly as ClmmPool, both modes and directions', () => {
    const f = new Feed().put(all());
    const pool = f.projection.pool(POOL) as ClmmPool;
    expect(pool).toBeInstanceOf(ClmmPool);
    expect(f.market(POOL)).toMatchObject({ routable: true, label: 'Raydium CLMM', mintA: M0, mintB: M1 });
    let quoted = 0;
    for (const amt of [1_000n, 1_000_000n, 200_000_000n, 900_000_000n]) {
      for (const m of [M0, M1]) {
        const x = outcome(() => pool.quoteExactIn(m, amt));
        expect(x).toEqual(outcome(() => direct.quoteExactIn(m, amt)));
        expect(outcome(() => pool.quoteExactOut(m, amt))).toEqual(outcome(() => direct.quoteExactOut(m, amt)));
        if (!('error' in (x as object))) quoted++;
      }
    }
    expect(quoted).toBeGreaterThanOrEqual(6);
    expect(loaded.size).toBeLessThan(s.tickArrays.length); // some arrays are beyond the loaded window
    expect(() => pool.quoteExactIn(M0, 10n ** 17n)).toThrow(/which is not loaded/);
  });

  it('a missing initialized tick array, AmmConfig, bitmap extension or mint: unroutable with the reason, routable once it arrives', () => {
    const cases: [RawAccount, RegExp][] = [
      [arrayAccs.find((a) => a.address === clmmTickArrayAddress(POOL, 0))!, /^missing initialized tick array \(start -?\d+\) account /],
      [configAcc, new RegExp(`^missing AmmConfig account ${CONFIG}$`)],
      [extAcc, /^missing TickArrayBitmapExtension account /],
      [mint(M1, 6), new RegExp(`^missing token1 mint account ${M1}$`)],
    ];
    for (const [drop, reason] of cases) {
      const f = new Feed().put(all().filter((a) => a.address !== drop.address));
      expect(f.projection.pool(POOL)).toBeUndefined();
      expect(f.market(POOL)).toMatchObject({ routable: false, mintA: M0, mintB: M1 });
      expect(f.market(POOL)!.reason).toMatch(reason);
      f.put([drop], 2);
      expect(f.projection.pool(POOL)).toBeInstanceOf(ClmmPool);
    }
  });

  it('an AmmConfig under the wrong owner or a tick array of another pool: unroutable with the reason', () => {
    let f = new Feed().put(all().map((a) => (a.address === CONFIG ? { ...a, owner: PROGRAM_IDS.raydiumCpmm } : a)));
    expect(f.market(POOL)!.reason).toMatch(/^undecodable AmmConfig: .*wrong owner/);
    const other = encodeClmmTickArrayState({ ...current, poolId: testKey(999) });
    f = new Feed().put(all().map((a) => (a.address === clmmTickArrayAddress(POOL, 0) ? { ...a, data: other } : a)));
    expect(f.market(POOL)!.reason).toMatch(new RegExp(`belongs to pool ${testKey(999)}$`));
  });

  it('a Token-2022 transfer fee on token1 applies to both modes', () => {
    const ext = transferFeeExtension({ bps: 250, max: 1_000_000n });
    const f = new Feed().put([...all().filter((a) => a.address !== M1), mint(M1, 6, ext)]);
    const pool = f.projection.pool(POOL) as ClmmPool;
    const fee = { bps: 250, maximumFee: 1_000_000n };
    expect(pool.transferFeeB).toEqual(fee);
    expect(pool.quoteExactIn(M0, 50_000_000n)).toEqual(exactInWithTransferFees(50_000_000n, null, fee, (n) => direct.quoteExactIn(M0, n)));
    expect(pool.quoteExactIn(M1, 50_000_000n)).toEqual(exactInWithTransferFees(50_000_000n, fee, null, (n) => direct.quoteExactIn(M1, n)));
    expect(pool.quoteExactOut(M0, 50_000_000n)).toEqual(exactOutWithTransferFees(50_000_000n, null, fee, (g) => direct.quoteExactOut(M0, g)));
    expect(pool.quoteExactOut(M1, 50_000_000n)).toEqual(exactOutWithTransferFees(50_000_000n, fee, null, (g) => direct.quoteExactOut(M1, g)));
    expect(pool.quoteExactIn(M0, 50_000_000n).amountOut).toBeLessThan(direct.quoteExactIn(M0, 50_000_000n).amountOut);
  });

  it('the real PoolState fixture with its real AmmConfig but none of its tick arrays, extension or mints is unroutable, not guessed', () => {
    const address = 'AcPS8SrzXDwPxk6LLz2tykwFEsSeD5LtctMLVeh2shq8';
    const p = fixtureAccount('raydium-clmm/carbon_pool_state_account.json', address);
    const cfg = fixtureAccount('raydium-clmm/carbon_amm_config_account.json', '9iFER3bpjf1PTTCQCfTRu17EJgvsxo9pVyA9QWwEuX4x');
    const foreignArray = fixtureAccount('raydium-clmm/carbon_tick_array_state_account.json', 'HBytvMypGaPRENK9w9HmtFeNLr9xCHvPamcCiiYsYvqY');
    const state = decodeClmmPoolState(p.data, p.owner, address);
    const f = new Feed().put([p, cfg, foreignArray]);
    const m = f.market(address)!;
    expect(m).toMatchObject({ routable: false, label: 'Raydium CLMM', mintA: state.tokenMint0, mintB: state.tokenMint1 });
    expect(m.reason).toBe(
      state.tickSpacing < 15
        ? `missing TickArrayBitmapExtension account ${clmmBitmapExtensionAddress(address)}`
        : `missing token0 mint account ${state.tokenMint0}`,
    );
    expect(f.projection.stats.routablePools).toBe(0);
  });
});
