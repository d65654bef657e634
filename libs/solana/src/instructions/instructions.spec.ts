/**
 * Instruction builders against the programs' IDLs (fixtures/idl): discriminator, argument byte
 * length, account count, per-position signer / writable flags, fixed addresses and constant-seed
 * PDAs; the ATA derivation against real mainnet user ATAs; native program layouts by hand.
 * pump.fun and PumpSwap with their remaining accounts (since the 2026-04-28 upgrade): the IDL's
 * accounts first, then the documented tail with its writable flags.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Keypair, PublicKey, type TransactionInstruction } from '@solana/web3.js';
import { PROGRAM_IDS, MINTS } from '../programs';
import type { CpmmPoolState } from '../raydium-cpmm';
import type { Whirlpool } from '../orca-whirlpool';
import type { ClmmPoolState } from '../raydium-clmm';
import type { AmmV4Info } from '../raydium-amm-v4';
import type { PumpAmmGlobalConfig, PumpAmmPoolState } from '../pump-amm';
import type { PumpBondingCurve } from '../pump-fun';
import { associatedTokenAddress } from './common';
import {
  closeAccount,
  createAtaIdempotent,
  setComputeUnitLimit,
  setComputeUnitPrice,
  syncNative,
  systemTransfer,
  transferChecked,
  wrapSol,
} from './system-token';
import {
  decodeSerumMarketAccounts,
  orcaWhirlpoolSwapV2,
  PUMP_BUYBACK_FEE_RECIPIENTS,
  pumpAmmBuybackFeeRecipient,
  pumpAmmProtocolFeeRecipient,
  pumpAmmSwap,
  pumpFunBuybackFeeRecipient,
  pumpFunSwap,
  raydiumAmmV4Swap,
  raydiumClmmSwapV2,
  raydiumCpmmSwap,
  type SwapUser,
} from './programs';

const FIXTURES = path.resolve(__dirname, '..', '..', '..', '..', '..', 'shared', 'fixtures');
const idl = (f: string): any => JSON.parse(fs.readFileSync(path.join(FIXTURES, 'idl', f), 'utf8'));

interface IdlAccount {
  name: string;
  writable: boolean;
  signer: boolean;
  address?: string;
  constSeeds?: Buffer[] | null;
  pdaProgram?: string;
}

const ARG_SIZE: Record<string, number> = { u8: 1, bool: 1, u16: 2, u32: 4, u64: 8, u128: 16, i32: 4 };

function idlInstruction(file: string, name: string): { accounts: IdlAccount[]; disc: Buffer | null; argBytes: number; programId: string } {
  const d = idl(file);
  const ix = d.instructions.find((i: any) => i.name === name);
  if (!ix) throw new Error(`${name} not in ${file}`);
  const accounts: IdlAccount[] = [];
  const walk = (list: any[]): void => {
    for (const a of list) {
      if (a.accounts) {
        walk(a.accounts);
        continue;
      }
      let constSeeds: Buffer[] | null | undefined;
      if (a.pda) constSeeds = a.pda.seeds.every((x: any) => x.kind === 'const') ? a.pda.seeds.map((x: any) => Buffer.from(x.value)) : null;
      accounts.push({
        name: a.name,
        writable: Boolean(a.writable ?? a.isMut),
        signer: Boolean(a.signer ?? a.isSigner),
        address: a.address,
        constSeeds,
        pdaProgram:
          a.pda?.program?.kind === 'const'
            ? new PublicKey(Buffer.from(a.pda.program.value)).toBase58()
            : a.pda?.program?.kind === 'account'
              ? ix.accounts.find((x: any) => x.name === a.pda.program.path)?.address
              : undefined,
      });
    }
  };
  walk(ix.accounts);
  let argBytes = 0;
  for (const arg of ix.args) {
    const t = arg.type;
    if (typeof t === 'string') argBytes += ARG_SIZE[t];
    else if (t.defined && (t.defined.name ?? t.defined) === 'OptionBool') argBytes += 1;
    else if (t.option) argBytes += 1; // None
    else throw new Error(`unsized arg ${JSON.stringify(t)}`);
  }
  return { accounts, disc: ix.discriminator ? Buffer.from(ix.discriminator) : null, argBytes, programId: d.address ?? d.metadata?.address };
}

/**
 * An instruction that carries remaining accounts after the IDL's: the IDL's part is checked as
 * expectMatchesIdl does; returns the tail as {key, w, s}.
 */
