/**
 * The simulated chain behind CHAIN_GATEWAY=sim: blockhashes and block heights that advance with
 * the simulated slots, a wallet ledger funded by a faucet, and a transaction executor that runs
 * the transaction's instructions against the projected accounts and the ledger. Pure (no Nest,
 * no IO): the adapter passes the current slot and the projection.
 *
 * What it executes, with the programs' semantics:
 * Each instruction consumes what the compute-unit model (swap/compute-units.ts) says it costs,
 * the figures the swap builder's limit is made of.
 * - ComputeBudget SetComputeUnitLimit / SetComputeUnitPrice (limit enforced; fee = 5000
 *   lamports per signature + ceil(limit × price / 1e6) from the fee payer);
 * - System Transfer; Associated Token CreateIdempotent (rent 2039280 lamports from the payer);
 *   Token / Token-2022 SyncNative, CloseAccount, TransferChecked;
 * - the swap instructions of the liquidity programs with a venue writer (swap/venues), read back
 *   from their data and accounts by the venue's `readSwap`: the pool's exact quote (the same
 *   integer math as the program) fills them, the bound is checked (a failed bound → the error the
 *   program raises for that bound, the venue's `slippage`), the user's token accounts (or
 *   lamports for pump.fun's SOL side) are debited and credited. A venue's `checkSwapAccounts`
 *   checks what else the program requires: pump.fun and PumpSwap swaps must carry the accounts
 *   those programs take after their IDL's list since the 2026-04-28 upgrade, or they fail with
 *   the program's error.
 * A transaction whose message lists more than 64 account keys (static and from lookup tables,
 * read-only ones included) is refused before it runs with `TooManyAccountLocks`, as the runtime
 * refuses it (its account lock limit).
 * The first failing instruction fails the whole transaction; nothing is kept (simulate) unless
 * `commit` is asked (the sim `send`). Pool reserves are not moved by a simulated swap (a route
 * never visits the same pool twice, so one transaction never sees its own pool effects).
 */
import { createHash } from 'node:crypto';
import type { MessageCompiledInstruction, VersionedTransaction } from '@solana/web3.js';
import { PoolQuoteError, type HopQuote, type Pool } from '@app/amm';
import { base58Encode } from '@app/solana';
import { U64_MAX } from '@app/solana';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import { decodeTokenAccount } from '@app/solana';
import { decodeAddressLookupTable } from '@app/solana';
import { associatedTokenAddress, isTokenProgram } from '@app/solana';
import { TOKEN_INSUFFICIENT_FUNDS, type LatestBlockhash, type SimulationResult } from './chain-gateway';
import { TRANSACTION_ACCOUNT_LOCK_LIMIT } from '../swap/transaction';
import { ataCreateUnits, INSTRUCTION_UNITS } from '../swap/compute-units';
import { swapUnits, venueWriter } from '../swap/venues/venue-writers';
import type { SimHop, SimTwoHop, VenueWriter } from '../swap/venues/venue-writer';

export const TOKEN_ACCOUNT_RENT = 2_039_280n;
export const LAMPORTS_PER_SIGNATURE = 5_000n;
/** blocks a blockhash stays valid (the chain's MAX_PROCESSING_AGE) */
export const BLOCKHASH_VALIDITY = 150;
const DEFAULT_CU_LIMIT = 200_000;

/** What the executor reads from the projection. */
export interface SimAccounts {
  account(address: string): { owner: string; data: Buffer } | undefined;
  pool(address: string): Pool | undefined;
  decimals(mint: string): number | undefined;
  lookupTableAddresses?(): readonly string[];
}

export interface SimTokenAccount {
  mint: string;
  owner: string;
  amount: bigint;
  /** lamports held (rent, plus the SOL of a wrapped-SOL account) */
  lamports: bigint;
  program: string;
}

export interface SimExecution extends SimulationResult {
  /** wallet lamports and token account amounts after the transaction (simulate: not kept) */
  lamportsAfter: Map<string, bigint>;
  tokensAfter: Map<string, SimTokenAccount | null>;
  feeLamports: bigint;
}

