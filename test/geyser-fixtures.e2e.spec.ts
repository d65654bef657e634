/**
 * The real mainnet account bytes of ../shared/fixtures (the SOL-USDC Whirlpool of
 * whirlpool-essentials: pool, tick arrays, vaults, and the SOL and USDC mints) served through the
 * Geyser stand-in and ingested through INGEST_SOURCE=geyser: the pool account lands on chain and
 * comes in by the owner filter; the accounts it depends on are followed by address and land
 * after, so their bytes too come through the stream. The pool decodes, is routable, and quotes
 * bit for bit as the same bytes projected directly.
 */
import { GeyserSource } from '../apps/ingestor/src/geyser/geyser-source';
import { ADDRESS_FILTER } from '../apps/ingestor/src/geyser/subscribe-request';
import { CaptureLog } from './support/chain-stand-in/compare';
import { GeyserStandIn } from './support/chain-stand-in/geyser-stand-in';
import { MarketChain } from './support/chain-stand-in/market-chain';
import { RpcStandIn } from './support/chain-stand-in/rpc-stand-in';
import { expectAsFixture, solUsdcWhirlpoolAccounts, SOL_USDC_WHIRLPOOL } from './support/chain-stand-in/whirlpool-fixture';
import { waitFor } from './support/wait-for';

const POOL = SOL_USDC_WHIRLPOOL;
const quiet = { log: (): void => undefined, warn: (): void => undefined, error: (): void => undefined };

describe('real fixture accounts served through the Geyser stand-in', () => {
  it('the SOL-USDC Whirlpool of mainnet decodes and quotes through geyser as from its bytes', async () => {
    const accounts = solUsdcWhirlpoolAccounts();
    expect(accounts.length).toBeGreaterThan(8);
    const pool = accounts.find((a) => a.address === POOL)!;
    expect(pool).toBeDefined();
    // a chain with no Whirlpool yet: the bootstrap finds none, the stream brings it
    const chain = new MarketChain({ pools: 1, tokens: 3, programs: ['raydium-cpmm'] });
    const onChainBefore = new Set(chain.all().map((a) => a.address));
    const node = await RpcStandIn.start(chain);
    const geyser = new GeyserStandIn({ retentionSlots: 50 });
    await geyser.start();
    geyser.serve(chain);
    const log = new CaptureLog();
    const source = new GeyserSource(
      {
        rpcUrls: [node.url],
        rpcWsUrls: [node.wsUrl],
        rpcKey: null,
        ingestPrograms: ['orca-whirlpool'],
        ingestMints: null,
        ingestPools: null,
        geyserUrl: geyser.url,
        geyserXToken: null,
        geyserCommitment: 'processed',
        geyserPingMs: 1_000,
      },
      log.asLog(),
      quiet,
    );
    try {
      await source.start();
      await waitFor(() => geyser.openCalls === 1, 10_000, 'the subscription', 10);
      const stream = source.stream!;
      // the pool account first: it enters by the owner filter, its dependencies are followed
      chain.tick();
      chain.write(pool.address, pool.owner, pool.data!, pool.lamports);
      const deps = accounts.filter((a) => a.address !== POOL);
      const followed = (): Set<string> => new Set(geyser.stats.lastAccountFilters[ADDRESS_FILTER]?.account ?? []);
      await waitFor(async () => {
        await stream.idle();
        return source.sink.projection.dependenciesOf(POOL).length > 0 && source.sink.projection.dependenciesOf(POOL).every((d) => followed().has(d));
      }, 10_000, 'the pool’s dependencies in the address filter', 10);
      const needed = new Set(source.sink.projection.dependenciesOf(POOL));
      expect(deps.filter((a) => needed.has(a.address)).length).toBeGreaterThan(4);
      // then what it depends on: each account's bytes come through the stream
      chain.tick();
      for (const a of deps) chain.write(a.address, a.owner, a.data!, a.lamports);
      chain.tick();
      await waitFor(async () => {
        await stream.idle();
        const st = stream.stats();
        return st.chainSlot === chain.slot && st.ingestedSlot >= chain.slot;
      }, 20_000, 'the geyser source to catch up with the chain', 10);
      await stream.idle();

      const st = stream.stats();
      expect(st.rejected).toBe(0);
      const updates = log.updates();
      const viaStream = new Set(updates.filter((u) => u.source === 'geyser').map((u) => u.address));
      expect(viaStream.has(POOL)).toBe(true);
      // what the chain held before (the market's own SOL and USDC mints) was read over RPC; the rest came by the stream
      for (const d of needed) if (!onChainBefore.has(d) && deps.some((a) => a.address === d)) expect(viaStream.has(d)).toBe(true);
      // the last write of each fixture account is its mainnet bytes
      const last = new Map(updates.map((u) => [u.address, u]));
      for (const a of accounts) if (a.address === POOL || needed.has(a.address)) expect(last.get(a.address)?.data?.equals(a.data!)).toBe(true);
      expectAsFixture(updates, accounts);
    } finally {
      await source.stop();
      await geyser.close();
      await node.close();
    }
  });
});