function expectIdlThenTail(ix: TransactionInstruction, file: string, name: string, programId: string): Array<{ key: string; w: boolean; s: boolean }> {
  const n = idlInstruction(file, name).accounts.length;
  expect(ix.keys.length).toBeGreaterThan(n);
  expectMatchesIdl({ ...ix, keys: ix.keys.slice(0, n) } as TransactionInstruction, file, name, programId);
  return ix.keys.slice(n).map((k) => ({ key: k.pubkey.toBase58(), w: k.isWritable, s: k.isSigner }));
}

const pdaOf = (programId: string, ...seeds: Array<string | Buffer>): string =>
  PublicKey.findProgramAddressSync(
    seeds.map((x) => (typeof x === 'string' ? Buffer.from(x) : x)),
    new PublicKey(programId),
  )[0].toBase58();
const keyBytes = (k: string): Buffer => new PublicKey(k).toBuffer();

function expectMatchesIdl(ix: TransactionInstruction, file: string, name: string, programId: string, opts: { discLen?: number } = {}): void {
  const spec = idlInstruction(file, name);
  expect(ix.programId.toBase58()).toBe(programId);
  if (spec.disc) expect(ix.data.subarray(0, 8).equals(spec.disc)).toBe(true);
  expect(ix.data.length).toBe((opts.discLen ?? 8) + spec.argBytes);
  expect(ix.keys.length).toBe(spec.accounts.length);
  spec.accounts.forEach((a, i) => {
    const k = ix.keys[i];
    expect({ i, name: a.name, w: k.isWritable, s: k.isSigner }).toEqual({ i, name: a.name, w: a.writable, s: a.signer });
    if (a.address) expect({ name: a.name, key: k.pubkey.toBase58() }).toEqual({ name: a.name, key: a.address });
    if (a.constSeeds) {
      const pid = new PublicKey(a.pdaProgram ?? programId);
      expect({ name: a.name, key: k.pubkey.toBase58() }).toEqual({ name: a.name, key: PublicKey.findProgramAddressSync(a.constSeeds, pid)[0].toBase58() });
    }
  });
}

const key = (): string => Keypair.generate().publicKey.toBase58();
const user = (): SwapUser => ({ wallet: key(), source: key(), destination: key() });