class Fail extends Error {
  constructor(
    readonly detail: string,
    readonly kind: 'insufficient-funds' | 'slippage' | 'other' = 'other',
  ) {
    super(detail);
  }
}

export class SimChain {
  /** wallet lamports (the faucet's ledger) */
  private readonly lamports = new Map<string, bigint>();
  /** token accounts created or funded in the sim (override the projection's copy) */
  private readonly tokens = new Map<string, SimTokenAccount | null>();
  private readonly issued = new Map<string, number>();

  // ---- blockhashes ----

  /** Block height = slot (the sim skips no slot); the blockhash is a hash of the slot. */
  blockhashAt(slot: number): LatestBlockhash {
    const blockhash = base58Encode(createHash('sha256').update(`sim-blockhash:${slot}`).digest());
    if (!this.issued.has(blockhash)) {
      this.issued.set(blockhash, slot);
      if (this.issued.size > 10_000) this.issued.delete(this.issued.keys().next().value as string);
    }
    return { blockhash, lastValidBlockHeight: slot + BLOCKHASH_VALIDITY };
  }

  // ---- faucet ----

  /**
   * Fund a wallet like a devnet faucet: SOL (mint omitted or the wrapped-SOL mint) credits the
   * wallet's lamports; any other mint credits the wallet's associated token account (created
   * when missing, under the mint's token program).
   */
  fund(accounts: SimAccounts, wallet: string, mint: string | null, amount: bigint): { account: string; balance: bigint } {
    if (amount <= 0n) throw new Error('amount must be positive');
    if (mint === null || mint === MINTS.SOL) {
      const v = (this.lamports.get(wallet) ?? 0n) + amount;
      if (v > U64_MAX) throw new Error('the balance would pass 2^64-1 (u64)');
      this.lamports.set(wallet, v);
      return { account: wallet, balance: v };
    }
    const mintAcc = accounts.account(mint);
    if (!mintAcc || !isTokenProgram(mintAcc.owner)) throw new Error(`unknown mint ${mint}`);
    const ata = associatedTokenAddress(wallet, mint, mintAcc.owner);
    const cur = this.readToken(accounts, ata) ?? { mint, owner: wallet, amount: 0n, lamports: TOKEN_ACCOUNT_RENT, program: mintAcc.owner };
    if (cur.amount + amount > U64_MAX) throw new Error('the balance would pass 2^64-1 (u64)');
    const next = { ...cur, amount: cur.amount + amount };
    this.tokens.set(ata, next);
    return { account: ata, balance: next.amount };
  }

  balanceOf(wallet: string): bigint {
    return this.lamports.get(wallet) ?? 0n;
  }

  tokenAccount(accounts: SimAccounts, address: string): SimTokenAccount | null {
    return this.readToken(accounts, address);
  }

  private readToken(accounts: SimAccounts, address: string): SimTokenAccount | null {
    if (this.tokens.has(address)) return this.tokens.get(address) ?? null;
    const a = accounts.account(address);
    if (!a || !isTokenProgram(a.owner)) return null;
    try {
      const t = decodeTokenAccount(a.data, a.owner, address);
      return { mint: t.mint, owner: t.owner, amount: t.amount, lamports: TOKEN_ACCOUNT_RENT + (t.mint === MINTS.SOL ? t.amount : 0n), program: a.owner };
    } catch {
      return null;
    }
  }

  // ---- execution ----

