/**
 * Differential test of the PumpSwap (pump AMM) swap INSTRUCTIONS: our builder
 * (libs/solana/src/instructions/programs.ts pumpAmmSwap) against the official SDK
 * (`@pump-fun/pump-swap-sdk` PUMP_AMM_SDK: buyInstructions for `buy`, sellInstructions for
 * `sell`; it has no builder for `buy_exact_quote_in`, which we emit for ExactIn buys: that one is
 * built with the SDK's own Anchor program client and IDL (sdkInternals.offlineProgram), its
 * accounts resolved by the SDK's swapAccounts and the remaining accounts its buy appends).
 *
 * There are no PumpSwap account dumps among the fixtures: the Pool and GlobalConfig are
 * synthetic, encoded with our encoders (the program's byte layout) and decoded by each side
 * itself (our decodePumpAmmPool / decodePumpAmmGlobalConfig, the SDK's decodePool /
 * decodeGlobalConfig). Pools: a canonical SOL-quoted one with a coin creator, a cashback coin, one
 * without coin creator, a mayhem-mode one (paid to a reserved fee recipient), one with a
 * Token-2022 base. Both directions, every variant (buy = ExactOut buy, buy_exact_quote_in =
 * ExactIn buy, sell). The SDK picks its fee recipients at random (Math.random over the config's
 * lists): the test fixes Math.random, and gives ours the same recipient when it is not our default
 * (the first one). Compared: program id, data bytes, every account meta in order.
 *
 * Documented differences:
 *  - Remaining accounts (pump public docs, BREAKING_FEE_RECIPIENT.md, upgrade of 2026-04-28, and
 *    PUMP_CASHBACK_README.md): after the IDL's accounts a buy / sell now takes [the cashback
 *    accounts of a cashback coin: the quote ATA of the user's AMM volume accumulator, for a sell
 *    also the accumulator], [pool-v2 when the pool has a coin creator], a buyback fee recipient
 *    (read-only) and its quote ATA (writable). The SDK appends them; our builder appends them with
 *    `withRemainingAccounts: true` (identical to the SDK then), which the router passes for every
 *    PumpSwap hop (apps/router/src/swap/swap-builder.ts). Without the option the builder emits
 *    the IDL's accounts only, a form the program rejects since the upgrade: the test pins that
 *    this is the SDK's instruction without those trailing accounts.
 *  - track_volume (the OptionBool after the two amounts of buy / buy_exact_quote_in): the SDK
 *    sends Some(true), we send false: no volume tracking for the user (no token incentives
 *    accrue; the program needs no user volume accumulator to be created for it). Only that last
 *    data byte differs.
 * This spec is the only kind of place that imports the SDK: a devDependency, never product code.
 */