describe('Raydium CPMM swap', () => {
  const state = {
    ammConfig: key(),
    token0Vault: key(),
    token1Vault: key(),
    token0Mint: key(),
    token1Mint: key(),
    token0Program: PROGRAM_IDS.token,
    token1Program: PROGRAM_IDS.token2022,
    observationKey: key(),
  } as CpmmPoolState;
  const pool = key();

  it('swap_base_input matches the IDL; input side follows the direction', () => {
    const u = user();
    const ix = raydiumCpmmSwap({ pool, state, inputMint: state.token1Mint, mode: 'ExactIn', amount: 1000n, threshold: 990n, user: u });
    expectMatchesIdl(ix, 'raydium-idl.raydium_cpmm_raydium_cp_swap.json', 'swap_base_input', PROGRAM_IDS.raydiumCpmm);
    expect(ix.data.readBigUInt64LE(8)).toBe(1000n);
    expect(ix.data.readBigUInt64LE(16)).toBe(990n);
    const keys = ix.keys.map((k) => k.pubkey.toBase58());
    expect(keys.slice(3, 12)).toEqual([pool, u.source, u.destination, state.token1Vault, state.token0Vault, PROGRAM_IDS.token2022, PROGRAM_IDS.token, state.token1Mint, state.token0Mint]);
    expect(keys[0]).toBe(u.wallet);
  });

  it('swap_base_output puts max_amount_in first, then amount_out', () => {
    const ix = raydiumCpmmSwap({ pool, state, inputMint: state.token0Mint, mode: 'ExactOut', amount: 500n, threshold: 777n, user: user() });
    expectMatchesIdl(ix, 'raydium-idl.raydium_cpmm_raydium_cp_swap.json', 'swap_base_output', PROGRAM_IDS.raydiumCpmm);
    expect(ix.data.readBigUInt64LE(8)).toBe(777n);
    expect(ix.data.readBigUInt64LE(16)).toBe(500n);
  });

  it('refuses a mint that is not in the pool and amounts beyond u64', () => {
    expect(() => raydiumCpmmSwap({ pool, state, inputMint: key(), mode: 'ExactIn', amount: 1n, threshold: 1n, user: user() })).toThrow(/not in CPMM pool/);
    expect(() => raydiumCpmmSwap({ pool, state, inputMint: state.token0Mint, mode: 'ExactIn', amount: 1n << 64n, threshold: 1n, user: user() })).toThrow(RangeError);
  });
});

describe('Orca Whirlpool swap_v2', () => {
  const wp = { tokenMintA: key(), tokenMintB: key(), tokenVaultA: key(), tokenVaultB: key() } as Whirlpool;
  it('matches the IDL (remaining_accounts_info None) in both directions', () => {
    for (const aToB of [true, false]) {
      const u = user();
      const ix = orcaWhirlpoolSwapV2({
        pool: key(),
        whirlpool: wp,
        inputMint: aToB ? wp.tokenMintA : wp.tokenMintB,
        mode: aToB ? 'ExactIn' : 'ExactOut',
        amount: 10n,
        threshold: 9n,
        user: u,
        tokenProgramA: PROGRAM_IDS.token,
        tokenProgramB: PROGRAM_IDS.token,
        tickArrays: [key(), key(), key()],
        oracle: key(),
      });
      expectMatchesIdl(ix, 'whirlpool.orca-legacy-sdk.json', 'swap_v2', PROGRAM_IDS.orcaWhirlpool);
      expect(ix.data[8 + 8 + 8 + 16]).toBe(aToB ? 1 : 0); // amount_specified_is_input
      expect(ix.data[8 + 8 + 8 + 16 + 1]).toBe(aToB ? 1 : 0); // a_to_b
      const keys = ix.keys.map((k) => k.pubkey.toBase58());
      expect(keys[7]).toBe(aToB ? u.source : u.destination); // token_owner_account_a
      expect(keys[9]).toBe(aToB ? u.destination : u.source);
    }
  });
});

describe('Raydium CLMM swap_v2', () => {
  const st = { ammConfig: key(), tokenMint0: key(), tokenMint1: key(), tokenVault0: key(), tokenVault1: key(), observationKey: key() } as ClmmPoolState;
  it('matches the IDL; bitmap extension then tick arrays as writable remaining accounts', () => {
    const pool = key();
    const arrays = [key(), key()];
    const ix = raydiumClmmSwapV2({ pool, state: st, inputMint: st.tokenMint1, mode: 'ExactOut', amount: 5n, threshold: 6n, user: user(), tickArrays: arrays, withBitmapExtension: true });
    const base = { ...ix, keys: ix.keys.slice(0, 13) } as TransactionInstruction;
    expectMatchesIdl(base, 'raydium-idl.raydium_clmm_amm_v3.json', 'swap_v2', PROGRAM_IDS.raydiumClmm);
    expect(ix.keys.length).toBe(16);
    expect(ix.keys.slice(13).every((k) => k.isWritable && !k.isSigner)).toBe(true);
    expect(ix.keys[14].pubkey.toBase58()).toBe(arrays[0]);
    expect(ix.keys[13].pubkey.toBase58()).toBe(PublicKey.findProgramAddressSync([Buffer.from('pool_tick_array_bitmap_extension'), new PublicKey(pool).toBuffer()], new PublicKey(PROGRAM_IDS.raydiumClmm))[0].toBase58());
    expect(ix.data[8 + 8 + 8 + 16]).toBe(0); // is_base_input false
    expect(ix.keys[5].pubkey.toBase58()).toBe(st.tokenVault1);
  });
});