  execute(accounts: SimAccounts, tx: VersionedTransaction, currentSlot: number, commit = false): SimExecution {
    const logs: string[] = [];
    const lam = new Map<string, bigint>();
    const tok = new Map<string, SimTokenAccount | null>();
    const getLam = (a: string): bigint => lam.get(a) ?? this.lamports.get(a) ?? 0n;
    const getTok = (a: string): SimTokenAccount | null => (tok.has(a) ? (tok.get(a) ?? null) : this.readToken(accounts, a));
    let consumed = 0;
    let feeLamports = 0n;
    const result = (error: Fail | null): SimExecution => ({
      success: error === null,
      error: error === null ? '' : error.detail,
      insufficientFunds: error?.kind === 'insufficient-funds',
      slippageExceeded: error?.kind === 'slippage',
      computeUnitsConsumed: consumed,
      logs,
      lamportsAfter: lam,
      tokensAfter: tok,
      feeLamports,
    });

    const msg = tx.message;
    // resolve the account keys (static + lookup tables)
    let keys: string[];
    try {
      keys = msg.staticAccountKeys.map((k) => k.toBase58());
      const writable: string[] = [];
      const readonly: string[] = [];
      for (const l of msg.addressTableLookups) {
        const t = accounts.account(l.accountKey.toBase58());
        if (!t) throw new Fail(`address lookup table ${l.accountKey.toBase58()} not found`);
        const st = decodeAddressLookupTable(t.data, t.owner, l.accountKey.toBase58());
        for (const i of l.writableIndexes) writable.push(st.addresses[i] ?? fail(`lookup index ${i} out of range`));
        for (const i of l.readonlyIndexes) readonly.push(st.addresses[i] ?? fail(`lookup index ${i} out of range`));
      }
      keys = [...keys, ...writable, ...readonly];
      // the runtime locks every account of the message before it runs, and no more than the limit
      if (keys.length > TRANSACTION_ACCOUNT_LOCK_LIMIT) throw new Fail('TooManyAccountLocks');
      const issuedAt = this.issued.get(msg.recentBlockhash);
      // a blockhash this chain never issued; one past its lastValidBlockHeight has expired
      if (issuedAt === undefined) throw new Fail('BlockhashNotFound');
      if (issuedAt + BLOCKHASH_VALIDITY < currentSlot) throw new Fail('BlockhashExpired');
    } catch (e) {
      return result(e instanceof Fail ? e : new Fail(String((e as Error).message)));
    }
    const payer = keys[0];
    const nSigs = msg.header.numRequiredSignatures;
    const isSigner = (i: number): boolean => i < nSigs;

    // compute budget first (the runtime reads it before executing)
    let limit = DEFAULT_CU_LIMIT * msg.compiledInstructions.filter((ix) => keys[ix.programIdIndex] !== PROGRAM_IDS.computeBudget).length;
    let price = 0n;
    for (const ix of msg.compiledInstructions) {
      if (keys[ix.programIdIndex] !== PROGRAM_IDS.computeBudget) continue;
      const d = Buffer.from(ix.data);
      if (d[0] === 2) limit = d.readUInt32LE(1);
      else if (d[0] === 3) price = d.readBigUInt64LE(1);
    }
    limit = Math.min(limit, 1_400_000);
    feeLamports = LAMPORTS_PER_SIGNATURE * BigInt(nSigs) + (BigInt(limit) * price + 999_999n) / 1_000_000n;
    if (getLam(payer) < feeLamports) {
      logs.push(`fee payer ${payer} cannot pay the fee of ${feeLamports} lamports`);
      return result(new Fail('InsufficientFundsForFee', 'insufficient-funds'));
    }
    lam.set(payer, getLam(payer) - feeLamports);

    const debitLamports = (a: string, v: bigint): void => {
      const cur = getLam(a);
      if (cur < v) throw new Fail(`insufficient lamports ${cur}, need ${v}`, 'insufficient-funds');
      lam.set(a, cur - v);
    };
    const creditLamports = (a: string, v: bigint): void => {
      const t = getTok(a);
      if (t) tok.set(a, { ...t, lamports: t.lamports + v });
      else lam.set(a, getLam(a) + v);
    };
    const tokenOf = (a: string, what: string): SimTokenAccount => {
      const t = getTok(a);
      if (!t) throw new Fail(`${what} ${a}: AccountNotInitialized`);
      return t;
    };
    const debitToken = (a: string, v: bigint, owner: string): SimTokenAccount => {
      const t = tokenOf(a, 'source token account');
      if (t.owner !== owner) throw new Fail(`token account ${a}: owner does not match`);
      if (t.amount < v) throw new Fail(`custom program error: 0x${TOKEN_INSUFFICIENT_FUNDS.toString(16)} (insufficient funds: ${t.amount} < ${v})`, 'insufficient-funds');
      tok.set(a, { ...t, amount: t.amount - v, lamports: t.mint === MINTS.SOL ? t.lamports - v : t.lamports });
      return t;
    };
    const creditToken = (a: string, v: bigint, mint: string): void => {
      const t = tokenOf(a, 'destination token account');
      if (t.mint !== mint) throw new Fail(`token account ${a} holds ${t.mint}, expected ${mint}`);
      tok.set(a, { ...t, amount: t.amount + v, lamports: t.mint === MINTS.SOL ? t.lamports + v : t.lamports });
    };

    for (const ix of msg.compiledInstructions) {
      const program = keys[ix.programIdIndex];
      const acc = (i: number): string => {
        const k = ix.accountKeyIndexes[i];
        if (k === undefined) throw new Fail(`NotEnoughAccountKeys for ${program}`);
        return keys[k];
      };
      const signer = (i: number): boolean => isSigner(ix.accountKeyIndexes[i]);
      const d = Buffer.from(ix.data);
      const writer = venueWriter(program);
      logs.push(`Program ${program} invoke [1]`);
      try {
        let cu: number;
        if (program === PROGRAM_IDS.computeBudget) cu = INSTRUCTION_UNITS.computeBudget;
        else if (program === PROGRAM_IDS.system) {
          if (d.length !== 12 || d.readUInt32LE(0) !== 2) throw new Fail('unsupported System instruction');
          if (!signer(0)) throw new Fail('MissingRequiredSignature');
          const v = d.readBigUInt64LE(4);
          debitLamports(acc(0), v);
          creditLamports(acc(1), v);
          cu = INSTRUCTION_UNITS.systemTransfer;
        } else if (program === PROGRAM_IDS.associatedToken) {
          if (!(d.length === 1 && d[0] === 1)) throw new Fail('unsupported associated token instruction');
          const [payerKey, ata, owner, mint, , tokenProgram] = [0, 1, 2, 3, 4, 5].map(acc);
          if (associatedTokenAddress(owner, mint, tokenProgram) !== ata) throw new Fail('Provided seeds do not result in a valid address');
          // the model charges CreateIdempotent in full whether or not the account exists
          cu = ataCreateUnits(owner, mint, tokenProgram);
          if (!getTok(ata)) {
            if (mint !== MINTS.SOL && !accounts.account(mint)) throw new Fail(`mint ${mint} not found`);
            debitLamports(payerKey, TOKEN_ACCOUNT_RENT);
            tok.set(ata, { mint, owner, amount: 0n, lamports: TOKEN_ACCOUNT_RENT, program: tokenProgram });
          }
        } else if (isTokenProgram(program)) {
          cu = this.tokenInstruction(d, acc, signer, getTok, tok, creditLamports, debitToken, creditToken);
        } else if (writer !== undefined) {
          cu = this.swapInstruction(accounts, writer, d, ix, acc, getTok, debitToken, creditToken, debitLamports, creditLamports);
        } else throw new Fail(`program ${program} is not supported by the sim chain`);
        consumed += cu;
        if (consumed > limit) throw new Fail(`exceeded CUs meter at BPF instruction (limit ${limit})`);
        logs.push(`Program ${program} consumed ${cu} of ${limit - consumed + cu} compute units`, `Program ${program} success`);
      } catch (e) {
        const f = e instanceof Fail ? e : new Fail(String((e as Error).message));
        logs.push(`Program ${program} failed: ${f.detail}`);
        return result(f);
      }
    }
    if (commit) {
      for (const [k, v] of lam) this.lamports.set(k, v);
      for (const [k, v] of tok) this.tokens.set(k, v);
    }
    return result(null);
  }