import { Keypair, PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { flat } from '../support/flat-instruction';
import { PUMP_AMM_SDK, poolV2Pda, userVolumeAccumulatorPda } from '@pump-fun/pump-swap-sdk';
import { getAssociatedTokenAddressSync, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import {
  decodePumpAmmGlobalConfig,
  decodePumpAmmPool,
  encodePumpAmmGlobalConfig,
  encodePumpAmmPool,
  type PumpAmmGlobalConfig,
  type PumpAmmPoolState,
} from '@app/solana';
import { DEFAULT_PUBKEY } from '@app/solana';
import { associatedTokenAddress } from '@app/solana';
import { pumpAmmSwap, pumpAmmPoolV2, pumpAmmUserVolumeAccumulator, PUMP_BUYBACK_FEE_RECIPIENTS, type SwapDirection } from '@app/solana';

// the SDK's own bn.js (no types here)
// eslint-disable-next-line @typescript-eslint/no-require-imports
const BN: new (v: string) => unknown = require('bn.js');
const bn = (v: bigint) => new BN(v.toString()) as never;


/** the SDK's Anchor client and account resolution (private in its typings, public in its code) */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const sdkInternals = PUMP_AMM_SDK as unknown as { offlineProgram: any; swapAccounts(state: never): any };

const key = (seed: number): string => Keypair.fromSeed(new Uint8Array(32).fill(seed)).publicKey.toBase58();
const keys = (from: number, n: number): string[] => Array.from({ length: n }, (_, i) => key(from + i));
const wallet = key(1);
const DISC = {
  buy: Buffer.from(sdkInternals.offlineProgram.coder.instruction.encode('buy', { baseAmountOut: bn(0n), maxQuoteAmountIn: bn(0n), trackVolume: { 0: false } }).subarray(0, 8)).toString('hex'),
};

const config: PumpAmmGlobalConfig = {
  admin: key(2),
  lpFeeBasisPoints: 20n,
  protocolFeeBasisPoints: 5n,
  disableFlags: 0,
  protocolFeeRecipients: keys(10, 8),
  coinCreatorFeeBasisPoints: 5n,
  adminSetCoinCreatorAuthority: key(3),
  whitelistPda: key(4),
  reservedFeeRecipient: key(20),
  mayhemModeEnabled: true,
  reservedFeeRecipients: keys(21, 7),
  isCashbackEnabled: true,
  buybackFeeRecipients: [...PUMP_BUYBACK_FEE_RECIPIENTS],
  buybackBasisPoints: 10n,
};

function pool(over: Partial<PumpAmmPoolState>): PumpAmmPoolState {
  return {
    poolBump: 254,
    index: 0,
    creator: key(30),
    baseMint: key(31),
    quoteMint: MINTS.SOL,
    lpMint: key(32),
    poolBaseTokenAccount: key(33),
    poolQuoteTokenAccount: key(34),
    lpSupply: 4_000_000_000n,
    coinCreator: key(35),
    isMayhemMode: false,
    isCashbackCoin: false,
    ...over,
  };
}

const CASES: { name: string; state: PumpAmmPoolState; baseProgram: PublicKey }[] = [
  { name: 'SOL-quoted pool with a coin creator', state: pool({}), baseProgram: TOKEN_PROGRAM_ID },
  { name: 'cashback coin', state: pool({ isCashbackCoin: true, baseMint: key(41) }), baseProgram: TOKEN_PROGRAM_ID },
  { name: 'no coin creator (no pool-v2)', state: pool({ coinCreator: DEFAULT_PUBKEY, baseMint: key(42) }), baseProgram: TOKEN_PROGRAM_ID },
  { name: 'mayhem mode (reserved fee recipient)', state: pool({ isMayhemMode: true, baseMint: key(43) }), baseProgram: TOKEN_2022_PROGRAM_ID },
  { name: 'Token-2022 base, USDC quote, cashback', state: pool({ baseMint: key(44), quoteMint: MINTS.USDC, isCashbackCoin: true }), baseProgram: TOKEN_2022_PROGRAM_ID },
];

const AMOUNTS: [bigint, bigint][] = [
  [1n, 1n],
  [1_000_000_000n, 2_500_000n],
  [(1n << 64n) - 1n, (1n << 63n) + 1n],
];

const configBytes = encodePumpAmmGlobalConfig(config);
const sdkConfig = PUMP_AMM_SDK.decodeGlobalConfig({ data: configBytes, owner: new PublicKey(PROGRAM_IDS.pumpSwapAmm), lamports: 1, executable: false });
const ourConfig = decodePumpAmmGlobalConfig(configBytes, PROGRAM_IDS.pumpSwapAmm);

afterEach(() => jest.restoreAllMocks());

describe('PumpSwap swap instructions vs @pump-fun/pump-swap-sdk (buyInstructions, sellInstructions, its Anchor client for buy_exact_quote_in)', () => {
  it('both sides decode the synthetic GlobalConfig alike', () => {
    expect(sdkConfig.protocolFeeRecipients.map((k: PublicKey) => k.toBase58())).toEqual(ourConfig.protocolFeeRecipients);
    expect(sdkConfig.buybackFeeRecipients.map((k: PublicKey) => k.toBase58())).toEqual(ourConfig.buybackFeeRecipients);
    expect([sdkConfig.reservedFeeRecipient, ...sdkConfig.reservedFeeRecipients].map((k: PublicKey) => k.toBase58())).toEqual([ourConfig.reservedFeeRecipient, ...ourConfig.reservedFeeRecipients]);
  });

  for (const c of CASES) {
    describe(c.name, () => {
      const poolKey = new PublicKey(key(50 + CASES.indexOf(c)));
      // the pool account as extended on chain (300 bytes: the SDK prepends extend_account below that)
      const poolBytes = encodePumpAmmPool(c.state, 300);
      const ours = decodePumpAmmPool(poolBytes, PROGRAM_IDS.pumpSwapAmm, poolKey.toBase58());
      const sdkPool = PUMP_AMM_SDK.decodePool({ data: poolBytes, owner: new PublicKey(PROGRAM_IDS.pumpSwapAmm), lamports: 1, executable: false });
      const quoteProgram = TOKEN_PROGRAM_ID;
      const userKey = new PublicKey(wallet);
      const userBase = getAssociatedTokenAddressSync(sdkPool.baseMint, userKey, true, c.baseProgram);
      const userQuote = getAssociatedTokenAddressSync(sdkPool.quoteMint, userKey, true, quoteProgram);
      const existing = (owner: PublicKey) => ({ data: Buffer.alloc(165), owner, lamports: 2_039_280, executable: false });
      const state = {
        globalConfig: sdkConfig,
        feeConfig: null,
        poolKey,
        poolAccountInfo: { data: poolBytes, owner: new PublicKey(PROGRAM_IDS.pumpSwapAmm), lamports: 1, executable: false },
        pool: sdkPool,
        poolBaseAmount: bn(10n ** 15n),
        poolQuoteAmount: bn(10n ** 12n),
        baseTokenProgram: c.baseProgram,
        quoteTokenProgram: quoteProgram,
        baseMint: sdkPool.baseMint,
        baseMintAccount: {} as never,
        user: userKey,
        userBaseTokenAccount: userBase,
        userQuoteTokenAccount: userQuote,
        userBaseAccountInfo: existing(c.baseProgram),
        userQuoteAccountInfo: existing(quoteProgram),
      };

      const variants: { name: string; buy: boolean; mode: SwapDirection }[] = [
        { name: 'buy (ExactOut)', buy: true, mode: 'ExactOut' },
        { name: 'buy_exact_quote_in (ExactIn)', buy: true, mode: 'ExactIn' },
        { name: 'sell', buy: false, mode: 'ExactIn' },
      ];
      for (const v of variants) {
        for (const rnd of [0, 0.99]) {
          it(`${v.name}, SDK's random pick ${rnd}: identical with the remaining accounts but track_volume; the IDL-only form lacks them`, async () => {
            jest.spyOn(Math, 'random').mockReturnValue(rnd);
            const user = v.buy
              ? { wallet, source: associatedTokenAddress(wallet, ours.quoteMint, quoteProgram.toBase58()), destination: associatedTokenAddress(wallet, ours.baseMint, c.baseProgram.toBase58()) }
              : { wallet, source: associatedTokenAddress(wallet, ours.baseMint, c.baseProgram.toBase58()), destination: associatedTokenAddress(wallet, ours.quoteMint, quoteProgram.toBase58()) };
            const sdkAccounts = sdkInternals.swapAccounts(state as never);
            for (const [amount, threshold] of AMOUNTS) {
              let sdkIx: TransactionInstruction;
              if (v.buy && v.mode === 'ExactOut') {
                const ixs = await PUMP_AMM_SDK.buyInstructions(state as never, bn(amount), bn(threshold));
                const swaps = ixs.filter((x) => x.programId.toBase58() === PROGRAM_IDS.pumpSwapAmm);
                expect(swaps).toHaveLength(1);
                sdkIx = swaps[0];
              } else if (!v.buy) {
                const ixs = await PUMP_AMM_SDK.sellInstructions(state as never, bn(amount), bn(threshold));
                const swaps = ixs.filter((x) => x.programId.toBase58() === PROGRAM_IDS.pumpSwapAmm);
                expect(swaps).toHaveLength(1);
                sdkIx = swaps[0];
              } else {
                // no SDK builder: its Anchor client, its swapAccounts, the remaining accounts its buy appends
                const remaining = [
                  ...(sdkPool.isCashbackCoin
                    ? [{ pubkey: getAssociatedTokenAddressSync(sdkPool.quoteMint, userVolumeAccumulatorPda(userKey), true, quoteProgram), isWritable: true, isSigner: false }]
                    : []),
                  ...(sdkPool.coinCreator.equals(PublicKey.default) ? [] : [{ pubkey: poolV2Pda(sdkPool.baseMint), isWritable: false, isSigner: false }]),
                  { pubkey: sdkAccounts.buybackFeeRecipient, isWritable: false, isSigner: false },
                  { pubkey: sdkAccounts.buybackFeeRecipientTokenAccount, isWritable: true, isSigner: false },
                ];
                sdkIx = await sdkInternals.offlineProgram.methods
                  .buyExactQuoteIn(bn(amount), bn(threshold), { 0: true })
                  .accounts(sdkAccounts as never)
                  .remainingAccounts(remaining)
                  .instruction();
              }
              const theirs = flat(sdkIx);
              const pick = { protocolFeeRecipient: sdkAccounts.protocolFeeRecipient.toBase58(), buybackFeeRecipient: sdkAccounts.buybackFeeRecipient.toBase58() };
              const args = {
                pool: poolKey.toBase58(),
                state: ours,
                globalConfig: ourConfig,
                inputMint: v.buy ? ours.quoteMint : ours.baseMint,
                mode: v.mode,
                amount,
                threshold,
                user,
                baseTokenProgram: c.baseProgram.toBase58(),
                quoteTokenProgram: quoteProgram.toBase58(),
              };
              // our default recipients are the SDK's index-0 picks (mayhem: the reserved one)
              const mine = flat(pumpAmmSwap({ ...args, withRemainingAccounts: true, ...(rnd === 0 ? {} : pick) }));
              if (rnd === 0) expect(pick).toEqual({ protocolFeeRecipient: c.state.isMayhemMode ? config.reservedFeeRecipient : config.protocolFeeRecipients[0], buybackFeeRecipient: PUMP_BUYBACK_FEE_RECIPIENTS[0] });

              // documented: track_volume, the last data byte of a buy: the SDK Some(true), ours false
              if (v.buy) {
                expect(theirs.data.slice(-2)).toBe('01');
                expect(mine.data.slice(-2)).toBe('00');
                expect({ ...mine, data: mine.data.slice(0, -2) }).toEqual({ ...theirs, data: theirs.data.slice(0, -2) });
              } else {
                expect(mine).toEqual(theirs);
              }
              if (v.buy && v.mode === 'ExactOut') expect(mine.data.slice(0, 16)).toBe(DISC.buy);

              // the remaining accounts, as the docs count them
              const base = v.buy ? 23 : 21;
              const extra = (c.state.isCashbackCoin ? (v.buy ? 1 : 2) : 0) + (c.state.coinCreator === DEFAULT_PUBKEY ? 0 : 1) + 2;
              expect(mine.keys).toHaveLength(base + extra);
              if (c.state.isCashbackCoin) expect(mine.keys[base].pubkey).toBe(associatedTokenAddress(pumpAmmUserVolumeAccumulator(wallet), ours.quoteMint, quoteProgram.toBase58()));
              if (c.state.coinCreator !== DEFAULT_PUBKEY) expect(mine.keys).toContainEqual({ pubkey: pumpAmmPoolV2(ours.baseMint), isSigner: false, isWritable: false });

              // documented: the form without the option is the SDK's without the remaining accounts
              const idlForm = flat(pumpAmmSwap({ ...args, ...(rnd === 0 ? {} : pick) }));
              expect(idlForm.keys).toEqual(mine.keys.slice(0, base));
              expect(idlForm.data).toBe(mine.data);
            }
          });
        }
      }
    });
  }
});