describe('Raydium AMM v4 swap', () => {
  const info = { coinVault: key(), pcVault: key(), coinVaultMint: key(), pcVaultMint: key(), openOrders: key(), targetOrders: key(), market: key(), marketProgram: key(), nonce: 254n } as AmmV4Info;
  const market = { bids: key(), asks: key(), eventQueue: key(), coinVault: key(), pcVault: key(), vaultSigner: key() };
  it('18-account layout matches the IDL for swapBaseIn / swapBaseOut (tags 9 / 11)', () => {
    const a = raydiumAmmV4Swap({ pool: key(), info, market, inputMint: info.coinVaultMint, mode: 'ExactIn', amount: 100n, threshold: 90n, user: user() });
    expectMatchesIdl(a, 'raydium-idl.raydium_amm_idl.json', 'swapBaseIn', PROGRAM_IDS.raydiumAmmV4, { discLen: 1 });
    expect(a.data[0]).toBe(9);
    const b = raydiumAmmV4Swap({ pool: key(), info, market, inputMint: info.pcVaultMint, mode: 'ExactOut', amount: 100n, threshold: 120n, user: user() });
    expectMatchesIdl(b, 'raydium-idl.raydium_amm_idl.json', 'swapBaseOut', PROGRAM_IDS.raydiumAmmV4, { discLen: 1 });
    expect(b.data[0]).toBe(11);
    expect(b.data.readBigUInt64LE(1)).toBe(120n);
    expect(b.data.readBigUInt64LE(9)).toBe(100n);
    expect(a.keys[2].pubkey.toBase58()).toBe('5Q544fKrFoe6tsEbD7S8EmxGTJYAKtTVhAW5Q5pge4j1');
  });
  it('17-account layout is the IDL without amm_target_orders', () => {
    const a = raydiumAmmV4Swap({ pool: key(), info, market, inputMint: info.coinVaultMint, mode: 'ExactIn', amount: 1n, threshold: 1n, user: user(), withTargetOrders: false });
    const spec = idlInstruction('raydium-idl.raydium_amm_idl.json', 'swapBaseIn').accounts.filter((x) => x.name !== 'ammTargetOrders');
    expect(a.keys.map((k) => [k.isWritable, k.isSigner])).toEqual(spec.map((x) => [x.writable, x.signer]));
  });
  it('reads the market accounts from a serum market account', () => {
    const m = Keypair.generate().publicKey;
    const prog = new PublicKey('srmqPvymJeFKQ4zGQed1GFppgkRHL9kaELCbyksJtPX');
    let nonce = 0n;
    let signer: PublicKey | null = null;
    for (; nonce < 255n && signer === null; nonce++) {
      const le = Buffer.alloc(8);
      le.writeBigUInt64LE(nonce);
      try {
        signer = PublicKey.createProgramAddressSync([m.toBuffer(), le], prog);
      } catch {
        signer = null;
      }
    }
    nonce--;
    const d = Buffer.alloc(388);
    d.write('serum', 0, 'latin1');
    m.toBuffer().copy(d, 13);
    d.writeBigUInt64LE(nonce, 45);
    const ks = [117, 165, 253, 285, 317].map((o) => {
      const k = Keypair.generate().publicKey;
      k.toBuffer().copy(d, o);
      return k.toBase58();
    });
    expect(decodeSerumMarketAccounts(m.toBase58(), prog.toBase58(), d)).toEqual({
      coinVault: ks[0],
      pcVault: ks[1],
      eventQueue: ks[2],
      bids: ks[3],
      asks: ks[4],
      vaultSigner: signer!.toBase58(),
    });
    expect(() => decodeSerumMarketAccounts(key(), prog.toBase58(), d)).toThrow(/own_address/);
  });
});