  private tokenInstruction(
    d: Buffer,
    acc: (i: number) => string,
    signer: (i: number) => boolean,
    getTok: (a: string) => SimTokenAccount | null,
    tok: Map<string, SimTokenAccount | null>,
    creditLamports: (a: string, v: bigint) => void,
    debitToken: (a: string, v: bigint, owner: string) => SimTokenAccount,
    creditToken: (a: string, v: bigint, mint: string) => void,
  ): number {
    switch (d[0]) {
      case 17: {
        const a = acc(0);
        const t = getTok(a);
        if (!t || t.mint !== MINTS.SOL) throw new Fail('SyncNative: NonNativeNotSupported');
        tok.set(a, { ...t, amount: t.lamports - TOKEN_ACCOUNT_RENT });
        return INSTRUCTION_UNITS.syncNative;
      }
      case 9: {
        const [a, dest, owner] = [acc(0), acc(1), acc(2)];
        const t = getTok(a);
        if (!t) throw new Fail(`CloseAccount: ${a} AccountNotInitialized`);
        if (t.owner !== owner || !signer(2)) throw new Fail('CloseAccount: OwnerMismatch');
        if (t.mint !== MINTS.SOL && t.amount !== 0n) throw new Fail('CloseAccount: NonNativeHasBalance');
        tok.set(a, null);
        creditLamports(dest, t.lamports);
        return INSTRUCTION_UNITS.closeAccount;
      }
      case 12: {
        const [src, mint, dst, owner] = [acc(0), acc(1), acc(2), acc(3)];
        if (!signer(3)) throw new Fail('MissingRequiredSignature');
        const v = d.readBigUInt64LE(1);
        const t = debitToken(src, v, owner);
        if (t.mint !== mint) throw new Fail('TransferChecked: MintMismatch');
        creditToken(dst, v, mint);
        return INSTRUCTION_UNITS.transferChecked;
      }
      default:
        throw new Fail(`unsupported token instruction ${d[0]}`);
    }
  }

