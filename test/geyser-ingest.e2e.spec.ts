/**
 * INGEST_SOURCE=geyser end to end: the RPC stand-in (the bootstrap snapshot) and the Geyser
 * stand-in (a gRPC server speaking the package's own protobuf, the stream) serve the simulated
 * market as the chain; the log the geyser source writes projects to what the simulated feed gives
 * at the same slots (same pools, same quotes bit for bit), live, with a new pool, through dropped
 * streams and a gap the server cannot replay, and with malformed messages refused.
 */
import { decodeIngestStatus } from '@app/contracts';
import { INGEST_PROGRAMS } from '@app/config';
import { base58Decode } from '@app/solana';
import { PROGRAM_IDS } from '@app/solana';
import { GeyserSource, type GeyserSourceOptions } from '../apps/ingestor/src/geyser/geyser-source';
import { ADDRESS_FILTER } from '../apps/ingestor/src/geyser/subscribe-request';
import { CaptureLog, marketsOf, quotesOf } from './support/chain-stand-in/compare';
import { GeyserStandIn } from './support/chain-stand-in/geyser-stand-in';
import { MarketChain } from './support/chain-stand-in/market-chain';
import { RpcStandIn } from './support/chain-stand-in/rpc-stand-in';
import { projectionOf } from './support/projection';
import { waitFor } from './support/wait-for';

const quiet = { log: (): void => undefined, warn: (): void => undefined, error: (): void => undefined };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const bytes = (key: string): Buffer => Buffer.from(base58Decode(key)!);