describe('PumpSwap', () => {
  const st = { baseMint: key(), quoteMint: MINTS.SOL, poolBaseTokenAccount: key(), poolQuoteTokenAccount: key(), coinCreator: key() } as PumpAmmPoolState;
  const cfg = { protocolFeeRecipients: [PROGRAM_IDS.system, key()] } as PumpAmmGlobalConfig;
  const args = { pool: key(), state: st, globalConfig: cfg, baseTokenProgram: PROGRAM_IDS.token, quoteTokenProgram: PROGRAM_IDS.token };
  it('buy (ExactOut), buy_exact_quote_in (ExactIn) and sell match the IDL', () => {
    const f = 'pump_amm.pump-public-docs.json';
    const buy = pumpAmmSwap({ ...args, inputMint: MINTS.SOL, mode: 'ExactOut', amount: 10n, threshold: 20n, user: user() });
    expectMatchesIdl(buy, f, 'buy', PROGRAM_IDS.pumpSwapAmm);
    const buyIn = pumpAmmSwap({ ...args, inputMint: MINTS.SOL, mode: 'ExactIn', amount: 10n, threshold: 20n, user: user() });
    expectMatchesIdl(buyIn, f, 'buy_exact_quote_in', PROGRAM_IDS.pumpSwapAmm);
    const u = user();
    const sell = pumpAmmSwap({ ...args, inputMint: st.baseMint, mode: 'ExactIn', amount: 10n, threshold: 20n, user: u });
    expectMatchesIdl(sell, f, 'sell', PROGRAM_IDS.pumpSwapAmm);
    expect(sell.keys[5].pubkey.toBase58()).toBe(u.source); // user_base_token_account
    expect(sell.keys[9].pubkey.toBase58()).toBe(cfg.protocolFeeRecipients[1]);
    expect(sell.keys[10].pubkey.toBase58()).toBe(associatedTokenAddress(cfg.protocolFeeRecipients[1], MINTS.SOL));
  });

  describe('withRemainingAccounts (since the 2026-04-28 upgrade)', () => {
    const f = 'pump_amm.pump-public-docs.json';
    const poolV2 = (baseMint: string): string => pdaOf(PROGRAM_IDS.pumpSwapAmm, 'pool-v2', keyBytes(baseMint));
    const uva = (wallet: string): string => pdaOf(PROGRAM_IDS.pumpSwapAmm, 'user_volume_accumulator', keyBytes(wallet));
    const variants = [
      { name: 'buy', inputMint: MINTS.SOL, mode: 'ExactOut' as const },
      { name: 'buy_exact_quote_in', inputMint: MINTS.SOL, mode: 'ExactIn' as const },
      { name: 'sell', inputMint: st.baseMint, mode: 'ExactIn' as const },
    ];

    it('the IDL accounts, then pool-v2 (read-only), the buyback fee recipient (read-only) and its quote ATA (writable)', () => {
      for (const v of variants) {
        const ix = pumpAmmSwap({ ...args, inputMint: v.inputMint, mode: v.mode, amount: 10n, threshold: 20n, user: user(), withRemainingAccounts: true });
        const buyback = PUMP_BUYBACK_FEE_RECIPIENTS[0];
        expect({ v: v.name, tail: expectIdlThenTail(ix, f, v.name, PROGRAM_IDS.pumpSwapAmm) }).toEqual({
          v: v.name,
          tail: [
            { key: poolV2(st.baseMint), w: false, s: false },
            { key: buyback, w: false, s: false },
            { key: associatedTokenAddress(buyback, MINTS.SOL), w: true, s: false },
          ],
        });
        // off: exactly the IDL's accounts
        expectMatchesIdl(pumpAmmSwap({ ...args, inputMint: v.inputMint, mode: v.mode, amount: 10n, threshold: 20n, user: user() }), f, v.name, PROGRAM_IDS.pumpSwapAmm);
      }
    });

    it('a cashback coin first takes its user volume accumulator quote ATA (a sell also the accumulator); a pool without coin creator takes no pool-v2', () => {
      const cashback = { ...st, isCashbackCoin: true, coinCreator: PROGRAM_IDS.system } as PumpAmmPoolState;
      for (const v of variants) {
        const u = user();
        const ix = pumpAmmSwap({ ...args, state: cashback, inputMint: v.inputMint, mode: v.mode, amount: 10n, threshold: 20n, user: u, withRemainingAccounts: true });
        const acc = uva(u.wallet);
        const buyback = PUMP_BUYBACK_FEE_RECIPIENTS[0];
        expect({ v: v.name, tail: expectIdlThenTail(ix, f, v.name, PROGRAM_IDS.pumpSwapAmm) }).toEqual({
          v: v.name,
          tail: [
            { key: associatedTokenAddress(acc, MINTS.SOL), w: true, s: false },
            ...(v.name === 'sell' ? [{ key: acc, w: true, s: false }] : []),
            { key: buyback, w: false, s: false },
            { key: associatedTokenAddress(buyback, MINTS.SOL), w: true, s: false },
          ],
        });
      }
    });

    it('the buyback fee recipient is the GlobalConfig\'s first set one (else the documented first); a mayhem-mode pool pays a reserved fee recipient', () => {
      const listed = key();
      const withList = { ...cfg, buybackFeeRecipients: [PROGRAM_IDS.system, listed, ...Array(6).fill(PROGRAM_IDS.system)] } as PumpAmmGlobalConfig;
      expect(pumpAmmBuybackFeeRecipient(withList)).toBe(listed);
      expect(pumpAmmBuybackFeeRecipient(cfg)).toBe(PUMP_BUYBACK_FEE_RECIPIENTS[0]);
      expect(pumpAmmBuybackFeeRecipient({ buybackFeeRecipients: Array(8).fill(PROGRAM_IDS.system) })).toBe(PUMP_BUYBACK_FEE_RECIPIENTS[0]);
      const ix = pumpAmmSwap({ ...args, globalConfig: withList, inputMint: MINTS.SOL, mode: 'ExactIn', amount: 10n, threshold: 20n, user: user(), withRemainingAccounts: true });
      expect(ix.keys.slice(-2).map((k) => k.pubkey.toBase58())).toEqual([listed, associatedTokenAddress(listed, MINTS.SOL)]);

      const reserved = key();
      const mayhemCfg = { ...cfg, reservedFeeRecipient: reserved, reservedFeeRecipients: [key()] } as PumpAmmGlobalConfig;
      expect(pumpAmmProtocolFeeRecipient(mayhemCfg, true)).toBe(reserved);
      expect(pumpAmmProtocolFeeRecipient(mayhemCfg, false)).toBe(cfg.protocolFeeRecipients[1]);
      const m = pumpAmmSwap({ ...args, globalConfig: mayhemCfg, state: { ...st, isMayhemMode: true }, inputMint: MINTS.SOL, mode: 'ExactIn', amount: 10n, threshold: 20n, user: user(), withRemainingAccounts: true });
      expect(m.keys[9].pubkey.toBase58()).toBe(reserved);
      expect(m.keys[10].pubkey.toBase58()).toBe(associatedTokenAddress(reserved, MINTS.SOL));
    });
  });
});

