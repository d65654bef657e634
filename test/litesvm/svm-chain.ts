/**
 * The real programs on LiteSVM, for tests: Orca Whirlpool, Raydium CPMM and Raydium AMM v4 from
 * the binaries in `../shared/programs` (relative to the repository root; see its SOURCES.md),
 * loaded at their mainnet ids, over the accounts the service quoted from (the pool updates of a
 * log: the simulated market's or real fixtures, same layouts). Wallets are funded with lamports
 * and token accounts; the service's unsigned v0 transactions execute with signature and
 * blockhash checks off (they were built against another chain's blockhash).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { getTransactionDecoder } from '@solana/kit';
import { PublicKey } from '@solana/web3.js';
import { LiteSVM, FailedTransactionMetadata, type TransactionMetadata } from 'litesvm';
import type { PoolUpdate } from '@app/contracts';
import { PROGRAM_IDS } from '@app/solana';
import { decodeCpmmPoolState } from '@app/solana';
import { decodeMint, decodeTokenAccount, encodeTokenAccount, EXTENSION_TYPE, type TokenExtension } from '@app/solana';
import { associatedTokenAddress } from '@app/solana';

/** where the binaries are: `../shared/programs` beside the repository (CI has them there) */
export const PROGRAMS_DIR = resolve(__dirname, '..', '..', '..', 'shared', 'programs');

export const REAL_PROGRAMS: ReadonlyArray<readonly [id: string, file: string]> = [
  [PROGRAM_IDS.orcaWhirlpool, 'whirlpool.so'],
  [PROGRAM_IDS.raydiumCpmm, 'raydium_cp_swap.so'],
  [PROGRAM_IDS.raydiumAmmV4, 'raydium_amm_v4.so'],
];

/** throws, naming the missing files and where they were looked for */
export function assertProgramsPresent(dir = PROGRAMS_DIR): void {
  const missing = REAL_PROGRAMS.map(([, f]) => join(dir, f)).filter((p) => !existsSync(p));
  if (missing.length > 0) {
    throw new Error(
      `the real program binaries are missing: ${missing.join(', ')}. The LiteSVM suites need ../shared/programs beside the repository (see its SOURCES.md).`,
    );
  }
}

export interface SvmOutcome {
  success: boolean;
  /** LiteSVM's error text when it failed */
  error: string;
  logs: string[];
  computeUnitsConsumed: number;
}

const decodeTx = getTransactionDecoder();
/** Anchor account discriminators of Raydium CPMM (its IDL) and the ObservationState size (8 + 1 + 2 + 32 + 100 × 40 + 32) */
const CPMM_POOL_DISCRIMINATOR = Buffer.from([247, 237, 227, 245, 215, 195, 222, 70]);
const CPMM_OBSERVATION_DISCRIMINATOR = Buffer.from([122, 174, 197, 53, 129, 9, 165, 132]);
const CPMM_OBSERVATION_SIZE = 4075;
const addr = (a: string): any => a;

export class SvmChain {
  readonly svm: LiteSVM;

  constructor(dir = PROGRAMS_DIR) {
    assertProgramsPresent(dir);
    this.svm = new LiteSVM().withSigverify(false).withBlockhashCheck(false).withTransactionHistory(0n);
    for (const [id, file] of REAL_PROGRAMS) this.svm.addProgramFromFile(addr(id), join(dir, file));
  }

  /** the clock the programs see: the slot and unix time of the state the service quoted from */
  setClock(slot: number, unixTime: bigint): void {
    this.svm.warpToSlot(BigInt(slot));
    const c = this.svm.getClock();
    c.unixTimestamp = unixTime;
    this.svm.setClock(c);
  }

  /** write every account of these updates (the last write of an address wins; closed ones skipped) */
  load(updates: Iterable<PoolUpdate>): void {
    const last = new Map<string, PoolUpdate>();
    for (const u of updates) last.set(u.address, u);
    for (const u of last.values()) {
      if (u.data === null) continue;
      this.setAccount(u.address, u.owner, u.data, u.lamports);
    }
  }

  /**
   * Raydium CPMM's swap writes the pool's ObservationState (an oracle it keeps, which no quote
   * reads, so the log need not carry it): an empty one for every loaded pool without it.
   */
  addCpmmObservations(updates: Iterable<PoolUpdate>): void {
    for (const u of updates) {
      if (u.owner !== PROGRAM_IDS.raydiumCpmm || u.data === null || !u.data.subarray(0, 8).equals(CPMM_POOL_DISCRIMINATOR)) continue;
      const st = decodeCpmmPoolState(u.data, u.owner, u.address);
      if (this.account(st.observationKey)?.owner === PROGRAM_IDS.raydiumCpmm) continue;
      const data = Buffer.alloc(CPMM_OBSERVATION_SIZE);
      CPMM_OBSERVATION_DISCRIMINATOR.copy(data, 0);
      new PublicKey(u.address).toBuffer().copy(data, 11);
      this.setAccount(st.observationKey, PROGRAM_IDS.raydiumCpmm, data);
    }
  }

