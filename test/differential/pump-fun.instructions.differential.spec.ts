/**
 * Differential test of the pump.fun bonding-curve swap INSTRUCTIONS: our builder
 * (libs/solana/src/instructions/programs.ts pumpFunSwap) against the official SDK
 * (`@pump-fun/pump-sdk` PUMP_SDK: getBuyInstructionRaw for `buy`, getSellInstructionRaw for
 * `sell`, the builders its buyInstructions / sellInstructions call; it has no builder for
 * `buy_exact_sol_in`, which we emit for ExactIn buys: that one is built with the SDK's own Anchor
 * program client and IDL (PUMP_SDK.offlinePumpProgram) with the accounts and remaining accounts
 * its buy passes). Curves: the real mainnet BondingCurve and Global in ../shared/fixtures/pumpfun
 * (its creator, the Global's fee recipient; the curve's mint is not recorded, so the mint is a
 * fixed synthetic key and the curve address is derived from it on both sides), a cashback coin
 * and a Token-2022 (create_v2) coin. Every variant: buy (ExactOut), buy_exact_sol_in (ExactIn),
 * sell. Compared: program id, data bytes, every account meta in order.
 *
 * Documented differences:
 *  - Remaining accounts (pump public docs, BREAKING_FEE_RECIPIENT.md, upgrade of 2026-04-28, and
 *    PUMP_CASHBACK_README.md): after the IDL's accounts every buy and sell now takes
 *    bonding-curve-v2 (["bonding-curve-v2", mint], read-only) and one of the 8 buyback fee
 *    recipients (writable): 18 accounts for a buy, 16 for a sell, 17 for the sell of a cashback
 *    coin, whose user volume accumulator (writable) comes first. The SDK appends them; our
 *    builder appends them with `withRemainingAccounts: true` (identical to the SDK then), which
 *    the router passes for every pump.fun hop (apps/router/src/swap/swap-builder.ts). Without the
 *    option the builder emits the IDL's accounts only, a form the program rejects since the
 *    upgrade: the test pins that this is the SDK's instruction without those trailing accounts.
 *  - track_volume (the OptionBool after the two amounts of buy / buy_exact_sol_in): the SDK sends
 *    Some(true), we send false (no volume tracking for token incentives). Only that last data
 *    byte differs.
 *  - The fee recipient is the caller's choice on both sides (the SDK's buyInstructions picks one
 *    at random from Global.feeRecipient(s), or from the reserved ones for a mayhem-mode coin); the
 *    test gives both the same.
 * This spec is the only kind of place that imports the SDK: a devDependency, never product code.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Keypair, PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { flat } from '../support/flat-instruction';
import { PUMP_SDK, bondingCurveV2Pda, creatorVaultPda } from '@pump-fun/pump-sdk';
import { getAssociatedTokenAddressSync, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import { decodePumpBondingCurve, decodePumpGlobal, type PumpBondingCurve } from '@app/solana';
import { associatedTokenAddress } from '@app/solana';
import { pumpFunBondingCurveV2, pumpFunSwap, pumpFunUserVolumeAccumulator, PUMP_BUYBACK_FEE_RECIPIENTS, type SwapDirection } from '@app/solana';

// the SDK's own bn.js (no types here)
// eslint-disable-next-line @typescript-eslint/no-require-imports
const BN: new (v: string) => unknown = require('bn.js');
const bn = (v: bigint) => new BN(v.toString()) as never;

const DIR = path.resolve(__dirname, '../..', '..', 'shared', 'fixtures', 'pumpfun');


function accountData(file: string): Buffer {
  const j = JSON.parse(fs.readFileSync(path.join(DIR, file), 'utf8'));
  const d = j.account?.data ?? j.data;
  if (typeof d === 'string') return Buffer.from(d, 'base64');
  if (Array.isArray(d) && typeof d[0] === 'string') return Buffer.from(d[0], 'base64');
  return Buffer.from(d as number[]);
}

const key = (seed: number): string => Keypair.fromSeed(new Uint8Array(32).fill(seed)).publicKey.toBase58();
const wallet = key(1);
const walletKey = new PublicKey(wallet);

const curveBytes = accountData('carbon_bonding_curve_account.json');
const globalBytes = accountData('carbon_global_account.json');
const realCurve = decodePumpBondingCurve(curveBytes, PROGRAM_IDS.pumpFun);
const realGlobal = decodePumpGlobal(globalBytes, PROGRAM_IDS.pumpFun);

const CASES: { name: string; mint: string; curve: PumpBondingCurve; tokenProgram: PublicKey }[] = [
  { name: 'mainnet curve (its creator) and Global (its fee recipient)', mint: key(40), curve: realCurve, tokenProgram: TOKEN_PROGRAM_ID },
  { name: 'cashback coin', mint: key(41), curve: { ...realCurve, isCashbackCoin: true, creator: key(51) }, tokenProgram: TOKEN_PROGRAM_ID },
  { name: 'Token-2022 (create_v2) coin', mint: key(42), curve: { ...realCurve, creator: key(52) }, tokenProgram: TOKEN_2022_PROGRAM_ID },
];

const AMOUNTS: [bigint, bigint][] = [
  [1n, 1n],
  [35_000_000_000n, 1_000_000_000n],
  [(1n << 64n) - 1n, (1n << 63n) + 1n],
];

describe('pump.fun swap instructions vs @pump-fun/pump-sdk (getBuyInstructionRaw, getSellInstructionRaw, its Anchor client for buy_exact_sol_in)', () => {
  it('both sides read the mainnet BondingCurve alike; the SDK derives the same bonding-curve-v2', () => {
    const sdkCurve = PUMP_SDK.decodeBondingCurve({ data: curveBytes, owner: new PublicKey(PROGRAM_IDS.pumpFun), lamports: 1, executable: false });
    expect(sdkCurve.creator.toBase58()).toBe(realCurve.creator);
    expect(realCurve.creator).not.toBe(PROGRAM_IDS.system);
    expect(realGlobal.feeRecipient).not.toBe(PROGRAM_IDS.system);
    for (const c of CASES) expect(pumpFunBondingCurveV2(c.mint)).toBe(bondingCurveV2Pda(new PublicKey(c.mint)).toBase58());
  });

  for (const c of CASES) {
    describe(c.name, () => {
      const mintKey = new PublicKey(c.mint);
      const creator = new PublicKey(c.curve.creator);
      const feeRecipient = new PublicKey(realGlobal.feeRecipient);
      const associatedUser = getAssociatedTokenAddressSync(mintKey, walletKey, true, c.tokenProgram);
      const variants: { name: string; buy: boolean; mode: SwapDirection }[] = [
        { name: 'buy (ExactOut)', buy: true, mode: 'ExactOut' },
        { name: 'buy_exact_sol_in (ExactIn)', buy: true, mode: 'ExactIn' },
        { name: 'sell', buy: false, mode: 'ExactIn' },
      ];
      for (const v of variants) {
        for (const buyback of [PUMP_BUYBACK_FEE_RECIPIENTS[0], PUMP_BUYBACK_FEE_RECIPIENTS[7]]) {
          it(`${v.name}, buyback recipient ${buyback.slice(0, 6)}: identical with the remaining accounts but track_volume; the IDL-only form lacks them`, async () => {
            const buybackKey = new PublicKey(buyback);
            for (const [amount, threshold] of AMOUNTS) {
              let sdkIx: TransactionInstruction;
              if (v.buy && v.mode === 'ExactOut') {
                sdkIx = await PUMP_SDK.getBuyInstructionRaw({
                  user: walletKey,
                  mint: mintKey,
                  creator,
                  amount: bn(amount),
                  solAmount: bn(threshold),
                  feeRecipient,
                  tokenProgram: c.tokenProgram,
                  buybackFeeRecipient: buybackKey,
                });
              } else if (!v.buy) {
                sdkIx = await PUMP_SDK.getSellInstructionRaw({
                  user: walletKey,
                  mint: mintKey,
                  creator,
                  amount: bn(amount),
                  solAmount: bn(threshold),
                  feeRecipient,
                  buybackFeeRecipient: buybackKey,
                  tokenProgram: c.tokenProgram,
                  cashback: c.curve.isCashbackCoin,
                });
              } else {
                // no SDK builder: its Anchor client with the accounts and remaining accounts its buy passes
                sdkIx = await (PUMP_SDK as unknown as { offlinePumpProgram: any }).offlinePumpProgram.methods
                  .buyExactSolIn(bn(amount), bn(threshold), { 0: true })
                  .accountsPartial({ feeRecipient, mint: mintKey, associatedUser, user: walletKey, creatorVault: creatorVaultPda(creator), tokenProgram: c.tokenProgram })
                  .remainingAccounts([
                    { pubkey: bondingCurveV2Pda(mintKey), isWritable: false, isSigner: false },
                    { pubkey: buybackKey, isWritable: true, isSigner: false },
                  ])
                  .instruction();
              }
              const theirs = flat(sdkIx);
              const args = {
                mint: c.mint,
                curve: c.curve,
                feeRecipient: realGlobal.feeRecipient,
                tokenProgram: c.tokenProgram.toBase58(),
                inputMint: v.buy ? MINTS.SOL : c.mint,
                mode: v.mode,
                amount,
                threshold,
                wallet,
                userTokenAccount: associatedTokenAddress(wallet, c.mint, c.tokenProgram.toBase58()),
              };
              const mine = flat(pumpFunSwap({ ...args, withRemainingAccounts: true, ...(buyback === PUMP_BUYBACK_FEE_RECIPIENTS[0] ? {} : { buybackFeeRecipient: buyback }) }));

              // documented: track_volume, the last data byte of a buy: the SDK Some(true), ours false
              if (v.buy) {
                expect(theirs.data.slice(-2)).toBe('01');
                expect(mine.data.slice(-2)).toBe('00');
                expect({ ...mine, data: mine.data.slice(0, -2) }).toEqual({ ...theirs, data: theirs.data.slice(0, -2) });
              } else {
                expect(mine).toEqual(theirs);
              }

              // the counts the docs give: buy 18, sell 16, sell of a cashback coin 17
              const idlCount = v.buy ? 16 : 14;
              expect(mine.keys).toHaveLength(v.buy ? 18 : c.curve.isCashbackCoin ? 17 : 16);
              expect(mine.keys.slice(-2)).toEqual([
                { pubkey: pumpFunBondingCurveV2(c.mint), isSigner: false, isWritable: false },
                { pubkey: buyback, isSigner: false, isWritable: true },
              ]);
              if (!v.buy && c.curve.isCashbackCoin) expect(mine.keys[idlCount]).toEqual({ pubkey: pumpFunUserVolumeAccumulator(wallet), isSigner: false, isWritable: true });

              // documented: the form without the option is the SDK's without the remaining accounts
              const idlForm = flat(pumpFunSwap(args));
              expect(idlForm.keys).toEqual(mine.keys.slice(0, idlCount));
              expect(idlForm.data).toBe(mine.data);
            }
          });
        }
      }
    });
  }
});
