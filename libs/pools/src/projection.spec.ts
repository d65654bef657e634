import { _testing } from '@app/amm/routing/compiled-graph';
import { CpmmPool, findBestRoute, type TokenGraph } from '@app/amm';
import { encodePoolUpdate, type PoolUpdate } from '@app/contracts';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import { EXTENSION_TYPE, TOKEN_METADATA_PROGRAM_ID, decodeMint, encodeMetaplexMetadata, encodeMint, encodeTokenMetadataExtension, metadataAddress } from '@app/solana';
import { decodeCpmmPoolState, encodeCpmmPoolState } from '@app/solana';
import { decodeTokenAccount, encodeTokenAccount } from '@app/solana';
import { SimMarket } from '@app/sim';
import { Projection, type ProjectionRecord } from './projection';
import { mintAccount, poolState, tokenAccount } from './raydium-cpmm.program';

function records(updates: PoolUpdate[], from = 0): ProjectionRecord[] {
  return updates.map((u, i) => ({ partition: 0, offset: String(from + i), value: encodePoolUpdate(u) }));
}

function fresh(pools = 12, tokens = 8) {
  const market = new SimMarket({ seed: 7, pools, tokens, swapsPerSlot: 6 });
  const genesis = market.genesis();
  const p = new Projection();
  p.applyBatch(records(genesis));
  return { market, genesis, p };
}

