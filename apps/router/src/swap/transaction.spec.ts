/**
 * measureTransaction (the size without compiling) against compileTransaction (web3.js's
 * compileToV0Message and serialize): the same size, or the same error, for the swaps of the
 * simulated market with and without lookup tables, and for hand-made edge cases.
 */
import fc from 'fast-check';
import { AddressLookupTableAccount, Keypair, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { PROGRAM_IDS } from '@app/solana';
import { encodeAddressLookupTable, LOOKUP_TABLE_ACTIVE } from '@app/solana/address-lookup-table';

const encodeLookupTable = (addresses: string[]): Buffer =>
  encodeAddressLookupTable({ deactivationSlot: LOOKUP_TABLE_ACTIVE, lastExtendedSlot: 0n, lastExtendedSlotStartIndex: 0, authority: null, addresses });
import { SimMarket } from '@app/sim';
import { Projection } from '@app/pools';
import { encodePoolUpdate } from '@app/contracts';
import { findBestRoute, type Route, type RouteSearchOptions } from '@app/amm';
import { buildSwap } from './swap-builder';
import { compileTransaction, LookupTableIndex, measureTransaction, TooManyAccountsError, TransactionTooLargeError } from './transaction';

const BLOCKHASH = '11111111111111111111111111111111';

/** size or error class (and account count) of both, for these instructions and tables */
function both(wallet: string, ixs: TransactionInstruction[], tables: AddressLookupTableAccount[], sets: ReadonlySet<string>[]): [string, string] {
  const outcome = (f: () => number): string => {
    try {
      return `size ${f()}`;
    } catch (e) {
      if (e instanceof TooManyAccountsError) return `accounts ${e.accounts}`;
      if (e instanceof TransactionTooLargeError) return `too large ${e.size}`;
      throw e;
    }
  };
  return [outcome(() => compileTransaction(wallet, ixs, BLOCKHASH, tables).bytes.length), outcome(() => measureTransaction(wallet, ixs, sets))];
}

describe('measureTransaction', () => {
  it.each([true, false])('agrees with compileTransaction on the swaps of the all-programs market (lookup tables: %s)', (lookupTables) => {
    const market = new SimMarket({ seed: 8, pools: 150, tokens: 30, swapsPerSlot: 4, programs: 'all', lookupTables });
    const p = new Projection();
    let o = 0;
    for (const u of market.genesis()) p.apply({ partition: 0, offset: o++, value: encodePoolUpdate(u) });
    const index = new LookupTableIndex({ lookupTableAddresses: () => p.lookupTableAddresses(), account: (a) => p.account(a) });
    const wallet = Keypair.generate().publicKey.toBase58();
    const seen = new Map<string, number>();
    const shapes: RouteSearchOptions[] = [{}, { split: false }, { maxPaths: 2, parallelPools: 2 }];
    for (const a of market.tokens.slice(0, 8)) {
      for (const b of market.tokens.slice(10)) {
        if (a === b) continue;
        for (const usd of [10, 1000, 100_000]) {
          const amount = BigInt(Math.floor((usd / a.priceUsd) * 10 ** a.decimals));
          const opts = shapes[(seen.size + usd) % shapes.length];
          let route: Route;
          try {
            route = findBestRoute(p, { inputMint: a.mint, outputMint: b.mint, amount, mode: 'ExactIn', maxHops: 5 }, opts);
          } catch {
            continue;
          }
          const ixs = buildSwap({ route, userWallet: wallet, slippageBps: 50, fee: null, computeUnitPriceMicroLamports: 0n }, p).instructions;
          const tables = index.select(wallet, ixs);
          const [compiled, measured] = both(wallet, ixs, tables, tables.map((t) => index.addressSet(t)));
          expect(measured).toBe(compiled);
          const kind = compiled.split(' ')[0];
          seen.set(kind, (seen.get(kind) ?? 0) + 1);
        }
      }
    }
    // every outcome is exercised: transactions that fit, and (over the limits) the two errors
    expect(seen.get('size') ?? 0).toBeGreaterThan(100);
    // without tables most long routes are too large before they are over the account limit
    expect(seen.get('accounts') ?? 0).toBeGreaterThan(lookupTables ? 10 : 0);
    if (!lookupTables) expect(seen.get('too') ?? 0).toBeGreaterThan(10);
  });

  it('agrees on the key rules: signers and invoked programs stay static, a key loads from the first table holding it, an unused table is left out, duplicates keep their places', () => {
    const wallet = Keypair.generate().publicKey;
    const keys = Array.from({ length: 40 }, () => Keypair.generate().publicKey);
    const program = keys[0];
    const other = keys[1];
    const ix = (ks: Array<[PublicKey, boolean, boolean]>, prog = program, data = 3): TransactionInstruction =>
      new TransactionInstruction({ programId: prog, keys: ks.map(([pubkey, isSigner, isWritable]) => ({ pubkey, isSigner, isWritable })), data: Buffer.alloc(data, 7) });
    const ixs = [
      ix([[wallet, true, true], [keys[2], false, true], [keys[3], false, false], [keys[3], false, false], [other, false, false]]),
      // keys[3] writable here: writable over all; `other` is invoked below (stays static though in a table)
      ix([[keys[3], false, true], [keys[4], true, false], [keys[5], false, false], ...keys.slice(6, 30).map((k): [PublicKey, boolean, boolean] => [k, false, false])], other, 200),
    ];
    const table = (addresses: PublicKey[]): AddressLookupTableAccount =>
      new AddressLookupTableAccount({ key: Keypair.generate().publicKey, state: { deactivationSlot: 2n ** 64n - 1n, lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, addresses } });
    const cases: AddressLookupTableAccount[][] = [
      [],
      [table(keys.slice(0, 20))], // holds the program ids and the signer keys[4]: those stay static
      [table(keys.slice(2, 12)), table(keys.slice(8, 30))], // overlap: the first table takes 8..11
      [table([Keypair.generate().publicKey]), table(keys.slice(2, 40))], // the first table is left out
      [table([...keys.slice(2, 8), ...keys.slice(2, 8)]), table(keys.slice(5, 30))], // duplicate addresses in a table
    ];
    for (const tables of cases) {
      const [compiled, measured] = both(wallet.toBase58(), ixs, tables, tables.map((t) => new Set(t.state.addresses.map((a) => a.toBase58()))));
      expect(measured).toBe(compiled);
    }
    // over the lock limit: the same count, whatever the tables
    const wide = [ix(Array.from({ length: 70 }, (): [PublicKey, boolean, boolean] => [Keypair.generate().publicKey, false, false]))];
    expect(both(wallet.toBase58(), wide, [], [])).toEqual(['accounts 72', 'accounts 72']);
  });

  it('LookupTableIndex.select: the greedy cover (most covered first, the first of equals, at least two), as a from-scratch recount picks it', () => {
    const pool = Array.from({ length: 60 }, () => Keypair.generate().publicKey);
    const wallet = Keypair.generate().publicKey.toBase58();
    const program = pool[0];
    fc.assert(
      fc.property(
        fc.array(fc.uniqueArray(fc.integer({ min: 0, max: 59 }), { maxLength: 30 }), { minLength: 1, maxLength: 8 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 59 }), { minLength: 1, maxLength: 40 }),
        (tableKeys, used) => {
          const accounts = new Map<string, { owner: string; data: Buffer }>();
          const addresses = tableKeys.map((keys) => {
            const address = Keypair.generate().publicKey.toBase58();
            accounts.set(address, { owner: PROGRAM_IDS.addressLookupTable, data: encodeLookupTable(keys.map((k) => pool[k].toBase58())) });
            return address;
          });
          const index = new LookupTableIndex({ lookupTableAddresses: () => addresses, account: (a) => accounts.get(a) });
          const ixs = [new TransactionInstruction({ programId: program, keys: used.map((k) => ({ pubkey: pool[k], isSigner: false, isWritable: k % 2 === 0 })), data: Buffer.alloc(1) })];
          // reference: recount every table against what is still wanted, each round
          const tables = index.tables();
          const wanted = new Set(used.map((k) => pool[k].toBase58()));
          wanted.delete(program.toBase58());
          const expected: string[] = [];
          for (;;) {
            let best = -1;
            let bestCover = 1;
            tables.forEach((t, i) => {
              const c = [...wanted].filter((a) => index.addressSet(t).has(a)).length;
              if (c > bestCover) {
                best = i;
                bestCover = c;
              }
            });
            if (best < 0) break;
            expected.push(tables[best].key.toBase58());
            for (const a of index.addressSet(tables[best])) wanted.delete(a);
          }
          expect(index.select(wallet, ixs).map((t) => t.key.toBase58())).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });
});