describe('INGEST_SOURCE=geyser through the RPC and Geyser stand-ins', () => {
  let chain: MarketChain;
  let node: RpcStandIn;
  let geyser: GeyserStandIn;
  let source: GeyserSource | null = null;
  let log: CaptureLog;

  const start = async (over: Partial<GeyserSourceOptions> = {}): Promise<GeyserSource> => {
    log = new CaptureLog();
    const opts: GeyserSourceOptions = {
      rpcUrls: [node.url],
      rpcWsUrls: [node.wsUrl],
      rpcKey: null,
      ingestPrograms: [...INGEST_PROGRAMS],
      ingestMints: null,
      ingestPools: null,
      geyserUrl: geyser.url,
      geyserXToken: 'secret',
      geyserCommitment: 'processed',
      geyserPingMs: 1_000,
      ...over,
    };
    source = new GeyserSource(opts, log.asLog(), quiet);
    await source.start();
    await waitFor(() => geyser.openCalls === 1, 10_000, 'the subscription', 10);
    return source;
  };
  /** every write of the chain so far has reached the log */
  const caughtUp = async (s: GeyserSource): Promise<void> => {
    await waitFor(async () => {
      await s.stream!.idle();
      const st = s.stream!.stats();
      return st.connected && st.chainSlot === chain.slot && st.ingestedSlot >= chain.slot;
    }, 20_000, 'the geyser source to catch up with the chain', 10).catch((e: Error) => {
      throw new Error(`${e.message} at ${chain.slot}: ${JSON.stringify(s.stream!.stats())}`);
    });
    await s.stream!.idle();
  };
  const sameAsSim = (): void => {
    const viaGeyser = projectionOf(log.updates());
    const direct = projectionOf(chain.updates());
    expect(marketsOf(viaGeyser)).toEqual(marketsOf(direct));
    expect(quotesOf(viaGeyser)).toEqual(quotesOf(direct));
    // the tokens' symbols and names: their Metadata accounts were read too
    expect(viaGeyser.tokens()).toEqual(direct.tokens());
    expect(viaGeyser.tokens().filter((t) => t.symbol === null)).toEqual([]);
  };

  beforeEach(async () => {
    chain = new MarketChain({ seed: 5, pools: 48, tokens: 16 });
    node = await RpcStandIn.start(chain);
    geyser = new GeyserStandIn({ xToken: 'secret', retentionSlots: 50 });
    await geyser.start();
    geyser.serve(chain);
  });
  afterEach(async () => {
    await source?.stop();
    source = null;
    await geyser.close();
    await node.close();
  });

  it('live: every slot the chain moves, the log projects to the simulated feed at the same slot', async () => {
    const s = await start();
    for (let i = 0; i < 15; i++) {
      chain.step();
      await caughtUp(s);
    }
    sameAsSim();
    const fromStream = log.updates().filter((u) => u.source === 'geyser');
    expect(fromStream.length).toBeGreaterThan(15);
    // the filters: pool accounts by owner (size / discriminator), every dependency by address, at the commitment
    const filters = geyser.stats.lastAccountFilters;
    expect(Object.keys(filters).filter((k) => k.startsWith('program:'))).toHaveLength(6);
    expect(filters[`program:${PROGRAM_IDS.raydiumCpmm}:0`].filters.length).toBe(2);
    expect(filters[ADDRESS_FILTER].account.length).toBeGreaterThan(100);
    expect(geyser.stats.commitment).toBe(0);
    expect(geyser.stats.fromSlots).toHaveLength(1);
    expect(s.stream!.stats().rejected).toBe(0);
    await waitFor(() => (log.byTopic.get('ingest-status')?.length ?? 0) > 0, 5_000, 'a heartbeat', 20);
    const beat = decodeIngestStatus(log.byTopic.get('ingest-status')!.at(-1)!.value);
    expect(beat.source).toBe('geyser');
  });

  it('refuses to start with a token the Geyser endpoint does not take, naming GEYSER_X_TOKEN', async () => {
    await expect(start({ geyserXToken: 'wrong' })).rejects.toThrow(/GEYSER_X_TOKEN/);
  });

  it('a pool created on chain enters without a restart: its vaults join the address filter and are read', async () => {
    const s = await start();
    const other = new MarketChain({ seed: 77, pools: 6, tokens: 8, programs: ['raydium-cpmm'] });
    const known = new Set(chain.all().map((a) => a.address));
    const pool = other.ownedBy(PROGRAM_IDS.raydiumCpmm).find((a) => a.data.length === 637 && !known.has(a.address))!;
    // its accounts land on chain first (the vaults, mints, config), the pool account last
    const accounts = other.all().filter((a) => !known.has(a.address) && a.address !== pool.address && a.owner !== PROGRAM_IDS.raydiumCpmm);
    chain.tick();
    for (const a of accounts) chain.write(a.address, a.owner, a.data, a.lamports);
    chain.write(pool.address, pool.owner, pool.data, pool.lamports);
    await caughtUp(s);
    await waitFor(() => log.updates().some((u) => u.address === pool.address), 10_000, 'the new pool');
    await s.stream!.idle();
    const followedVaults = (): typeof accounts => {
      const followed = new Set(geyser.stats.lastAccountFilters[ADDRESS_FILTER].account);
      return accounts.filter((a) => a.owner === PROGRAM_IDS.token && a.data.length === 165 && followed.has(a.address));
    };
    // the subscription update reaches the server
    await waitFor(() => followedVaults().length >= 2, 10_000, 'the vaults in the address filter', 10);
    const vaults = followedVaults();
    // a swap on it later: its vault's write comes through the stream
    chain.tick();
    const v = vaults[0];
    const data = Buffer.from(v.data);
    data.writeBigUInt64LE(data.readBigUInt64LE(64) + 1_000n, 64); // the token amount
    chain.write(v.address, v.owner, data, v.lamports);
    for (let i = 0; i < 3; i++) chain.step();
    await caughtUp(s);
    expect(log.updates().some((u) => u.address === v.address && u.source === 'geyser')).toBe(true);
    expect(s.stream!.stats().newPools).toBeGreaterThanOrEqual(1);
    sameAsSim();
  });

  it('the stream dropped every few hundred ms: nothing lost, no crash; a gap the server no longer holds is read again', async () => {
    const s = await start();
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 5; i++) {
        chain.step();
        await sleep(40);
      }
      geyser.dropAll();
      for (let i = 0; i < 3; i++) chain.step();
      await waitFor(() => geyser.openCalls === 1, 10_000, 'the reconnect', 10);
    }
    // a long gap: more slots than the server keeps, while the stream is down
    geyser.dropAll();
    for (let i = 0; i < 60; i++) chain.step();
    await waitFor(() => s.stream!.stats().resyncs === 1, 10_000, 'the resync', 10);
    chain.step();
    await caughtUp(s);
    sameAsSim();
    const st = s.stream!.stats();
    expect(st.reconnects).toBe(5);
    expect(geyser.stats.fromSlots.length).toBe(5); // the first subscribe and 4 resumes; the 5th had no slot to resume from
  });

  it('malformed messages and accounts of an unknown layout or another owner are counted, never written', async () => {
    const s = await start();
    chain.step();
    await caughtUp(s);
    const written = log.messages.length;
    const vault = chain.ownedBy(PROGRAM_IDS.token).find((a) => a.data.length === 165)!;
    const pool = chain.ownedBy(PROGRAM_IDS.raydiumCpmm).find((a) => a.data.length === 637)!;
    const slot = String(chain.slot);
    const info = (over: Record<string, unknown>): never =>
      ({ slot, isStartup: false, account: { pubkey: bytes(vault.address), owner: bytes(PROGRAM_IDS.token), lamports: '5', executable: false, rentEpoch: '0', data: Buffer.alloc(165), writeVersion: '9999999', ...over } }) as never;
    geyser.injectUpdate({ filters: ['x'], account: info({ pubkey: Buffer.alloc(31) }) });
    geyser.injectUpdate({ filters: ['x'], account: info({ owner: bytes(PROGRAM_IDS.system) }) });
    geyser.injectUpdate({ filters: ['x'], account: info({ pubkey: bytes(pool.address), owner: bytes(PROGRAM_IDS.raydiumCpmm), data: Buffer.alloc(40, 7) }) });
    geyser.injectUpdate({ filters: ['x'], account: info({ pubkey: bytes(PROGRAM_IDS.addressLookupTable), owner: bytes(PROGRAM_IDS.system) }) });
    geyser.injectUpdate({ filters: ['x'], account: { slot, isStartup: false, account: undefined } });
    geyser.injectUpdate({ filters: ['x'] });
    // bytes that do not parse end the stream on the client: counted, resumed from its slot
    geyser.injectRaw(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]));
    await waitFor(() => s.stream!.stats().reconnects === 1 && geyser.openCalls === 1, 10_000, 'the reconnect', 10);
    const st = s.stream!.stats();
    expect(st.rejected).toBe(6);
    expect(Object.keys(st.rejectedBy).sort()).toEqual(
      [
        'account <key>: owner <key>, expected <key>',
        'account <key> of <key>: unknown layout (N bytes)',
        'account <key> of <key>: neither its owner nor its address is followed',
        'account message with a pubkey of N bytes (N expected)',
        'account message without account info',
        'message without a known update (empty oneof)',
      ].sort(),
    );
    expect(st.streamErrors).toBe(1);
    expect(log.updates().slice(written).some((u) => u.lamports === 5n)).toBe(false);
    for (let i = 0; i < 3; i++) chain.step();
    await caughtUp(s);
    sameAsSim();
  });
});
