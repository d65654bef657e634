/**
 * INGEST_SOURCE=rpc end to end against the RPC stand-in (JSON-RPC + PubSub wire formats) serving
 * the simulated market as the chain: the log the rpc source writes projects to what the simulated
 * feed gives at the same slots (same pools, same quotes bit for bit), live, with new and closed
 * accounts, through faults, and with bad input refused.
 */
import { decodeIngestStatus } from '@app/contracts';
import { PROGRAM_IDS } from '@app/solana';
import { INGEST_PROGRAMS, type AppConfig } from '@app/config';
import { RpcSource } from '../apps/ingestor/src/rpc/rpc-source';
import { CaptureLog, marketsOf, quotesOf } from './support/chain-stand-in/compare';
import { MarketChain } from './support/chain-stand-in/market-chain';
import { RpcStandIn } from './support/chain-stand-in/rpc-stand-in';
import { projectionOf } from './support/projection';
import { waitFor } from './support/wait-for';

const quiet = { log: (): void => undefined, warn: (): void => undefined, error: (): void => undefined };

type Opts = Pick<AppConfig, 'rpcUrls' | 'rpcWsUrls' | 'rpcKey' | 'rpcPollMs' | 'ingestPrograms' | 'ingestMints' | 'ingestPools'>;

describe('INGEST_SOURCE=rpc through the RPC stand-in', () => {
  let chain: MarketChain;
  let node: RpcStandIn;
  let source: RpcSource | null = null;
  let log: CaptureLog;

  const start = async (over: Partial<Opts> = {}, logger = quiet): Promise<RpcSource> => {
    log = new CaptureLog();
    const opts: Opts = { rpcUrls: [node.url], rpcWsUrls: [node.wsUrl], rpcKey: null, rpcPollMs: 0, ingestPrograms: [...INGEST_PROGRAMS], ingestMints: null, ingestPools: null, ...over };
    source = new RpcSource(opts, log.asLog(), logger);
    await source.start();
    const s = source;
    await waitFor(async () => (await s.live.idle(), s.stats().live.live), 10_000, 'the subscriptions', 10);
    return s;
  };
  /** every write of the chain so far has reached the log */
  const caughtUp = async (s: RpcSource): Promise<void> => {
    await waitFor(async () => {
      await s.live.idle();
      const st = s.live.stats();
      return st.chainSlot === chain.slot && st.ingestedSlot >= chain.slot && st.live;
    }, 20_000, 'the rpc source to catch up with the chain', 10).catch((e: Error) => {
      throw new Error(`${e.message} at ${chain.slot}: ${JSON.stringify(s.live.stats())}`);
    });
    await s.live.idle();
  };
  const sameAsSim = (): void => {
    const viaRpc = projectionOf(log.updates());
    const direct = projectionOf(chain.updates());
    expect(marketsOf(viaRpc)).toEqual(marketsOf(direct));
    expect(quotesOf(viaRpc)).toEqual(quotesOf(direct));
    // the tokens' symbols and names: their Metadata accounts were read too
    expect(viaRpc.tokens()).toEqual(direct.tokens());
    expect(viaRpc.tokens().filter((t) => t.symbol === null)).toEqual([]);
  };

  beforeEach(async () => {
    chain = new MarketChain({ seed: 5, pools: 48, tokens: 16 });
    node = await RpcStandIn.start(chain);
  });
  afterEach(async () => {
    await source?.stop();
    source = null;
    await node.close();
  });

  it('live: every slot the chain moves, the log projects to the simulated feed at the same slot', async () => {
    const s = await start();
    expect(node.subscriptionCount('program')).toBe(6);
    expect(node.subscriptionCount('slot')).toBe(1);
    for (let i = 0; i < 15; i++) {
      chain.step();
      await caughtUp(s);
    }
    sameAsSim();
    // writes carry the notification's context slot; some came live
    const slots = new Set(log.updates().map((u) => u.slot));
    expect(slots.size).toBeGreaterThan(5);
    expect(s.stats().live.notifications).toBeGreaterThan(15);
    // heartbeats: chain slot and slot ingested
    await waitFor(() => (log.byTopic.get('ingest-status')?.length ?? 0) > 0, 5_000, 'a heartbeat', 20);
    const beat = decodeIngestStatus(log.byTopic.get('ingest-status')!.at(-1)!.value);
    expect(beat.source).toBe('rpc');
    expect(beat.chainSlot).toBeGreaterThan(0);
  });

  it('a pool created on chain enters without a restart; a closed account is written as data null', async () => {
    const direct = projectionOf(chain.updates());
    const pool = direct.markets().find((m) => m.label === 'Raydium CPMM' && m.routable)!;
    const saved = chain.get(pool.address)!;
    chain.close(pool.address);
    const s = await start();
    expect(projectionOf(log.updates()).markets().some((m) => m.address === pool.address)).toBe(false);
    chain.tick();
    chain.write(saved.address, saved.owner, saved.data, saved.lamports);
    chain.tick();
    await caughtUp(s);
    await waitFor(async () => (await s.live.idle(), projectionOf(log.updates()).pool(pool.address) !== undefined), 10_000, 'the new pool', 20);
    sameAsSim();
    // close a vault of another pool
    const other = direct.markets().find((m) => m.label === 'Raydium AMM v4' && m.routable)!;
    const vault = direct.dependenciesOf(other.address)[0];
    chain.tick();
    chain.close(vault);
    chain.tick();
    await caughtUp(s);
    expect(log.updates().some((u) => u.address === vault && u.data === null)).toBe(true);
    sameAsSim();
    expect(projectionOf(log.updates()).markets().find((m) => m.address === other.address)!.routable).toBe(false);
  });

  it('faults: sockets dropped, bursts of 429 and 503, an old notification: nothing lost, same final projection', async () => {
    const s = await start();
    const stale = chain.all().find((a) => a.owner === PROGRAM_IDS.raydiumCpmm && a.data.length === 637)!;
    for (let i = 0; i < 6; i++) {
      chain.step();
      node.dropSockets();
      // the heal after the reconnection meets the burst
      node.faults.status = i % 2 === 0 ? { code: 429, count: 4 } : { code: 503, count: 3 };
      chain.step();
      chain.step();
      await caughtUp(s);
      expect(s.stats().live.heals).toBeGreaterThan(i + 1);
    }
    await caughtUp(s);
    node.sendStale(stale.address, stale.owner, Buffer.alloc(637), stale.slot - 1000);
    await waitFor(() => s.stats().sink.stale > 0, 5_000, 'the old notification', 10);
    await caughtUp(s);
    sameAsSim();
    const st = s.stats();
    expect(st.live.reconnects).toBeGreaterThan(0);
    expect(st.live.heals).toBeGreaterThan(0);
    expect(st.rpc.failures['rate-limited']).toBeGreaterThanOrEqual(12);
    expect(st.rpc.failures.server).toBeGreaterThanOrEqual(9);
  });

  it('bad input: a message that does not parse, a malformed account, a pool account of another layout: counted, not written', async () => {
    const s = await start();
    const before = log.messages.length;
    node.sendRaw('{not json');
    node.sendRaw(JSON.stringify({ jsonrpc: '2.0', method: 'accountNotification', params: { result: { context: { slot: 1 }, value: {} }, subscription: 99999 } }));
    // a program notification whose account is not a pool of that program, one with data that is not base64
    const wire = (data: string): object => ({ data: [data, 'base64'], executable: false, lamports: 5, owner: PROGRAM_IDS.raydiumCpmm, rentEpoch: 0, space: 3 });
    expect(node.notifyUnchecked('program', PROGRAM_IDS.raydiumCpmm, { context: { slot: chain.slot + 1 }, value: { pubkey: PROGRAM_IDS.system, account: wire('AAAA') } })).toBe(1);
    const watchedAccount = chain.all().find((a) => a.owner === PROGRAM_IDS.raydiumCpmm)!.address;
    expect(node.notifyUnchecked('account', watchedAccount, { context: { slot: chain.slot + 1 }, value: wire('@@not base64') })).toBe(1);
    await waitFor(() => Object.keys(s.stats().live.rejected).length >= 4, 5_000, 'the refusals', 20);
    await s.live.idle();
    expect(log.messages.length).toBe(before);
    const rejected = s.stats().live.rejected;
    expect(rejected['websocket message is not JSON']).toBe(1);
    expect(rejected['notification of an unknown subscription']).toBe(1);
    expect(rejected['accountNotification: data is not valid base64']).toBe(1);
    expect(Object.keys(rejected).some((k) => /^programNotification: not a Raydium CPMM PoolState/.test(k))).toBe(true);
  });

  it('RPC_POLL_MS: the dependencies polled with getMultipleAccounts reach the same projection', async () => {
    const s = await start({ rpcPollMs: 30 });
    expect(node.subscriptionCount('account')).toBe(0);
    for (let i = 0; i < 8; i++) chain.step();
    await waitFor(async () => {
      await s.live.idle();
      return marketsOf(projectionOf(log.updates())).join() === marketsOf(projectionOf(chain.updates())).join() && quotesOf(projectionOf(log.updates())).join() === quotesOf(projectionOf(chain.updates())).join();
    }, 10_000, 'the polls to catch up', 50);
    sameAsSim();
  });

  it('RPC_KEY: Bearer, or in the URL where it has an empty parameter; a refused key stops the start naming RPC_KEY', async () => {
    await node.close();
    node = await RpcStandIn.start(chain, { key: 'k3y' });
    await start({ rpcKey: 'k3y' });
    await source!.stop();
    await start({ rpcKey: 'k3y', rpcUrls: [`${node.url}/?api-key=`], rpcWsUrls: [`${node.wsUrl}/?api-key=`] });
    expect(source!.stats().bootstrap.pools).toBeGreaterThan(40);
    await source!.stop();
    source = null;
    await expect(start({ rpcKey: 'wrong' })).rejects.toThrow(/RPC_KEY/);
    source = null;
  });
});