  private swapInstruction(
    accounts: SimAccounts,
    writer: VenueWriter,
    d: Buffer,
    ix: MessageCompiledInstruction,
    acc: (i: number) => string,
    getTok: (a: string) => SimTokenAccount | null,
    debitToken: (a: string, v: bigint, owner: string) => SimTokenAccount,
    creditToken: (a: string, v: bigint, mint: string) => void,
    debitLamports: (a: string, v: bigint) => void,
    creditLamports: (a: string, v: bigint) => void,
  ): number {
    const program = writer.programId;
    const swap = writer.readSwap(d, ix.accountKeyIndexes.length, acc);
    if (swap.form === 'two-hop') return this.twoHopInstruction(accounts, writer, swap, debitToken, creditToken);
    const { pool, user, source, destination, exactIn, amount, bound } = swap;
    const p = accounts.pool(pool);
    if (!p || p.programId !== program) throw new Fail(`pool ${pool}: AccountNotInitialized or not routable`);
    writer.checkSwapAccounts?.(p, swap, ix.accountKeyIndexes.length, acc);
    const srcTok = source === null ? null : getTok(source);
    if (source !== null && !srcTok) throw new Fail(`source token account ${source}: AccountNotInitialized`, 'insufficient-funds');
    const inputMint = swap.inputMint ?? srcTok!.mint;
    if (inputMint !== p.mintA && inputMint !== p.mintB) throw new Fail(`ConstraintTokenMint: ${inputMint} is not in pool ${pool}`);
    const outputMint = inputMint === p.mintA ? p.mintB : p.mintA;
    let q: HopQuote;
    try {
      q = exactIn ? p.quoteExactIn(inputMint, amount) : p.quoteExactOut(inputMint, amount);
    } catch (e) {
      if (e instanceof PoolQuoteError) throw new Fail(`pool ${pool}: ${e.message}`);
      throw e;
    }
    const slipped = exactIn ? q.amountOut < bound : q.amountIn > bound;
    if (slipped) {
      const [code, name] = boundError(writer, swap);
      throw new Fail(
        `custom program error: 0x${code.toString(16)} (${name}: ${exactIn ? `out ${q.amountOut} < minimum ${bound}` : `in ${q.amountIn} > maximum ${bound}`})`,
        'slippage',
      );
    }
    if (source === null) debitLamports(user, q.amountIn);
    else debitToken(source, q.amountIn, user);
    if (destination === null) creditLamports(user, q.amountOut);
    else creditToken(destination, q.amountOut, outputMint);
    const token2022Sides = [inputMint, outputMint].filter((m) => m !== MINTS.SOL && accounts.account(m)?.owner === PROGRAM_IDS.token2022).length;
    return swapUnits({ pool: p, inputMint, mode: exactIn ? 'ExactIn' : 'ExactOut', amount, token2022Sides });
  }

