import { PoolQuoteError } from '@app/amm';
import { PumpAmmPool } from '@app/amm';
import { PumpFunCurve } from '@app/amm';
import { exactInWithTransferFees, exactOutWithTransferFees } from '@app/amm';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import { encodePumpAmmGlobalConfig, encodePumpAmmPool, type PumpAmmGlobalConfig, type PumpAmmPoolState } from '@app/solana';
import {
  DEFAULT_PUBKEY,
  PUMP_FEES_PROGRAM_ID,
  decodePumpBondingCurve,
  decodePumpGlobal,
  encodePumpBondingCurve,
  encodePumpFeeConfig,
  pumpBondingCurveAddress,
  type PumpFeeConfig,
} from '@app/solana';
import { encodeMint, encodeTokenAccount } from '@app/solana';
import { pumpAmmSharedAccounts } from './pump-amm.program';
import { pumpFunSharedAccounts } from './pump-fun.program';
import { Feed, fixtureAccount, testKey, transferFeeExtension, type RawAccount } from '../../../test/support/pool-fixtures';

function mint(address: string, decimals: number, supply: bigint, ext?: ReturnType<typeof transferFeeExtension>): RawAccount {
  const data = encodeMint({ mintAuthority: null, supply, decimals, isInitialized: true, freezeAuthority: null, ...(ext ? { extensions: [ext] } : {}) });
  return { address, owner: ext ? PROGRAM_IDS.token2022 : PROGRAM_IDS.token, data };
}
function tokenAcc(address: string, mintAddress: string, owner: string, amount: bigint, program: string = PROGRAM_IDS.token): RawAccount {
  const data = encodeTokenAccount({ mint: mintAddress, owner, amount, delegate: null, state: 'initialized', isNative: null, delegatedAmount: 0n, closeAuthority: null });
  return { address, owner: program, data };
}

const FEE_CONFIG: PumpFeeConfig = {
  bump: 255,
  admin: testKey(1),
  flatFees: { lpFeeBps: 25n, protocolFeeBps: 5n, creatorFeeBps: 0n },
  feeTiers: [
    { marketCapLamportsThreshold: 0n, fees: { lpFeeBps: 20n, protocolFeeBps: 5n, creatorFeeBps: 5n } },
    { marketCapLamportsThreshold: 10n ** 15n, fees: { lpFeeBps: 10n, protocolFeeBps: 5n, creatorFeeBps: 5n } },
  ],
  stableFeeTiers: [],
};
const feeConfigAcc = (program: string): RawAccount => ({
  address: program === PROGRAM_IDS.pumpFun ? pumpFunSharedAccounts().feeConfig : pumpAmmSharedAccounts().feeConfig,
  owner: PUMP_FEES_PROGRAM_ID,
  data: encodePumpFeeConfig(FEE_CONFIG),
});

// ---------------------------------------------------------------- PumpSwap

const GLOBAL_CONFIG: PumpAmmGlobalConfig = {
  admin: testKey(2),
  lpFeeBasisPoints: 20n,
  protocolFeeBasisPoints: 5n,
  disableFlags: 0,
  protocolFeeRecipients: Array(8).fill(testKey(3)),
  coinCreatorFeeBasisPoints: 5n,
  adminSetCoinCreatorAuthority: DEFAULT_PUBKEY,
  whitelistPda: DEFAULT_PUBKEY,
  reservedFeeRecipient: DEFAULT_PUBKEY,
  mayhemModeEnabled: false,
  reservedFeeRecipients: Array(7).fill(DEFAULT_PUBKEY),
  isCashbackEnabled: false,
  buybackFeeRecipients: Array(8).fill(DEFAULT_PUBKEY),
  buybackBasisPoints: 0n,
};
const POOL = testKey(201);
const BASE = testKey(202);
const POOL_STATE: PumpAmmPoolState = {
  poolBump: 254,
  index: 0,
  creator: testKey(203),
  baseMint: BASE,
  quoteMint: MINTS.SOL,
  lpMint: testKey(204),
  poolBaseTokenAccount: testKey(205),
  poolQuoteTokenAccount: testKey(206),
  lpSupply: 1_000_000_000n,
  coinCreator: testKey(207),
  isMayhemMode: false,
  isCashbackCoin: false,
};
const swapAccounts = (baseMint: RawAccount = mint(BASE, 6, 1_000_000_000_000_000n), baseProgram: string = PROGRAM_IDS.token): RawAccount[] => [
  { address: POOL, owner: PROGRAM_IDS.pumpSwapAmm, data: encodePumpAmmPool(POOL_STATE) },
  { address: pumpAmmSharedAccounts().globalConfig, owner: PROGRAM_IDS.pumpSwapAmm, data: encodePumpAmmGlobalConfig(GLOBAL_CONFIG) },
  feeConfigAcc(PROGRAM_IDS.pumpSwapAmm),
  tokenAcc(POOL_STATE.poolBaseTokenAccount, BASE, POOL, 200_000_000_000_000n, baseProgram),
  tokenAcc(POOL_STATE.poolQuoteTokenAccount, MINTS.SOL, POOL, 80_000_000_000n),
  baseMint,
  mint(MINTS.SOL, 9, 0n),
];

