import * as fs from 'node:fs';
import * as path from 'node:path';
import { AddressLookupTableAccount, Keypair, PublicKey } from '@solana/web3.js';
import { AccountDecodeError } from './decode-error';
import {
  buildLookupTables,
  decodeAddressLookupTable,
  encodeAddressLookupTable,
  isLookupTableActive,
  LOOKUP_TABLE_ACTIVE,
  lookupTableAddress,
} from './address-lookup-table';
import { PROGRAM_IDS } from './programs';

const ALT_DIR = path.resolve(__dirname, '..', '..', '..', '..', 'shared', 'fixtures', 'alt');

describe('address lookup table codec', () => {
  for (const f of fs.readdirSync(ALT_DIR)) {
    it(`decodes and re-encodes the mainnet table ${f.split('.')[0]} exactly, as web3.js reads it`, () => {
      const j = JSON.parse(fs.readFileSync(path.join(ALT_DIR, f), 'utf8'));
      const data = Buffer.from(j.account.data[0], 'base64');
      const t = decodeAddressLookupTable(data, j.account.owner ?? PROGRAM_IDS.addressLookupTable, j.pubkey);
      const ref = AddressLookupTableAccount.deserialize(data);
      expect(t.addresses).toEqual(ref.addresses.map((a) => a.toBase58()));
      expect(t.deactivationSlot).toBe(BigInt(ref.deactivationSlot));
      expect(t.authority).toBe(ref.authority?.toBase58() ?? null);
      expect(isLookupTableActive(t)).toBe(true);
      expect(encodeAddressLookupTable(t).equals(data)).toBe(true);
    });
  }

  it('rejects foreign owners, bad types and ragged address areas', () => {
    const t = buildLookupTables(Keypair.generate().publicKey.toBase58(), 5n, [PROGRAM_IDS.token])[0];
    expect(() => decodeAddressLookupTable(t.data, PROGRAM_IDS.token)).toThrow(AccountDecodeError);
    const bad = Buffer.from(t.data);
    bad.writeUInt32LE(2, 0);
    expect(() => decodeAddressLookupTable(bad)).toThrow(/type 2/);
    expect(() => decodeAddressLookupTable(Buffer.concat([t.data, Buffer.alloc(5)]))).toThrow(/multiple of 32/);
    expect(() => decodeAddressLookupTable(t.data.subarray(0, 40))).toThrow(/at least 56/);
  });

  it('builds deterministic active tables of at most 256 unique addresses at distinct PDAs', () => {
    const auth = Keypair.generate().publicKey.toBase58();
    const addrs = Array.from({ length: 600 }, () => Keypair.generate().publicKey.toBase58());
    const tables = buildLookupTables(auth, 100n, [...addrs, addrs[0]]);
    expect(tables.map((t) => t.state.addresses.length)).toEqual([256, 256, 88]);
    expect(tables.flatMap((t) => t.state.addresses)).toEqual(addrs);
    expect(new Set(tables.map((t) => t.address)).size).toBe(3);
    expect(tables[1].address).toBe(lookupTableAddress(auth, 101n));
    const ref = PublicKey.findProgramAddressSync([new PublicKey(auth).toBuffer(), Buffer.from([100, 0, 0, 0, 0, 0, 0, 0])], new PublicKey(PROGRAM_IDS.addressLookupTable))[0];
    expect(tables[0].address).toBe(ref.toBase58());
    const again = buildLookupTables(auth, 100n, addrs);
    expect(again.map((t) => t.data.toString('base64'))).toEqual(tables.map((t) => t.data.toString('base64')));
    const back = AddressLookupTableAccount.deserialize(tables[2].data);
    expect(back.addresses.map((a) => a.toBase58())).toEqual(addrs.slice(512));
    expect(decodeAddressLookupTable(tables[0].data, PROGRAM_IDS.addressLookupTable).deactivationSlot).toBe(LOOKUP_TABLE_ACTIVE);
  });
});