  /**
   * Orca's two_hop_swap_v2: hop one's exact output is hop two's input (ExactIn), or hop two's
   * exact input is what hop one must produce (ExactOut); only the final amount is bounded.
   */
  private twoHopInstruction(
    accounts: SimAccounts,
    writer: VenueWriter,
    swap: SimTwoHop,
    debitToken: (a: string, v: bigint, owner: string) => SimTokenAccount,
    creditToken: (a: string, v: bigint, mint: string) => void,
  ): number {
    const { inputMint, midMint, outputMint, source, destination, user, amount, bound, exactIn } = swap;
    const p1 = accounts.pool(swap.pools[0]);
    const p2 = accounts.pool(swap.pools[1]);
    if (!p1 || !p2 || p1.programId !== writer.programId || p2.programId !== writer.programId) throw new Fail('two-hop pools: AccountNotInitialized or not routable');
    let q1: HopQuote;
    let q2: HopQuote;
    try {
      if (exactIn) {
        q1 = p1.quoteExactIn(inputMint, amount);
        q2 = p2.quoteExactIn(midMint, q1.amountOut);
      } else {
        q2 = p2.quoteExactOut(midMint, amount);
        q1 = p1.quoteExactOut(inputMint, q2.amountIn);
      }
    } catch (e) {
      if (e instanceof PoolQuoteError) throw new Fail(`two-hop swap: ${e.message}`);
      throw e;
    }
    const [code, name] = exactIn ? writer.slippage.minOut : writer.slippage.maxIn;
    if (exactIn ? q2.amountOut < bound : q1.amountIn > bound) {
      throw new Fail(`custom program error: 0x${code.toString(16)} (${name}: ${exactIn ? `out ${q2.amountOut} < minimum ${bound}` : `in ${q1.amountIn} > maximum ${bound}`})`, 'slippage');
    }
    debitToken(source, q1.amountIn, user);
    creditToken(destination, q2.amountOut, outputMint);
    const sides = (a: string, b: string): number => [a, b].filter((m) => m !== MINTS.SOL && accounts.account(m)?.owner === PROGRAM_IDS.token2022).length;
    return (
      swapUnits({ pool: p1, inputMint, mode: exactIn ? 'ExactIn' : 'ExactOut', amount: exactIn ? amount : q2.amountIn, token2022Sides: sides(inputMint, midMint) }) +
      swapUnits({ pool: p2, inputMint: midMint, mode: exactIn ? 'ExactIn' : 'ExactOut', amount: exactIn ? q1.amountOut : amount, token2022Sides: sides(midMint, outputMint) })
    );
  }
}

function fail(msg: string): never {
  throw new Fail(msg);
}

/** the error a venue raises for a failed bound: the maximum input, a sell's minimum output, or the minimum output */
function boundError(writer: VenueWriter, swap: SimHop): readonly [number, string] {
  const errors = writer.slippage;
  if (!swap.exactIn) return errors.maxIn;
  return swap.sell && errors.sellMinOut ? errors.sellMinOut : errors.minOut;
}