describe('PumpSwap venue', () => {
  const direct = new PumpAmmPool({
    address: POOL,
    pool: POOL_STATE,
    globalConfig: GLOBAL_CONFIG,
    feeConfig: FEE_CONFIG,
    baseVaultAmount: 200_000_000_000_000n,
    quoteVaultAmount: 80_000_000_000n,
    baseMintSupply: 1_000_000_000_000_000n,
    slot: 1,
  });

  it('a complete pool is routable and quotes exactly as PumpAmmPool (fee tier from the FeeConfig), both modes and directions', () => {
    const f = new Feed().put(swapAccounts());
    const pool = f.projection.pool(POOL) as PumpAmmPool;
    expect(pool).toBeInstanceOf(PumpAmmPool);
    expect(f.market(POOL)).toMatchObject({ routable: true, label: 'PumpSwap', mintA: BASE, mintB: MINTS.SOL });
    expect(pool.fees).toEqual(direct.fees);
    for (const amt of [10_000n, 1_000_000_000n, 5_000_000_000n]) {
      for (const m of [BASE, MINTS.SOL]) {
        const a = m === BASE ? amt * 1000n : amt;
        expect(pool.quoteExactIn(m, a)).toEqual(direct.quoteExactIn(m, a));
        expect(pool.quoteExactOut(m, amt)).toEqual(direct.quoteExactOut(m, amt));
      }
    }
  });

  it('a missing FeeConfig, GlobalConfig, pool token account or mint: unroutable with the reason', () => {
    const accounts = swapAccounts();
    const reasons = accounts.slice(1).map((drop) => new Feed().put(accounts.filter((a) => a !== drop)).market(POOL)!.reason);
    expect(reasons).toEqual([
      `missing GlobalConfig account ${pumpAmmSharedAccounts().globalConfig}`,
      `missing PumpSwap FeeConfig account ${pumpAmmSharedAccounts().feeConfig}`,
      `missing pool base token account account ${POOL_STATE.poolBaseTokenAccount}`,
      `missing pool quote token account account ${POOL_STATE.poolQuoteTokenAccount}`,
      `missing base mint account ${BASE}`,
      `missing quote mint account ${MINTS.SOL}`,
    ]);
    const wrongOwner = accounts.map((a) => (a.address === pumpAmmSharedAccounts().feeConfig ? { ...a, owner: PROGRAM_IDS.pumpFun } : a));
    expect(new Feed().put(wrongOwner).market(POOL)!.reason).toMatch(/^undecodable PumpSwap FeeConfig: .*wrong owner/);
  });

  it('a Token-2022 base mint with a transfer fee: quotes net of it both ways', () => {
    const ext = transferFeeExtension({ bps: 100, max: 10n ** 12n });
    const f = new Feed().put(swapAccounts(mint(BASE, 6, 1_000_000_000_000_000n, ext), PROGRAM_IDS.token2022));
    const pool = f.projection.pool(POOL) as PumpAmmPool;
    const fee = { bps: 100, maximumFee: 10n ** 12n };
    expect(pool.transferFeeA).toEqual(fee);
    expect(pool.quoteExactIn(MINTS.SOL, 1_000_000_000n)).toEqual(exactInWithTransferFees(1_000_000_000n, null, fee, (n) => direct.quoteExactIn(MINTS.SOL, n)));
    expect(pool.quoteExactIn(BASE, 10n ** 12n)).toEqual(exactInWithTransferFees(10n ** 12n, fee, null, (n) => direct.quoteExactIn(BASE, n)));
    expect(pool.quoteExactOut(MINTS.SOL, 10n ** 9n)).toEqual(exactOutWithTransferFees(10n ** 9n, null, fee, (g) => direct.quoteExactOut(MINTS.SOL, g)));
    expect(pool.quoteExactOut(BASE, 10n ** 9n)).toEqual(exactOutWithTransferFees(10n ** 9n, fee, null, (g) => direct.quoteExactOut(BASE, g)));
  });
});

// ---------------------------------------------------------------- pump.fun

