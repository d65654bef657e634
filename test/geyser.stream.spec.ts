/**
 * The geyser source against the Geyser stand-in (a gRPC server speaking the package's own
 * protobuf), fed by the simulated market as the chain: the writes that reach pool-updates give
 * the same projection (the same pools, the same quotes bit for bit) as the market's own writes;
 * streams dropped every few seconds lose nothing; malformed messages are counted, never written;
 * a new pool's dependencies join the address filter.
 */
import type { PoolUpdate } from '../libs/contracts/src/pool-update';
import { PROGRAM_IDS } from '../libs/solana/src/programs';
import { SimMarket } from '../apps/ingestor/src/sim/market';
import { GeyserStream, type GeyserStart } from '../apps/ingestor/src/geyser/geyser-stream';
import { ProgramAccounts } from '../apps/ingestor/src/geyser/program-accounts';
import { ADDRESS_FILTER } from '../apps/ingestor/src/geyser/subscribe-request';
import { GeyserStandIn, type StandInAccount } from './support/chain-stand-in/geyser-stand-in';
import { projectionOf } from './support/projection';
import { waitFor } from './support/wait-for';
import { base58Decode } from '../libs/solana/src/base58';

const quiet = process.env.GEYSER_TEST_LOG ? { log: (m: string) => console.log(m), warn: (m: string) => console.log(m), error: (m: string) => console.log(m) } : { log: () => undefined, warn: () => undefined, error: () => undefined };

function asChain(u: PoolUpdate): StandInAccount {
  return u.data === null
    ? { pubkey: u.address, owner: PROGRAM_IDS.system, lamports: 0n, data: Buffer.alloc(0), slot: u.slot }
    : { pubkey: u.address, owner: u.owner, lamports: u.lamports, data: u.data, slot: u.slot };
}

