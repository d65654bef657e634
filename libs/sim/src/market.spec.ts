import { cpmmApplySwap } from '@app/amm';
import { encodePoolUpdate, type PoolUpdate } from '@app/contracts';
import { decodeMetaplexMetadata, metadataAddress } from '@app/solana';
import { base58Decode } from '@app/solana';
import { MINTS, PROGRAM_IDS } from '@app/solana';
import {
  cpmmAmmConfigAddress,
  cpmmAuthority,
  cpmmLpMintAddress,
  cpmmObservationAddress,
  cpmmPoolAddress,
  cpmmVaultAddress,
  decodeCpmmAmmConfig,
  decodeCpmmPoolState,
  type CpmmPoolState,
} from '@app/solana';
import { decodeMint, decodeTokenAccount } from '@app/solana';
import { SimMarket, rentExemptLamports, type SimMarketOptions } from './market';

const DEFAULTS: SimMarketOptions = { seed: 1, pools: 240, tokens: 64, swapsPerSlot: 8 };

function wire(updates: PoolUpdate[]): string[] {
  return updates.map((u) => encodePoolUpdate(u).toString('base64'));
}

function bytes(mint: string): Buffer {
  return Buffer.from(base58Decode(mint)!);
}

describe('SimMarket', () => {
  const market = new SimMarket(DEFAULTS);
  const genesis = market.genesis();

  it('is deterministic: same seed ⇒ byte-identical genesis and first 50 steps; other seed ⇒ different', () => {
    const a = new SimMarket({ ...DEFAULTS, seed: 42 });
    const b = new SimMarket({ ...DEFAULTS, seed: 42 });
    expect(wire(a.genesis())).toEqual(wire(b.genesis()));
    for (let i = 0; i < 50; i++) expect(wire(a.step())).toEqual(wire(b.step()));
    expect(a.slot).toBe(b.slot);
    const c = new SimMarket({ ...DEFAULTS, seed: 43 });
    expect(wire(c.genesis())).not.toEqual(wire(new SimMarket({ ...DEFAULTS, seed: 42 }).genesis()));
  });

  it('advance() reaches the same state as step() without building bytes', () => {
    const a = new SimMarket({ ...DEFAULTS, seed: 5, pools: 60 });
    const b = new SimMarket({ ...DEFAULTS, seed: 5, pools: 60 });
    let last: PoolUpdate[] = [];
    for (let i = 0; i < 30; i++) last = a.step();
    b.advance(29);
    expect(wire(b.step())).toEqual(wire(last));
    expect(wire(a.snapshot())).toEqual(wire(b.snapshot()));
    expect(a.slot).toBe(b.slot);
  });

  it('has the default shape: ≥ 200 pools, ≥ 60 tokens, SOL/USDC/USDT under their real mints', () => {
    expect(market.pools.length).toBe(240);
    expect(market.tokens.length).toBe(64);
    const byMint = new Map(market.tokens.map((t) => [t.mint, t]));
    expect(byMint.get(MINTS.SOL)?.decimals).toBe(9);
    expect(byMint.get(MINTS.USDC)?.decimals).toBe(6);
    expect(byMint.get(MINTS.USDT)?.decimals).toBe(6);
    expect(byMint.get(MINTS.SOL)!.priceUsd).toBeGreaterThan(100);
    expect(byMint.get(MINTS.SOL)!.priceUsd).toBeLessThan(200);
    expect(new Set(market.tokens.map((t) => t.decimals)).size).toBeGreaterThanOrEqual(4);
    const pairs = market.pools.map((p) => [market.tokens[p.token0].mint, market.tokens[p.token1].mint].sort().join('/'));
    for (const [x, y] of [
      [MINTS.SOL, MINTS.USDC],
      [MINTS.SOL, MINTS.USDT],
      [MINTS.USDC, MINTS.USDT],
    ]) {
      expect(pairs).toContain([x, y].sort().join('/'));
    }
    // parallel pools: the same pair at different fee tiers
    const perPair = new Map<string, Set<number>>();
    market.pools.forEach((p, i) => {
      const s = perPair.get(pairs[i]) ?? new Set<number>();
      s.add(p.tier);
      perPair.set(pairs[i], s);
    });
    expect([...perPair.values()].filter((s) => s.size > 1).length).toBeGreaterThanOrEqual(5);
    // token↔token pools (neither side SOL or a stable) for multi-hop routes
    expect(market.pools.filter((p) => p.token0 > 2 && p.token1 > 2).length).toBeGreaterThanOrEqual(50);
    expect(market.pools.filter((p) => p.tiny).length).toBeGreaterThanOrEqual(2);
    expect(new Set(market.pools.map((p) => p.tier)).size).toBe(4);
  });

  it('connects every token to SOL, USDC or USDT directly', () => {
    const anchored = new Set<number>([0, 1, 2]);
    for (const p of market.pools) {
      if (p.token0 <= 2) anchored.add(p.token1);
      if (p.token1 <= 2) anchored.add(p.token0);
    }
    expect(anchored.size).toBe(market.tokens.length);
  });

  it('writes pools at the program addresses with token0Mint < token1Mint bytewise', () => {
    const authority = cpmmAuthority();
    const addresses = new Set<string>();
    for (const p of market.pools) {
      const s = p.state;
      expect(Buffer.compare(bytes(s.token0Mint), bytes(s.token1Mint))).toBeLessThan(0);
      expect(s.ammConfig).toBe(cpmmAmmConfigAddress(market.feeTiers[p.tier].config.index));
      expect(p.address).toBe(cpmmPoolAddress(s.ammConfig, s.token0Mint, s.token1Mint));
      expect(s.token0Vault).toBe(cpmmVaultAddress(p.address, s.token0Mint));
      expect(s.token1Vault).toBe(cpmmVaultAddress(p.address, s.token1Mint));
      expect(s.lpMint).toBe(cpmmLpMintAddress(p.address));
      expect(s.observationKey).toBe(cpmmObservationAddress(p.address));
      expect(s.status).toBe(0);
      expect(s.protocolFeesToken0 + s.protocolFeesToken1 + s.fundFeesToken0 + s.fundFeesToken1).toBe(0n);
      expect(s.lpSupply).toBeGreaterThan(0n);
      addresses.add(p.address);
    }
    expect(addresses.size).toBe(market.pools.length);
    expect(authority).toBeTruthy();
  });

  it('every genesis account decodes with the libs/solana decoders to what was generated', () => {
    const byAddress = new Map(genesis.map((u) => [u.address, u]));
    expect(byAddress.size).toBe(genesis.length);
    // fee tiers, mints and their Metadata accounts, three accounts a pool
    expect(genesis.length).toBe(market.feeTiers.length + 2 * market.tokens.length + 3 * market.pools.length);
    for (const u of genesis) {
      expect(u.slot).toBe(market.startSlot);
      expect(u.source).toBe('sim');
      expect(u.data).not.toBeNull();
    }
    for (const t of market.feeTiers) {
      const u = byAddress.get(t.address)!;
      expect(u.owner).toBe(PROGRAM_IDS.raydiumCpmm);
      expect(u.lamports).toBe(rentExemptLamports(236));
      expect(decodeCpmmAmmConfig(u.data!, u.owner)).toEqual(t.config);
    }
    expect(market.feeTiers.map((t) => t.config.tradeFeeRate)).toEqual([2500n, 10000n, 20000n, 40000n]);
    for (const t of market.tokens) {
      const md = byAddress.get(metadataAddress(t.mint))!;
      expect(decodeMetaplexMetadata(md.data!, md.owner)).toMatchObject({ mint: t.mint, symbol: t.symbol.slice(0, 10) });
      const u = byAddress.get(t.mint)!;
      expect(u.owner).toBe(PROGRAM_IDS.token);
      expect(u.lamports).toBe(1461600n);
      expect(decodeMint(u.data!, u.owner)).toEqual({
        mintAuthority: t.mintAuthority,
        supply: t.supply,
        decimals: t.decimals,
        isInitialized: true,
        freezeAuthority: t.freezeAuthority,
      });
    }
    const held = new Map<string, bigint>();
    for (const p of market.pools) {
      const u = byAddress.get(p.address)!;
      expect(u.owner).toBe(PROGRAM_IDS.raydiumCpmm);
      expect(u.lamports).toBe(rentExemptLamports(637));
      expect(decodeCpmmPoolState(u.data!, u.owner)).toEqual(p.state);
      for (const [vault, mint, amount] of [
        [p.state.token0Vault, p.state.token0Mint, p.vault0],
        [p.state.token1Vault, p.state.token1Mint, p.vault1],
      ] as const) {
        const v = byAddress.get(vault)!;
        const acc = decodeTokenAccount(v.data!, v.owner);
        const native = mint === MINTS.SOL;
        expect(acc).toEqual({
          mint,
          owner: cpmmAuthority(),
          amount,
          delegate: null,
          state: 'initialized',
          isNative: native ? 2039280n : null,
          delegatedAmount: 0n,
          closeAuthority: null,
        });
        expect(v.lamports).toBe(native ? 2039280n + amount : 2039280n);
        held.set(mint, (held.get(mint) ?? 0n) + amount);
      }
    }
    // supplies cover what the vaults hold (the native mint keeps supply 0 as on chain)
    for (const t of market.tokens) if (t.mint !== MINTS.SOL) expect(t.supply).toBeGreaterThanOrEqual(held.get(t.mint) ?? 0n);
  });

  it('starts reserves consistent with the latent prices, depths from tiny to millions of USD', () => {
    const depths: number[] = [];
    for (const p of market.pools) {
      const t0 = market.tokens[p.token0];
      const t1 = market.tokens[p.token1];
      const usd0 = (Number(p.vault0) / 10 ** t0.decimals) * t0.priceUsd;
      const usd1 = (Number(p.vault1) / 10 ** t1.decimals) * t1.priceUsd;
      depths.push(usd1);
      // both sides worth the same (up to the ±0.5% start offset), unless a side hit the raw cap/floor
      if (p.vault0 < 10n ** 17n && p.vault1 < 10n ** 17n && p.vault0 > 10n && p.vault1 > 10n) {
        expect(Math.abs(usd0 / usd1 - 1)).toBeLessThan(0.02);
      }
    }
    expect(Math.min(...depths)).toBeLessThan(500);
    expect(Math.max(...depths)).toBeGreaterThan(1_000_000);
  });

  it('moves reserves only by exact cpmmApplySwap transitions, and returns only changed accounts', () => {
    const m = new SimMarket({ ...DEFAULTS, seed: 9 });
    m.genesis();
    const modes = new Set<string>();
    let swaps = 0;
    for (let step = 0; step < 100; step++) {
      const states = m.pools.map((p) => p.state);
      const before = m.pools.map((p) => ({ state: { ...p.state } as CpmmPoolState, vault0: p.vault0, vault1: p.vault1 }));
      const updates = m.step();
      expect(m.slot).toBe(m.startSlot + step + 1);
      const expected = before.map((b) => ({ ...b }));
      const touched = new Set<number>();
      for (const s of m.lastSwaps) {
        const cur = expected[s.pool];
        const next = cpmmApplySwap(cur.state, m.feeTiers[m.pools[s.pool].tier].config, cur.vault0, cur.vault1, s.aToB, s.mode, s.amount);
        expect(next.result).toEqual(s.result);
        expected[s.pool] = { state: { ...next.state, recentEpoch: BigInt(Math.floor(m.slot / 432000)) }, vault0: next.vault0, vault1: next.vault1 };
        touched.add(s.pool);
        modes.add(s.mode);
        swaps++;
      }
      const untouchedChanged = m.pools.filter(
        (p, i) => !touched.has(i) && (p.vault0 !== before[i].vault0 || p.vault1 !== before[i].vault1 || p.state !== states[i]),
      );
      expect(untouchedChanged).toEqual([]);
      for (const i of touched) {
        const p = m.pools[i];
        expect(p.state).toEqual(expected[i].state);
        expect(p.vault0).toBe(expected[i].vault0);
        expect(p.vault1).toBe(expected[i].vault1);
      }
      // the slot's writes: exactly the touched pools' vaults and states, decoding to the new values
      expect(updates.length).toBe(3 * touched.size);
      const byAddress = new Map(updates.map((u) => [u.address, u]));
      for (const i of touched) {
        const p = m.pools[i];
        expect(decodeCpmmPoolState(byAddress.get(p.address)!.data!)).toEqual(p.state);
        expect(decodeTokenAccount(byAddress.get(p.state.token0Vault)!.data!, PROGRAM_IDS.token).amount).toBe(p.vault0);
        expect(decodeTokenAccount(byAddress.get(p.state.token1Vault)!.data!, PROGRAM_IDS.token).amount).toBe(p.vault1);
      }
      for (const u of updates) expect(u.slot).toBe(m.slot);
    }
    expect(modes).toEqual(new Set(['ExactIn', 'ExactOut']));
    expect(swaps).toBeGreaterThan(500);
    expect(m.stats().swapsApplied).toBe(swaps);
  });

  it('refuses genesis() after a step and validates options', () => {
    const m = new SimMarket({ ...DEFAULTS, pools: 10, tokens: 8 });
    m.step();
    expect(() => m.genesis()).toThrow(/snapshot/);
    expect(() => new SimMarket({ ...DEFAULTS, tokens: 2 })).toThrow(RangeError);
    expect(() => new SimMarket({ ...DEFAULTS, pools: 0 })).toThrow(RangeError);
  });

  it('handles small and dense markets (few pools, few tokens)', () => {
    const small = new SimMarket({ seed: 3, pools: 1, tokens: 64, swapsPerSlot: 4 });
    expect(small.pools.length).toBe(1);
    expect(small.tokens.length).toBe(3);
    const dense = new SimMarket({ seed: 3, pools: 30, tokens: 4, swapsPerSlot: 4 });
    expect(dense.pools.length).toBe(24); // 6 pairs × 4 fee tiers: everything there is
    for (let i = 0; i < 20; i++) dense.step();
  });

  it('builds a 1,000-pool genesis', () => {
    const t0 = process.hrtime.bigint();
    const big = new SimMarket({ ...DEFAULTS, pools: 1000 });
    const updates = big.genesis();
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    expect(big.pools.length).toBe(1000);
    expect(updates.length).toBe(4 + 2 * 64 + 3000);
    // eslint-disable-next-line no-console
    console.log(`genesis with 1000 pools: ${ms.toFixed(0)} ms`);
  });
});
