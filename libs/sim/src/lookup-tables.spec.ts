import { encodePoolUpdate } from '@app/contracts';
import { TOKEN_METADATA_PROGRAM_ID } from '@app/solana';
import { decodeAddressLookupTable, isLookupTableActive, LOOKUP_TABLE_MAX_ADDRESSES } from '@app/solana/address-lookup-table';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import { Projection } from '@app/pools';
import { SimMarket, SIM_LOOKUP_TABLE_AUTHORITY } from './market';

describe('sim market lookup tables', () => {
  const market = new SimMarket({ seed: 11, pools: 120, tokens: 30, swapsPerSlot: 8, programs: 'all', lookupTables: true });
  const genesis = market.genesis();
  const tables = genesis.filter((u) => u.owner === PROGRAM_IDS.addressLookupTable);
  const covered = new Set<string>();
  for (const t of tables) for (const a of decodeAddressLookupTable(t.data!, t.owner, t.address).addresses) covered.add(a);

  it('writes active tables of at most 256 addresses owned by the lookup-table program', () => {
    expect(tables.length).toBeGreaterThan(1);
    for (const t of tables) {
      const s = decodeAddressLookupTable(t.data!, t.owner, t.address);
      expect(isLookupTableActive(s)).toBe(true);
      expect(s.authority).toBe(SIM_LOOKUP_TABLE_AUTHORITY);
      expect(s.addresses.length).toBeGreaterThan(0);
      expect(s.addresses.length).toBeLessThanOrEqual(LOOKUP_TABLE_MAX_ADDRESSES);
    }
  });

  it("cover every account the market writes (but the tokens' Metadata, which no swap reads), every pool's mints and the common programs", () => {
    for (const u of genesis) if (u.owner !== PROGRAM_IDS.addressLookupTable && u.owner !== TOKEN_METADATA_PROGRAM_ID) expect(covered.has(u.address)).toBe(true);
    for (const p of [PROGRAM_IDS.token, PROGRAM_IDS.system, PROGRAM_IDS.associatedToken, MINTS.SOL, MINTS.USDC]) expect(covered.has(p)).toBe(true);
    for (const p of market.programs) for (const info of p.pools) expect(covered.has(info.address)).toBe(true);
  });

  it('do not change the market itself (same accounts and swaps as without tables)', () => {
    const plain = new SimMarket({ seed: 11, pools: 120, tokens: 30, swapsPerSlot: 8, programs: 'all' });
    const rest = genesis.filter((u) => u.owner !== PROGRAM_IDS.addressLookupTable);
    expect(plain.genesis().map((u) => encodePoolUpdate(u).toString('base64'))).toEqual(rest.map((u) => encodePoolUpdate(u).toString('base64')));
    const again = new SimMarket({ seed: 11, pools: 120, tokens: 30, swapsPerSlot: 8, programs: 'all', lookupTables: true });
    again.genesis();
    plain.advance(5);
    again.advance(5);
    expect(again.step().map((u) => encodePoolUpdate(u).toString('base64'))).toEqual(plain.step().map((u) => encodePoolUpdate(u).toString('base64')));
  });

  it('are indexed by the router projection', () => {
    const p = new Projection();
    genesis.forEach((u, i) => p.apply({ partition: 0, offset: String(i), value: encodePoolUpdate(u) }));
    expect([...p.lookupTableAddresses()].sort()).toEqual(tables.map((t) => t.address).sort());
  });
});