/** every routable pool's quotes both ways, as text (bigint amounts exactly) */
function fingerprint(updates: PoolUpdate[]): string {
  const p = projectionOf(updates);
  const out: string[] = [];
  for (const m of p.markets()) {
    out.push(`${m.address} ${m.routable} ${'reason' in m ? m.reason : ''}`);
    const pool = p.pool(m.address);
    if (!pool) continue;
    for (const [mint, amount] of [
      [pool.mintA, 1_000_000n],
      [pool.mintB, 1_000_000n],
    ] as const) {
      let q: unknown;
      try {
        q = pool.quoteExactIn(mint, amount);
      } catch (e) {
        q = (e as Error).message;
      }
      out.push(JSON.stringify(q, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
    }
  }
  return out.join('\n');
}

interface Harness {
  standIn: GeyserStandIn;
  market: SimMarket;
  reference: PoolUpdate[];
  genesisLength: number;
  written: PoolUpdate[];
  stream: GeyserStream;
  accounts: ProgramAccounts;
  /** one slot of the market, published to the stand-in (and to the reference) */
  step(): void;
}

async function harness(opts: { xToken?: string; retentionSlots?: number; commitment?: 'processed' | 'confirmed'; read?: (a: string[]) => PoolUpdate[] } = {}): Promise<Harness> {
  const standIn = new GeyserStandIn({ xToken: opts.xToken, retentionSlots: opts.retentionSlots });
  const url = await standIn.start();
  const market = new SimMarket({ seed: 7, pools: 60, tokens: 20, swapsPerSlot: 8, programs: 'all' });
  const genesis = market.genesis();
  const accounts = new ProgramAccounts();
  const programs = new Set(accounts.programIds());
  const reference = [...genesis];
  // the RPC snapshot, as the bootstrap writes it
  const written: PoolUpdate[] = [...genesis];
  standIn.publishSlot(market.slot);
  const start: GeyserStart = {
    owners: programs,
    addresses: genesis.filter((u) => !programs.has(u.owner)).map((u) => [u.address, u.owner] as [string, string]),
    slot: market.slot,
    written: genesis.map((u) => ({ address: u.address, slot: u.slot })),
  };
  const stream = new GeyserStream(
    { url, xToken: opts.xToken ?? null, commitment: opts.commitment ?? 'processed', pingMs: 1_000, reconnectMinMs: 20, reconnectMaxMs: 200 },
    {
      write: async (us) => void written.push(...us),
      read: async (a) => (opts.read ? opts.read(a) : []),
      dependencies: (u) => accounts.dependencies(u),
      layouts: accounts,
      logger: quiet,
    },
    start,
  );
  const step = (): void => {
    const us = market.step();
    reference.push(...us);
    for (const u of us) standIn.publishAccount(asChain(u));
    standIn.publishSlot(market.slot);
  };
  return { standIn, market, reference, genesisLength: genesis.length, written, stream, accounts, step };
}

const lastSlotOf = (us: PoolUpdate[]): number => us.reduce((m, u) => Math.max(m, u.slot), 0);

describe('geyser source through the Geyser stand-in', () => {
  let h: Harness | null = null;
  afterEach(async () => {
    await h?.stream.stop();
    await h?.standIn.close();
    h = null;
  });

  it('reaches the projection of the simulated market fed directly: the same pools, the same quotes', async () => {
    h = await harness({ xToken: 'secret' });
    h.stream.start();
    await waitFor(() => h!.standIn.openCalls === 1 && h!.standIn.stats.requests > 0, 10_000, 'the subscription');
    for (let i = 0; i < 30; i++) h.step();
    await waitFor(() => h!.written.length === h!.reference.length, 10_000, 'every write');
    expect(lastSlotOf(h.written)).toBe(h.market.slot);
    expect(h.written.slice(h.genesisLength).every((u) => u.source === 'geyser')).toBe(true);
    expect(fingerprint(h.written)).toBe(fingerprint(h.reference));
    const s = h.stream.stats();
    expect(s.rejected).toBe(0);
    expect(s.streamErrors).toBe(0);
    expect(h.standIn.stats.commitment).toBe(0); // processed
    expect(Object.keys(h.standIn.stats.lastAccountFilters)).toEqual(expect.arrayContaining([ADDRESS_FILTER, `owner:${PROGRAM_IDS.raydiumCpmm}`]));
  });

  it('loses nothing when the stream is dropped every few seconds: it resumes from the newest slot it saw', async () => {
    h = await harness();
    h.stream.start();
    await waitFor(() => h!.standIn.openCalls === 1, 10_000, 'the subscription');
    const drops = 3;
    for (let d = 0; d < drops; d++) {
      for (let i = 0; i < 10; i++) {
        h.step();
        await new Promise((r) => setTimeout(r, 20));
      }
      h.standIn.dropAll();
      // the chain goes on while the stream is down
      for (let i = 0; i < 5; i++) h.step();
      await waitFor(() => h!.standIn.openCalls === 1, 10_000, 'the reconnect');
    }
    await waitFor(() => h!.written.length >= h!.reference.length, 10_000, 'every write');
    expect(h.written.length).toBe(h.reference.length);
    expect(fingerprint(h.written)).toBe(fingerprint(h.reference));
    const s = h.stream.stats();
    expect(s.reconnects).toBe(drops);
    expect(h.standIn.stats.fromSlots).toHaveLength(drops + 1);
    // each resume asks for the newest slot it had seen, so it replays what it may have missed
    expect(h.standIn.stats.fromSlots.slice(1).every((x) => x > h!.standIn.stats.fromSlots[0])).toBe(true);
    expect(s.stale).toBeGreaterThan(0); // the replayed writes it had already passed on
  });

  it('counts malformed messages and accounts of unknown layout or another owner, and writes none of them', async () => {
    h = await harness();
    h.stream.start();
    await waitFor(() => h!.standIn.openCalls === 1, 10_000, 'the subscription');
    h.step();
    const pool = h.reference.find((u) => u.owner === PROGRAM_IDS.raydiumCpmm && u.data !== null && h!.accounts.dependencies(u).length > 0)!;
    const vault = h.accounts.dependencies(pool).find((d) => h!.reference.some((u) => u.address === d && u.owner === PROGRAM_IDS.token))!;
    const slot = String(h.market.slot);
    const info = (over: Record<string, unknown>) => ({ slot, isStartup: false, account: { pubkey: bytes(vault), owner: bytes(PROGRAM_IDS.token), lamports: '5', executable: false, rentEpoch: '0', data: Buffer.alloc(165), writeVersion: '999999', ...over } });
    h.standIn.injectUpdate({ filters: ['x'], account: info({ pubkey: Buffer.alloc(31) }) as never });
    h.standIn.injectUpdate({ filters: ['x'], account: info({ owner: bytes(PROGRAM_IDS.system) }) as never }); // another owner
    h.standIn.injectUpdate({ filters: ['x'], account: info({ pubkey: bytes(pool.address), owner: bytes(PROGRAM_IDS.raydiumCpmm), data: Buffer.alloc(40, 7) }) as never }); // unknown layout
    h.standIn.injectUpdate({ filters: ['x'], account: info({ pubkey: bytes(PROGRAM_IDS.addressLookupTable), owner: bytes(PROGRAM_IDS.system) }) as never }); // not followed
    h.standIn.injectUpdate({ filters: ['x'], account: { slot, isStartup: false, account: undefined } });
    h.standIn.injectUpdate({ filters: ['x'] });
    const before = h.written.length;
    // bytes that do not parse: the client ends the stream; the source resumes from its slot
    h.standIn.injectRaw(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]));
    await waitFor(() => h!.stream.stats().reconnects === 1 && h!.standIn.openCalls === 1, 10_000, 'the reconnect');
    for (let i = 0; i < 5; i++) h.step();
    await waitFor(() => h!.written.length >= h!.reference.length, 10_000, 'every write');
    const s = h.stream.stats();
    expect(s.rejected).toBe(6);
    expect(Object.keys(s.rejectedBy).sort()).toEqual(
      [
        'account message with a pubkey of N bytes (N expected)',
        'account <key>: owner <key>, expected <key>',
        'account <key> of <key>: unknown layout (N bytes)',
        'account <key> of <key>: neither its owner nor its address is followed',
        'account message without account info',
        'message without a known update (empty oneof)',
      ].sort(),
    );
    expect(s.streamErrors).toBe(1);
    expect(before).toBeLessThanOrEqual(h.written.length);
    expect(h.written.some((u) => u.slot === h!.market.startSlot + 1 && u.lamports === 5n)).toBe(false);
    expect(fingerprint(h.written)).toBe(fingerprint(h.reference));
  });

  it('follows a new pool without a restart: its dependencies join the address filter and are read once', async () => {
    const other = new SimMarket({ seed: 99, pools: 30, tokens: 20, swapsPerSlot: 1, programs: ['raydium-cpmm'] });
    const otherAccounts = other.genesis();
    const reads: string[][] = [];
    h = await harness({
      read: (a) => {
        reads.push(a);
        return otherAccounts.filter((u) => a.includes(u.address)).map((u) => ({ ...u, slot: h!.market.slot, source: 'rpc' }));
      },
    });
    h.stream.start();
    await waitFor(() => h!.standIn.openCalls === 1, 10_000, 'the subscription');
    const accounts = new ProgramAccounts();
    const known = new Set(h.reference.map((u) => u.address));
    const pool = otherAccounts.find((u) => u.owner === PROGRAM_IDS.raydiumCpmm && accounts.dependencies(u).length > 0 && !known.has(u.address))!;
    const vaults = accounts.dependencies(pool).filter((d) => otherAccounts.some((u) => u.address === d && u.owner === PROGRAM_IDS.token) && !known.has(d));
    expect(vaults.length).toBeGreaterThanOrEqual(2);
    h.step();
    h.standIn.publishAccount(asChain({ ...pool, slot: h.market.slot }));
    await waitFor(() => (h!.standIn.stats.lastAccountFilters[ADDRESS_FILTER]?.account ?? []).includes(vaults[0]), 10_000, 'the address filter update');
    await waitFor(() => h!.written.some((u) => u.address === vaults[0]), 10_000, 'the read of the new vault');
    expect(reads.flat()).toEqual(expect.arrayContaining(vaults));
    // a later write of the vault comes through the stream
    const vault = otherAccounts.find((u) => u.address === vaults[0])!;
    h.standIn.publishAccount(asChain({ ...vault, lamports: vault.lamports + 1n, slot: h.market.slot + 1 }));
    await waitFor(() => h!.written.some((u) => u.address === vaults[0] && u.source === 'geyser'), 10_000, 'the vault write');
    expect(h.stream.stats().newPools).toBe(1);
  });

  it('reads every followed account again when the server no longer holds the slot to resume from', async () => {
    const reads: string[][] = [];
    h = await harness({ retentionSlots: 2, commitment: 'confirmed', read: (a) => (reads.push(a), []) });
    // the chain moves on before the stream starts: the snapshot's slot is gone from the server
    for (let i = 0; i < 5; i++) h.step();
    h.stream.start();
    await waitFor(() => h!.stream.stats().resyncs === 1 && reads.length === 1, 10_000, 'the resync');
    expect(h.standIn.stats.fromSlots).toEqual([]); // SubscribeReplayInfo said the slot is gone: no from_slot
    expect(h.standIn.stats.commitment).toBe(1); // confirmed
    expect(new Set(reads[0])).toEqual(new Set(h.reference.slice(0, h.genesisLength).map((u) => u.address)));
    await waitFor(() => h!.standIn.openCalls === 1, 10_000, 'the subscription without from_slot');
  });
});

function bytes(key: string): Buffer {
  return Buffer.from(base58Decode(key)!);
}