  setAccount(address: string, owner: string, data: Uint8Array, lamports?: bigint): void {
    const rent = this.svm.minimumBalanceForRentExemption(BigInt(data.length));
    this.svm.setAccount({
      address: addr(address),
      programAddress: addr(owner),
      lamports: (lamports !== undefined && lamports > rent ? lamports : rent) as any,
      data: new Uint8Array(data),
      executable: false,
      space: BigInt(data.length),
    } as any);
  }

  airdrop(wallet: string, lamports: bigint): void {
    this.svm.setAccount({ address: addr(wallet), programAddress: addr(PROGRAM_IDS.system), lamports: lamports as any, data: new Uint8Array(0), executable: false, space: 0n } as any);
  }

  /**
   * The wallet's associated token account of `mint` holding `amount`, under the mint's token
   * program (Token-2022: with the account extensions its mint's extensions require).
   */
  fundToken(wallet: string, mint: string, amount: bigint): string {
    const m = this.account(mint);
    if (!m) throw new Error(`mint ${mint} is not loaded`);
    const program = m.owner;
    const ata = associatedTokenAddress(wallet, mint, program);
    let extensions: TokenExtension[] | undefined;
    if (program === PROGRAM_IDS.token2022) {
      const mintExt = decodeMint(m.data, m.owner, mint).extensions ?? [];
      extensions = [{ type: EXTENSION_TYPE.immutableOwner, data: new Uint8Array(0) }];
      if (mintExt.some((e) => e.type === EXTENSION_TYPE.transferFeeConfig)) extensions.push({ type: EXTENSION_TYPE.transferFeeAmount, data: new Uint8Array(8) });
    }
    const data = encodeTokenAccount({ mint, owner: wallet, amount, delegate: null, state: 'initialized', isNative: null, delegatedAmount: 0n, closeAuthority: null, extensions });
    this.setAccount(ata, program, data);
    return ata;
  }

  lamports(address: string): bigint {
    return BigInt(this.svm.getBalance(addr(address)) ?? 0n);
  }

  /** a token account's amount (0 when it does not exist) */
  tokenAmount(address: string): bigint {
    const a = this.svm.getAccount(addr(address));
    if (!a.exists) return 0n;
    return decodeTokenAccount(a.data, a.programAddress, address).amount;
  }

  /** raw bytes of an account (undefined when it does not exist) */
  account(address: string): { owner: string; data: Buffer; lamports: bigint } | undefined {
    const a = this.svm.getAccount(addr(address));
    if (!a.exists) return undefined;
    return { owner: a.programAddress, data: Buffer.from(a.data), lamports: BigInt(a.lamports) };
  }

  /** execute a serialized (unsigned) transaction; kept when it succeeds */
  send(bytes: Uint8Array): SvmOutcome {
    return outcome(this.svm.sendTransaction(decodeTx.decode(bytes) as any));
  }

  /** simulate a serialized (unsigned) transaction; nothing is kept */
  simulate(bytes: Uint8Array): SvmOutcome {
    const r = this.svm.simulateTransaction(decodeTx.decode(bytes) as any);
    return r instanceof FailedTransactionMetadata ? outcome(r) : outcome(r.meta());
  }
}

function outcome(r: TransactionMetadata | FailedTransactionMetadata): SvmOutcome {
  if (r instanceof FailedTransactionMetadata) {
    const m = r.meta();
    return { success: false, error: r.toString(), logs: m.logs(), computeUnitsConsumed: Number(m.computeUnitsConsumed()) };
  }
  return { success: true, error: '', logs: r.logs(), computeUnitsConsumed: Number(r.computeUnitsConsumed()) };
}

/** a fixed Whirlpool tick array's size; the binary of ../shared/programs predates dynamic ones */
const WHIRLPOOL_FIXED_TICK_ARRAY_SIZE = 9988;

/**
 * Whether a Whirlpool pool can execute on the binary of ../shared/programs: it predates
 * adaptive-fee pools (an Oracle account) and dynamic tick arrays, so pools with either cannot.
 */
export function whirlpoolRunsOnBinary(p: { dependenciesOf(pool: string): string[]; account(a: string): { owner: string; data: Buffer } | undefined }, pool: string): boolean {
  for (const d of p.dependenciesOf(pool)) {
    const a = p.account(d);
    if (!a || a.owner !== PROGRAM_IDS.orcaWhirlpool) continue;
    if (a.data.length !== WHIRLPOOL_FIXED_TICK_ARRAY_SIZE) return false;
  }
  return true;
}