describe('pump.fun', () => {
  const mint = key();
  const curve = { creator: key() } as PumpBondingCurve;
  const base = { mint, curve, feeRecipient: key(), tokenProgram: PROGRAM_IDS.token, wallet: key(), userTokenAccount: key() };
  it('buy, buy_exact_sol_in and sell match the IDL (bonding curve and its ATA derived)', () => {
    const f = 'pump.pump-public-docs.json';
    expectMatchesIdl(pumpFunSwap({ ...base, inputMint: MINTS.SOL, mode: 'ExactOut', amount: 1n, threshold: 2n }), f, 'buy', PROGRAM_IDS.pumpFun);
    expectMatchesIdl(pumpFunSwap({ ...base, inputMint: MINTS.SOL, mode: 'ExactIn', amount: 1n, threshold: 2n }), f, 'buy_exact_sol_in', PROGRAM_IDS.pumpFun);
    const sell = pumpFunSwap({ ...base, inputMint: mint, mode: 'ExactIn', amount: 1n, threshold: 2n });
    expectMatchesIdl(sell, f, 'sell', PROGRAM_IDS.pumpFun);
    const curveAddr = PublicKey.findProgramAddressSync([Buffer.from('bonding-curve'), new PublicKey(mint).toBuffer()], new PublicKey(PROGRAM_IDS.pumpFun))[0].toBase58();
    expect(sell.keys[3].pubkey.toBase58()).toBe(curveAddr);
    expect(sell.keys[4].pubkey.toBase58()).toBe(associatedTokenAddress(curveAddr, mint));
  });

  describe('withRemainingAccounts (since the 2026-04-28 upgrade)', () => {
    const f = 'pump.pump-public-docs.json';
    const bondingCurveV2 = pdaOf(PROGRAM_IDS.pumpFun, 'bonding-curve-v2', keyBytes(mint));
    // the IDL's v2 swaps name the buyback fee recipient as an account: writable there too
    const buybackWritable = idlInstruction(f, 'buy_v2').accounts.find((a) => a.name === 'buyback_fee_recipient')!.writable;
    const variants = [
      { name: 'buy', inputMint: MINTS.SOL, mode: 'ExactOut' as const, count: 18 },
      { name: 'buy_exact_sol_in', inputMint: MINTS.SOL, mode: 'ExactIn' as const, count: 18 },
      { name: 'sell', inputMint: mint, mode: 'ExactIn' as const, count: 16 },
    ];

    it('the IDL accounts, then bonding-curve-v2 (read-only) and the buyback fee recipient (writable)', () => {
      expect(buybackWritable).toBe(true);
      for (const v of variants) {
        const ix = pumpFunSwap({ ...base, inputMint: v.inputMint, mode: v.mode, amount: 1n, threshold: 2n, withRemainingAccounts: true });
        expect(ix.keys.length).toBe(v.count);
        expect({ v: v.name, tail: expectIdlThenTail(ix, f, v.name, PROGRAM_IDS.pumpFun) }).toEqual({
          v: v.name,
          tail: [
            { key: bondingCurveV2, w: false, s: false },
            { key: PUMP_BUYBACK_FEE_RECIPIENTS[0], w: buybackWritable, s: false },
          ],
        });
      }
    });

    it('the sell of a cashback coin first takes the user volume accumulator (writable), as the IDL\'s sell docs order it; a buy does not', () => {
      const cashback = { ...curve, isCashbackCoin: true } as PumpBondingCurve;
      const uva = pdaOf(PROGRAM_IDS.pumpFun, 'user_volume_accumulator', keyBytes(base.wallet));
      expect(idl(f).instructions.find((i: any) => i.name === 'sell').docs.join(' ')).toMatch(/\[0\] user_volume_accumulator,\s*\[1\] bonding_curve_v2/);
      const sell = pumpFunSwap({ ...base, curve: cashback, inputMint: mint, mode: 'ExactIn', amount: 1n, threshold: 2n, withRemainingAccounts: true, buybackFeeRecipient: PUMP_BUYBACK_FEE_RECIPIENTS[5] });
      expect(sell.keys.length).toBe(17);
      expect(expectIdlThenTail(sell, f, 'sell', PROGRAM_IDS.pumpFun)).toEqual([
        { key: uva, w: true, s: false },
        { key: bondingCurveV2, w: false, s: false },
        { key: PUMP_BUYBACK_FEE_RECIPIENTS[5], w: true, s: false },
      ]);
      const buy = pumpFunSwap({ ...base, curve: cashback, inputMint: MINTS.SOL, mode: 'ExactIn', amount: 1n, threshold: 2n, withRemainingAccounts: true });
      expect(buy.keys.length).toBe(18);
    });

    it('the buyback fee recipient of the Global account: its first set one, else the documented first', () => {
      const listed = key();
      expect(pumpFunBuybackFeeRecipient({ buybackFeeRecipients: [PROGRAM_IDS.system, listed, ...Array(6).fill(PROGRAM_IDS.system)] })).toBe(listed);
      expect(pumpFunBuybackFeeRecipient({ buybackFeeRecipients: Array(8).fill(PROGRAM_IDS.system) })).toBe(PUMP_BUYBACK_FEE_RECIPIENTS[0]);
      expect(pumpFunBuybackFeeRecipient({})).toBe(PUMP_BUYBACK_FEE_RECIPIENTS[0]);
    });
  });
});