describe('Projection', () => {
  it('applies a simulated genesis: every pool routable, decimals from the mints, positions and slot', () => {
    const { market, genesis, p } = fresh();
    const stats = p.stats;
    expect(stats.applied).toBe(genesis.length);
    expect(stats.rejected).toBe(0);
    expect(stats.pools).toBe(market.pools.length);
    expect(stats.routablePools).toBe(market.pools.length);
    expect(p.positions).toEqual({ '0': String(genesis.length - 1) });
    expect(p.slot).toBe(market.startSlot);
    for (const t of market.tokens) expect(p.decimals(t.mint)).toBe(t.decimals);
    for (const sp of market.pools) {
      const pool = p.pool(sp.address) as CpmmPool;
      expect(pool).toBeInstanceOf(CpmmPool);
      expect(pool.vault0Amount).toBe(sp.vault0);
      expect(pool.vault1Amount).toBe(sp.vault1);
      expect(p.poolsOf(sp.state.token0Mint)).toContain(pool);
      expect(p.poolsOf(sp.state.token1Mint)).toContain(pool);
    }
    const tokens = p.tokens();
    expect(tokens.reduce((n, t) => n + t.pools, 0)).toBe(2 * market.pools.length);
    expect(p.markets().every((m) => m.routable && m.label === 'Raydium CPMM')).toBe(true);
  });

  it("names each mint from the log: its Token-2022 metadata extension first, else its Metaplex Metadata account, else null", () => {
    const { market, genesis, p } = fresh();
    const t = market.tokens[4];
    expect(p.tokens().find((x) => x.mint === t.mint)).toMatchObject({ symbol: t.symbol, name: `Simulated ${t.symbol}` });
    // the mint becomes a Token-2022 mint with its own TokenMetadata extension: that one names it
    const mint = genesis.find((u) => u.address === t.mint)!;
    const decoded = decodeMint(mint.data!, mint.owner);
    const ext = encodeTokenMetadataExtension({ mint: t.mint, name: 'Own Name', symbol: 'OWN', uri: '' });
    const t22 = encodeMint({ ...decoded, extensions: [{ type: EXTENSION_TYPE.tokenMetadata, data: ext }] });
    let offset = genesis.length;
    p.applyBatch(records([{ ...mint, owner: PROGRAM_IDS.token2022, data: t22, slot: mint.slot + 1 }], offset++));
    expect(p.tokens().find((x) => x.mint === t.mint)).toMatchObject({ symbol: 'OWN', name: 'Own Name' });
    // another token's Metadata account closed: no name; a Metadata account naming another mint is not taken
    const u = market.tokens[5];
    const md = genesis.find((x) => x.address === metadataAddress(u.mint))!;
    p.applyBatch(records([{ ...md, data: null, slot: md.slot + 1 }], offset++));
    expect(p.tokens().find((x) => x.mint === u.mint)).toMatchObject({ symbol: null, name: null });
    const foreign = encodeMetaplexMetadata({ updateAuthority: MINTS.USDC, mint: MINTS.USDT, name: 'Tether', symbol: 'USDT', uri: '' });
    p.applyBatch(records([{ ...md, owner: TOKEN_METADATA_PROGRAM_ID, data: foreign, slot: md.slot + 2 }], offset++));
    expect(p.tokens().find((x) => x.mint === u.mint)).toMatchObject({ symbol: null, name: null });
  });

  it('re-materialises exactly the pool whose vault changed', () => {
    const { market, genesis, p } = fresh();
    const sp = market.pools[0];
    const others = market.pools.slice(1).map((x) => p.pool(x.address));
    const before = p.pool(sp.address) as CpmmPool;
    const version = p.topologyVersion;
    const vault = genesis.find((u) => u.address === sp.state.token0Vault)!;
    const acc = decodeTokenAccount(vault.data!, vault.owner);
    const bumped: PoolUpdate = { ...vault, slot: vault.slot + 5, data: encodeTokenAccount({ ...acc, amount: acc.amount + 1_000_000n }) };
    p.apply({ partition: 0, offset: String(genesis.length), value: encodePoolUpdate(bumped) });
    const after = p.pool(sp.address) as CpmmPool;
    expect(after).not.toBe(before);
    expect(after.vault0Amount).toBe(sp.vault0 + 1_000_000n);
    expect(after.slot).toBe(vault.slot + 5);
    expect(p.slot).toBe(vault.slot + 5);
    market.pools.slice(1).forEach((x, i) => expect(p.pool(x.address)).toBe(others[i])); // untouched: same objects
    expect(p.topologyVersion).toBe(version); // reserves only: the graph shape is unchanged
    expect(p.positions).toEqual({ '0': String(genesis.length) });
  });

  it('drainChanged reports every pool once, then exactly the pools a write touched', () => {
    const { market, genesis, p } = fresh();
    expect(p.drainChanged()).toEqual(new Set(market.pools.map((x) => x.address)));
    expect(p.drainChanged().size).toBe(0);
    const sp = market.pools[3];
    const vault = genesis.find((u) => u.address === sp.state.token1Vault)!;
    const acc = decodeTokenAccount(vault.data!, vault.owner);
    const bumped: PoolUpdate = { ...vault, slot: vault.slot + 1, data: encodeTokenAccount({ ...acc, amount: acc.amount + 7n }) };
    p.apply({ partition: 0, offset: String(genesis.length), value: encodePoolUpdate(bumped) });
    expect([...p.drainChanged()]).toEqual([sp.address]);
  });

  it('drainChanged gives each changed pool the append time of the first record since the last drain that changed it', () => {
    const { market, genesis, p } = fresh();
    p.drainChanged();
    const [a, b] = [market.pools[1], market.pools[2]];
    const vaultOf = (x: typeof a) => genesis.find((u) => u.address === x.state.token0Vault)!;
    let off = genesis.length;
    const bump = (x: typeof a, by: bigint, timestamp?: number) => {
      const v = vaultOf(x);
      const acc = decodeTokenAccount(v.data!, v.owner);
      const u: PoolUpdate = { ...v, slot: v.slot + Number(by), data: encodeTokenAccount({ ...acc, amount: acc.amount + by }) };
      p.apply({ partition: 0, offset: String(off++), value: encodePoolUpdate(u), timestamp });
    };
    bump(a, 1n, 1_000);
    bump(b, 2n, 1_010);
    bump(a, 3n, 1_020); // a again: its first change counts
    const times = new Map<string, number>();
    expect(p.drainChanged(times)).toEqual(new Set([a.address, b.address]));
    expect(times).toEqual(new Map([[a.address, 1_000], [b.address, 1_010]]));
    // the next drain starts afresh; a record without a time gives NaN
    bump(b, 4n, 2_000);
    bump(a, 5n);
    const next = new Map<string, number>();
    p.drainChanged(next);
    expect(next.get(b.address)).toBe(2_000);
    expect(next.get(a.address)).toBeNaN();
  });

  it('additionsVersion moves when a pool enters the graph, not when one leaves it; topologyVersion on both', () => {
    const { market, genesis, p } = fresh();
    const pool = genesis.find((u) => u.address === market.pools[2].address)!;
    const [adds, topo] = [p.additionsVersion, p.topologyVersion];
    p.apply({ partition: 0, offset: String(genesis.length), value: encodePoolUpdate({ ...pool, slot: pool.slot + 1, data: null }) });
    expect(p.pool(pool.address)).toBeUndefined();
    expect(p.additionsVersion).toBe(adds);
    expect(p.topologyVersion).toBeGreaterThan(topo);
    p.apply({ partition: 0, offset: String(genesis.length + 1), value: encodePoolUpdate({ ...pool, slot: pool.slot + 2 }) });
    expect(p.pool(pool.address)).toBeDefined();
    expect(p.additionsVersion).toBeGreaterThan(adds);
  });

  it('an unknown schema version or a malformed body is rejected with its reason, counted, and not applied', () => {
    const { genesis, p } = fresh();
    const stateBefore = JSON.stringify(p.markets());
    const vault = genesis.find((u) => u.owner === PROGRAM_IDS.token && u.data!.length === 165)!;
    const wire = JSON.parse(encodePoolUpdate({ ...vault, data: Buffer.alloc(165) }).toString());
    const r1 = p.apply({ partition: 0, offset: '1000', value: Buffer.from(JSON.stringify({ ...wire, v: 2 })) });
    expect(r1).toEqual({ applied: false, reason: expect.stringMatching(/unsupported schema version 2/) });
    const r2 = p.apply({ partition: 0, offset: '1001', value: Buffer.from('{not json') });
    expect(r2).toEqual({ applied: false, reason: 'malformed record: not JSON' });
    const r3 = p.apply({ partition: 0, offset: '1002', value: Buffer.from(JSON.stringify({ ...wire, address: 'nope' })) });
    expect(r3.applied).toBe(false);
    const stats = p.stats;
    expect(stats.rejected).toBe(3);
    expect(stats.applied).toBe(genesis.length);
    expect(Object.values(stats.rejectedReasons).reduce((a, b) => a + b, 0)).toBe(3);
    expect(stats.lastRejection).toMatch(/offset 1002/);
    expect(JSON.stringify(p.markets())).toBe(stateBefore);
    expect(p.positions).toEqual({ '0': String(genesis.length - 1) }); // last APPLIED record
    expect(p.processed).toEqual({ '0': '1002' });
  });

  it('a pool with a missing dependency is unroutable with the reason; it becomes routable when the account arrives', () => {
    const market = new SimMarket({ seed: 7, pools: 12, tokens: 8, swapsPerSlot: 6 });
    const genesis = market.genesis();
    const sp = market.pools[3];
    const withoutVault = genesis.filter((u) => u.address !== sp.state.token1Vault);
    const p = new Projection();
    p.applyBatch(records(withoutVault));
    expect(p.pool(sp.address)).toBeUndefined();
    const m = p.markets().find((x) => x.address === sp.address)!;
    expect(m).toMatchObject({ routable: false, mintA: sp.state.token0Mint, mintB: sp.state.token1Mint });
    expect(m.reason).toBe(`missing token1 vault account ${sp.state.token1Vault}`);
    expect(p.poolsOf(sp.state.token1Mint)).not.toContainEqual(expect.objectContaining({ address: sp.address }));
    const version = p.topologyVersion;
    p.applyBatch(records(genesis.filter((u) => u.address === sp.state.token1Vault), withoutVault.length));
    expect(p.pool(sp.address)).toBeDefined();
    expect(p.topologyVersion).toBeGreaterThan(version);
    expect(p.markets().find((x) => x.address === sp.address)!.routable).toBe(true);
  });

  it('undecodable and closed accounts: the pool carries the reason or leaves', () => {
    const { market, genesis, p } = fresh();
    const sp = market.pools[1];
    let off = genesis.length;
    const cfg = genesis.find((u) => u.address === sp.state.ammConfig)!;
    p.apply({ partition: 0, offset: off++, value: encodePoolUpdate({ ...cfg, data: Buffer.alloc(236) }) });
    const m = p.markets().find((x) => x.address === sp.address)!;
    expect(m.routable).toBe(false);
    expect(m.reason).toMatch(/undecodable AmmConfig: .*wrong discriminator/);
    const mint = genesis.find((u) => u.address === sp.state.token0Mint)!;
    p.apply({ partition: 0, offset: off++, value: encodePoolUpdate({ ...mint, data: null }) });
    expect(p.decimals(sp.state.token0Mint)).toBeUndefined();
    // closing the pool account removes the pool
    const poolUpd = genesis.find((u) => u.address === sp.address)!;
    p.apply({ partition: 0, offset: off++, value: encodePoolUpdate({ ...poolUpd, data: null }) });
    expect(p.markets().find((x) => x.address === sp.address)).toBeUndefined();
  });

  it('the delta decoders agree with the full decoders', () => {
    const market = new SimMarket({ seed: 11, pools: 20, tokens: 8, swapsPerSlot: 40 });
    const p = new Projection();
    let off = 0;
    p.applyBatch(records(market.genesis(), off));
    off = p.stats.applied;
    for (let i = 0; i < 30; i++) {
      const step = market.step();
      p.applyBatch(records(step, off));
      off += step.length;
      for (const u of step) {
        const acc = p.account(u.address)!;
        if (u.owner === PROGRAM_IDS.raydiumCpmm) expect(poolState(acc)).toEqual(decodeCpmmPoolState(u.data!, u.owner, u.address));
        else expect(tokenAccount(acc)).toEqual(decodeTokenAccount(u.data!, u.owner, u.address));
      }
    }
    // and a pool-state change in the keys region goes through the full decoder
    const sp = market.pools[0];
    const foreign = market.pools.find((x) => x.state.token0Mint !== sp.state.token0Mint)!.state.token0Vault;
    const changed = { ...decodeCpmmPoolState(p.account(sp.address)!.data), token0Vault: foreign };
    p.apply({ partition: 0, offset: off, value: encodePoolUpdate({ slot: 1, address: sp.address, owner: PROGRAM_IDS.raydiumCpmm, lamports: 1n, data: encodeCpmmPoolState(changed), source: 't' }) });
    expect(poolState(p.account(sp.address)!).token0Vault).toBe(foreign);
    expect(p.markets().find((m) => m.address === sp.address)!.reason).toMatch(/vault .* holds mint/);
  });

  it('is deterministic: the same records give the same state and the same quotes', () => {
    const market = new SimMarket({ seed: 5, pools: 60, tokens: 16, swapsPerSlot: 10 });
    const all = [...market.genesis()];
    for (let i = 0; i < 20; i++) all.push(...market.step());
    const recs = records(all);
    const a = new Projection();
    const b = new Projection();
    a.applyBatch(recs);
    for (let i = 0; i < recs.length; i += 37) b.applyBatch(recs.slice(i, i + 37)); // other batching, reads in between
    expect(JSON.stringify(a.markets())).toBe(JSON.stringify(b.markets()));
    expect(a.tokens()).toEqual(b.tokens());
    expect(a.positions).toEqual(b.positions);
    expect(a.slot).toBe(b.slot);
    const quote = (p: Projection, mode: 'ExactIn' | 'ExactOut') => {
      const r = findBestRoute(p, { inputMint: MINTS.SOL, outputMint: MINTS.USDC, amount: 2_000_000n, mode, maxHops: 4 });
      return [r.amountIn, r.amountOut, r.hops.map((h) => h.pool.address)];
    };
    for (const mode of ['ExactIn', 'ExactOut'] as const) expect(quote(a, mode)).toEqual(quote(b, mode));
  });

  it('the replacement feed: searches that catch up through it find the routes of searches that re-check every pool', () => {
    const market = new SimMarket({ seed: 11, pools: 120, tokens: 24, swapsPerSlot: 12 });
    const genesis = market.genesis();
    const p = new Projection();
    p.applyBatch(records(genesis));
    // the same graph without replacedSince: every search compares pool objects
    const plain = {
      poolsOf: (mint: string) => p.poolsOf(mint),
      get topologyVersion() {
        return p.topologyVersion;
      },
    };
    const vaults = market.pools.flatMap((sp) => [sp.state.token0Vault, sp.state.token1Vault].map((a) => genesis.find((u) => u.address === a)!));
    let seed = 12345;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    let offset = genesis.length;
    let slot = market.startSlot;
    // vault balances set to 1/30..30 times their genesis balance: rates move far enough that stale
    // ones pick other routes; the topology stays (checked)
    const topology = p.topologyVersion;
    const shake = (writes: number) => {
      const recs: PoolUpdate[] = [];
      slot++;
      for (let i = 0; i < writes; i++) {
        const v = vaults[Math.floor(rand() * vaults.length)];
        const acc = decodeTokenAccount(v.data!, v.owner);
        const scaled = (acc.amount * BigInt(Math.floor(1 + rand() * 899))) / 30n + 1000n; // of the genesis balance
        recs.push({ ...v, slot, data: encodeTokenAccount({ ...acc, amount: scaled }) });
      }
      p.applyBatch(records(recs, offset));
      offset += recs.length;
      void p.topologyVersion; // settle: the writes are re-materialised now
    };
    const mints = market.tokens.map((t) => t.mint);
    const routes = new Set<string>();
    let compared = 0;
    const check = (round: number) => {
      for (let q = 0; q < 12; q++) {
        const inputMint = mints[(round * 7 + q) % mints.length];
        const outputMint = mints[(round * 5 + q * 3 + 1) % mints.length];
        if (inputMint === outputMint) continue;
        const mode = q % 2 === 0 ? 'ExactIn' : 'ExactOut';
        const run = (g: typeof plain) => {
          try {
            const r = findBestRoute(g, { inputMint, outputMint, amount: 10n ** BigInt(3 + (q % 6)), mode, maxHops: 3 });
            return [r.amountIn, r.amountOut, r.hops.map((h) => h.pool.address)];
          } catch (e) {
            return (e as Error).message;
          }
        };
        const viaFeed = run(p);
        expect(viaFeed).toEqual(run(plain));
        routes.add(JSON.stringify(viaFeed, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
        compared++;
      }
    };
    for (let round = 0; round < 40; round++) {
      // the compiled graph a search begins with holds the rates of the current pool objects
      if (round > 0) expect(_testing.compiled(p).staleRates()).toBe(0);
      check(round);
      if (round % 10 === 9) {
        // past the journal's bound between two searches: the search re-checks every pool
        const before = p.replacedSince(null).next;
        for (let i = 0; i < 40; i++) shake(vaults.length);
        expect(p.replacedSince(null).next - before).toBeGreaterThan(4096);
      } else shake(1 + (round % 5) * 4);
      const feed = p.replacedSince(null);
      expect(feed.replaced).toBeNull();
      expect(p.replacedSince(feed.next)).toEqual({ next: feed.next, replaced: [] });
    }
    expect(p.topologyVersion).toBe(topology);
    expect(compared).toBeGreaterThan(400);
    expect(routes.size).toBeGreaterThan(100);
  });

  it('the search finds the same routes from the compiled constant-product guides as from the pools themselves', () => {
    const market = new SimMarket({ seed: 13, pools: 150, tokens: 30, swapsPerSlot: 12 });
    const p = new Projection();
    p.applyBatch(records(market.genesis()));
    // the same pools without constantProductGuide (own property shadowing the method): the search calls approxOut / approxIn
    const wrapped = new WeakMap<object, object>();
    const plain: TokenGraph = {
      poolsOf: (mint: string) =>
        p.poolsOf(mint).map((pool) => {
          let w = wrapped.get(pool);
          if (!w) wrapped.set(pool, (w = Object.assign(Object.create(pool), { constantProductGuide: undefined })));
          return w as typeof pool;
        }),
    };
    const mints = market.tokens.map((t) => t.mint);
    let compared = 0;
    for (let q = 0; q < 120; q++) {
      const inputMint = mints[(q * 7) % mints.length];
      const outputMint = mints[(q * 11 + 3) % mints.length];
      if (inputMint === outputMint) continue;
      const mode = q % 2 === 0 ? 'ExactIn' : 'ExactOut';
      const run = (g: TokenGraph) => {
        try {
          const r = findBestRoute(g, { inputMint, outputMint, amount: 10n ** BigInt(3 + (q % 7)), mode, maxHops: 4 });
          return [r.amountIn, r.amountOut, r.hops.map((h) => h.pool.address)];
        } catch (e) {
          return (e as Error).message;
        }
      };
      expect(run(p)).toEqual(run(plain));
      compared++;
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('a dependency closed and written again: the pool is unroutable in between, then routable, its dependents kept', () => {
    const { market, genesis, p } = fresh();
    const sp = market.pools[2];
    const vault = genesis.find((u) => u.address === sp.state.token1Vault)!;
    const accounts = p.stats.accounts;
    p.drainChanged();
    let off = genesis.length;
    p.apply({ partition: 0, offset: off++, value: encodePoolUpdate({ ...vault, slot: vault.slot + 1, data: null }) });
    expect(p.stats.accounts).toBe(accounts - 1);
    expect(p.account(vault.address)).toBeUndefined();
    expect(p.markets().find((m) => m.address === sp.address)!.reason).toBe(`missing token1 vault account ${vault.address}`);
    expect(p.dependenciesOf(sp.address)).toContain(vault.address);
    p.apply({ partition: 0, offset: off++, value: encodePoolUpdate({ ...vault, slot: vault.slot + 2 }) });
    expect(p.stats.accounts).toBe(accounts);
    expect([...p.drainChanged()]).toEqual([sp.address]);
    const pool = p.pool(sp.address) as CpmmPool;
    expect(pool.vault1Amount).toBe(sp.vault1);
    expect(pool.slot).toBe(vault.slot + 2);
  });

  it('a pool reference reads what pool(address) reads: each replacement, undefined while unroutable, and nothing once the pool left (a new one is taken by address)', () => {
    const { market, genesis, p } = fresh();
    const sp = market.pools[3];
    const ref = p.poolRef(sp.address)!;
    expect(ref.address).toBe(sp.address);
    expect(p.poolAt(ref)).toBe(p.pool(sp.address));
    expect(p.poolRef('11111111111111111111111111111111')).toBeUndefined();
    let off = genesis.length;
    const vault = genesis.find((u) => u.address === sp.state.token0Vault)!;
    const acc = decodeTokenAccount(vault.data!, vault.owner);
    // a write replaces the pool object: the reference reads the new one (lazily re-materialised)
    p.apply({ partition: 0, offset: off++, value: encodePoolUpdate({ ...vault, slot: vault.slot + 1, data: encodeTokenAccount({ ...acc, amount: acc.amount + 7n }) }) });
    expect((p.poolAt(ref) as CpmmPool).vault0Amount).toBe(sp.vault0 + 7n);
    expect(p.poolAt(ref)).toBe(p.pool(sp.address));
    // unroutable (a dependency closed), then routable again: the same reference follows
    p.apply({ partition: 0, offset: off++, value: encodePoolUpdate({ ...vault, slot: vault.slot + 2, data: null }) });
    expect(p.poolAt(ref)).toBeUndefined();
    expect(p.poolRef(sp.address)).toBeUndefined();
    p.apply({ partition: 0, offset: off++, value: encodePoolUpdate({ ...vault, slot: vault.slot + 3 }) });
    expect(p.poolAt(ref)).toBe(p.pool(sp.address));
    expect(p.poolAt(ref)).toBeDefined();
    // the pool account closed and written again: the old reference reads nothing, a new one reads the pool
    const poolUpd = genesis.find((u) => u.address === sp.address)!;
    p.apply({ partition: 0, offset: off++, value: encodePoolUpdate({ ...poolUpd, slot: poolUpd.slot + 4, data: null }) });
    expect(p.poolAt(ref)).toBeUndefined();
    p.apply({ partition: 0, offset: off++, value: encodePoolUpdate({ ...poolUpd, slot: poolUpd.slot + 5 }) });
    expect(p.pool(sp.address)).toBeDefined();
    expect(p.poolAt(ref)).toBeUndefined();
    expect(p.poolAt(p.poolRef(sp.address)!)).toBe(p.pool(sp.address));
  });

  it('closing an account it never saw is applied and changes nothing', () => {
    const { genesis, p } = fresh();
    const before = JSON.stringify(p.markets());
    const stats = p.stats;
    p.drainChanged();
    const unseen = 'Gh9ZwEmdLJ8DscKNTkTqPbNwLNNBjuSzaG9Vp2KGtKJr';
    expect(p.account(unseen)).toBeUndefined();
    const r = p.apply({ partition: 0, offset: genesis.length, value: encodePoolUpdate({ slot: 1, address: unseen, owner: PROGRAM_IDS.token, lamports: 0n, data: null, source: 't' }) });
    expect(r).toEqual({ applied: true });
    expect(p.stats).toEqual({ ...stats, applied: stats.applied + 1 });
    expect(JSON.stringify(p.markets())).toBe(before);
    expect(p.drainChanged().size).toBe(0);
  });

  it('every account closed, then written again: empty in between, then the same state as a fresh projection', () => {
    const { genesis, p } = fresh();
    let off = genesis.length;
    for (const u of genesis) p.apply({ partition: 0, offset: off++, value: encodePoolUpdate({ ...u, data: null }) });
    expect(p.stats).toMatchObject({ accounts: 0, pools: 0, routablePools: 0, tokens: 0 });
    expect(p.markets()).toEqual([]);
    for (const u of genesis) p.apply({ partition: 0, offset: off++, value: encodePoolUpdate(u) });
    const q = new Projection();
    q.applyBatch(records(genesis));
    expect(p.markets()).toEqual(q.markets());
    expect(p.tokens()).toEqual(q.tokens());
    for (const m of q.markets()) {
      expect(p.pool(m.address)).toEqual(q.pool(m.address));
      expect(p.dependenciesOf(m.address)).toEqual(q.dependenciesOf(m.address));
    }
  });

  it('decodes a changed account again and an unchanged one not; the cached decodes give the state a fresh decode gives', () => {
    const market = new SimMarket({ seed: 9, pools: 30, tokens: 8, swapsPerSlot: 20 });
    const p = new Projection();
    const all: PoolUpdate[] = market.genesis();
    p.applyBatch(records(all));
    const sp = market.pools[0];
    const mintBefore = mintAccount(p.account(sp.state.token0Mint)!);
    const vaultBefore = tokenAccount(p.account(sp.state.token0Vault)!);
    for (let i = 0; i < 40; i++) {
      const step = market.step();
      p.applyBatch(records(step, all.length));
      all.push(...step);
      p.drainChanged();
    }
    // the mint was never written again: same decode; the vault was: decoded again, to its new amount
    expect(mintAccount(p.account(sp.state.token0Mint)!)).toBe(mintBefore);
    const vaultAfter = tokenAccount(p.account(sp.state.token0Vault)!);
    expect(all.filter((u) => u.address === sp.state.token0Vault).length).toBeGreaterThan(1);
    expect(vaultAfter).not.toBe(vaultBefore);
    expect(vaultAfter).toEqual(decodeTokenAccount(p.account(sp.state.token0Vault)!.data, PROGRAM_IDS.token));
    // a projection given only each account's last write decodes everything afresh (no previous
    // content, no cached decode): the same pools, field for field
    const last = new Map<string, PoolUpdate>();
    for (const u of all) last.set(u.address, u);
    const q = new Projection();
    q.applyBatch(records([...last.values()]));
    expect(q.markets()).toEqual(p.markets());
    expect(q.tokens()).toEqual(p.tokens());
    for (const m of p.markets()) expect(q.pool(m.address)).toEqual(p.pool(m.address));
  });
});
