/**
 * The accounts pump.fun and PumpSwap take after their IDL's list since the 2026-04-28 upgrade, as
 * the sim chain checks them (the venues' `checkSwapAccounts`): the PDAs a swap must carry first
 * (each venue lists them), then a buyback fee recipient the Global / GlobalConfig lists (the
 * documented set when it lists none) and, for PumpSwap, that recipient's quote token account.
 * A missing or wrong account fails with the program's error.
 */
import { associatedTokenAddress, PROGRAM_IDS, PUMP_BUYBACK_FEE_RECIPIENTS } from '@app/solana';

/** Anchor's ConstraintSeeds: an account is not the PDA its seeds give */
const CONSTRAINT_SEEDS = 2006;

export interface RemainingAccounts {
  /** where the remaining accounts start: the number of accounts of the IDL's instruction */
  start: number;
  /** the PDAs expected first, in order */
  seeded: readonly string[];
  /** the buyback fee recipients the program's global account lists */
  listed: readonly string[];
  /** PumpSwap: the recipient's token account of the quote mint follows it */
  quote: { mint: string; program: string } | null;
  /** [BuybackFeeRecipientMissing, BuybackFeeRecipientNotAuthorized] of the program's IDL */
  errors: readonly [missing: number, unauthorized: number];
}

const programError = (c: number, name: string): Error => new Error(`custom program error: 0x${c.toString(16)} (${name})`);

export function checkRemainingAccounts(r: RemainingAccounts, count: number, acc: (i: number) => string): void {
  const [missing, unauthorized] = r.errors;
  const { start, seeded } = r;
  if (count < start + seeded.length + (r.quote === null ? 1 : 2)) throw programError(missing, 'BuybackFeeRecipientMissing: the remaining accounts of the 2026-04-28 upgrade are missing');
  seeded.forEach((k, i) => {
    if (acc(start + i) !== k) throw programError(CONSTRAINT_SEEDS, `ConstraintSeeds: remaining account ${i} is ${acc(start + i)}, expected ${k}`);
  });
  const buyback = acc(start + seeded.length);
  const set: readonly string[] = r.listed.filter((k) => k !== PROGRAM_IDS.system);
  if (!(set.length > 0 ? set : (PUMP_BUYBACK_FEE_RECIPIENTS as readonly string[])).includes(buyback)) throw programError(unauthorized, `BuybackFeeRecipientNotAuthorized: ${buyback}`);
  if (r.quote !== null) {
    const ata = associatedTokenAddress(buyback, r.quote.mint, r.quote.program);
    if (acc(start + seeded.length + 1) !== ata) throw programError(CONSTRAINT_SEEDS, `ConstraintSeeds: the buyback fee recipient's quote account is ${acc(start + seeded.length + 1)}, expected ${ata}`);
  }
}