describe('native programs', () => {
  it('associated token addresses equal real mainnet ATAs (Token and Token-2022)', () => {
    const wallet = 'r21Gamwd9DtyjHeGywsneoQYR39C1VDwrw7tWxHAwh6';
    expect(associatedTokenAddress(wallet, MINTS.USDC)).toBe('FbQdXCQgGQYj3xcGeryVVFjKCTsAuu53vmCRtmjQEqM5');
    expect(associatedTokenAddress(wallet, '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo', PROGRAM_IDS.token2022)).toBe('2A7Cc48jwWWoixM5CWquQKEqk9KNQvY2Xw3WJbBRc6Ei');
  });
  it('compute budget, transfer, ATA create-idempotent, sync native, close, transfer checked', () => {
    expect([...setComputeUnitLimit(200_000).data]).toEqual([2, 0x40, 0x0d, 0x03, 0x00]);
    expect(setComputeUnitPrice(1000n).data.equals(Buffer.from([3, 0xe8, 3, 0, 0, 0, 0, 0, 0]))).toBe(true);
    expect(() => setComputeUnitLimit(0)).toThrow(RangeError);
    const a = key();
    const b = key();
    const t = systemTransfer(a, b, 5n);
    expect(t.data.equals(Buffer.from([2, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0]))).toBe(true);
    expect(t.keys.map((k) => [k.isSigner, k.isWritable])).toEqual([[true, true], [false, true]]);
    const c = createAtaIdempotent(a, b, MINTS.USDC, PROGRAM_IDS.token2022);
    expect([...c.data]).toEqual([1]);
    expect(c.keys.map((k) => k.pubkey.toBase58())).toEqual([a, associatedTokenAddress(b, MINTS.USDC, PROGRAM_IDS.token2022), b, MINTS.USDC, PROGRAM_IDS.system, PROGRAM_IDS.token2022]);
    expect(c.keys.map((k) => [k.isSigner, k.isWritable])).toEqual([[true, true], [false, true], [false, false], [false, false], [false, false], [false, false]]);
    expect([...syncNative(a).data]).toEqual([17]);
    const cl = closeAccount(a, b, b);
    expect([...cl.data]).toEqual([9]);
    expect(cl.keys.map((k) => [k.isSigner, k.isWritable])).toEqual([[false, true], [false, true], [true, false]]);
    const tc = transferChecked(a, MINTS.USDC, b, key(), 7n, 6);
    expect([...tc.data]).toEqual([12, 7, 0, 0, 0, 0, 0, 0, 0, 6]);
    const wrap = wrapSol(a, 9n);
    expect(wrap.map((i) => i.programId.toBase58())).toEqual([PROGRAM_IDS.associatedToken, PROGRAM_IDS.system, PROGRAM_IDS.token]);
    expect(wrap[1].keys[1].pubkey.toBase58()).toBe(associatedTokenAddress(a, MINTS.SOL));
  });
});