describe('pump.fun venue', () => {
  const global = fixtureAccount('pumpfun/carbon_global_account.json', '4wTV1YmiEkRvAtNtsSGPtUrqRYQMe5SKy2uB4Jjaxnjf');
  const realCurve = fixtureAccount('pumpfun/carbon_bonding_curve_account.json', 'HWxwYxr4AV5ytUyT8pvjCEiUrXhwpbx365VpvQ6Bd6MZ');
  const curveState = decodePumpBondingCurve(realCurve.data, realCurve.owner);
  const TOKEN = testKey(301);
  const CURVE = pumpBondingCurveAddress(TOKEN);
  const live = { ...curveState, complete: false, realTokenReserves: curveState.realTokenReserves || 500_000_000_000_000n };
  const curveAcc = (c = live): RawAccount => ({ address: CURVE, owner: PROGRAM_IDS.pumpFun, data: encodePumpBondingCurve(c) });
  const ata = tokenAcc(testKey(302), TOKEN, CURVE, live.realTokenReserves);
  const accounts = (c = live): RawAccount[] => [curveAcc(c), global, feeConfigAcc(PROGRAM_IDS.pumpFun), ata, mint(TOKEN, 6, live.tokenTotalSupply)];

  it('the Global fixture is the real Global PDA', () => {
    expect(global.address).toBe(pumpFunSharedAccounts().global);
  });

  it('a live curve whose mint is proven by its token account is routable and quotes as PumpFunCurve', () => {
    const f = new Feed().put(accounts());
    const pool = f.projection.pool(CURVE) as PumpFunCurve;
    expect(pool).toBeInstanceOf(PumpFunCurve);
    expect(f.market(CURVE)).toMatchObject({ routable: true, label: 'pump.fun', kind: 'bonding-curve', mintA: TOKEN, mintB: MINTS.SOL });
    const direct = new PumpFunCurve({ address: CURVE, mint: TOKEN, curve: live, global: decodePumpGlobal(global.data, global.owner), feeConfig: FEE_CONFIG, slot: 1 });
    const outcome = (f: () => unknown): unknown => {
      try {
        return f();
      } catch (e) {
        return { error: (e as Error).message };
      }
    };
    let quoted = 0;
    for (const amt of [100_000n, 1_000_000n, 1_000_000_000n]) {
      for (const m of [MINTS.SOL, TOKEN]) {
        const x = outcome(() => pool.quoteExactIn(m, amt));
        expect(x).toEqual(outcome(() => direct.quoteExactIn(m, amt)));
        expect(outcome(() => pool.quoteExactOut(m, amt))).toEqual(outcome(() => direct.quoteExactOut(m, amt)));
        if (!('error' in (x as object))) quoted++;
      }
    }
    expect(quoted).toBeGreaterThanOrEqual(4);
  });

  it('the token account may arrive after the curve: the pool becomes routable then', () => {
    const f = new Feed().put(accounts().filter((a) => a !== ata));
    expect(f.market(CURVE)!.reason).toBe("the curve's mint is unknown: no token account owned by the curve whose mint derives it");
    f.put([ata], 2);
    expect(f.projection.pool(CURVE)).toBeInstanceOf(PumpFunCurve);
  });

  it('a token account owned by the curve whose mint does not derive the curve proves nothing', () => {
    const fake = tokenAcc(testKey(303), testKey(304), CURVE, 1n);
    const f = new Feed().put([...accounts().filter((a) => a !== ata), fake]);
    expect(f.market(CURVE)!.routable).toBe(false);
  });

  it('a complete curve does not trade: unroutable with the reason', () => {
    const f = new Feed().put(accounts({ ...live, complete: true }));
    expect(f.market(CURVE)).toMatchObject({ routable: false, mintA: TOKEN, mintB: MINTS.SOL });
    expect(f.market(CURVE)!.reason).toMatch(/^not quotable: the bonding curve is complete/);
    expect(f.projection.poolsOf(TOKEN)).toHaveLength(0);
  });

  it('missing Global, FeeConfig or mint: unroutable with the reason; the real curve fixture without its mint is unroutable', () => {
    const all = accounts();
    expect(new Feed().put(all.filter((a) => a !== global)).market(CURVE)!.reason).toBe(`missing Global account ${global.address}`);
    expect(new Feed().put(all.slice(0, 4)).market(CURVE)!.reason).toBe(`missing token mint account ${TOKEN}`);
    expect(new Feed().put([all[0], all[1], all[3], all[4]]).market(CURVE)!.reason).toBe(
      `missing pump.fun FeeConfig account ${pumpFunSharedAccounts().feeConfig}`,
    );
    const f = new Feed().put([realCurve, global]);
    expect(f.market(realCurve.address)!.routable).toBe(false);
    expect(f.market(realCurve.address)!.reason).toMatch(/mint is unknown/);
  });

  it('a quote past the real token reserves fails rather than guessing', () => {
    const pool = new Feed().put(accounts()).projection.pool(CURVE)!;
    expect(() => pool.quoteExactOut(MINTS.SOL, live.realTokenReserves + 1n)).toThrow(PoolQuoteError);
  });
});
