import { projectionOf } from '../../../../test/support/projection';
import { CaptureLog, marketsOf, quotesOf } from '../../../../test/support/chain-stand-in/compare';
import { MarketChain } from '../../../../test/support/chain-stand-in/market-chain';
import { RpcStandIn } from '../../../../test/support/chain-stand-in/rpc-stand-in';
import { MINTS } from '@app/solana';
import { AccountSink } from './account-sink';
import { INGEST_PROGRAM_NAMES } from './pool-filters';
import { RpcBootstrap, type IngestScope } from './rpc-bootstrap';
import { RpcClient, rpcEndpoints } from './rpc-client';

const quiet = { log: (): void => undefined, warn: (): void => undefined };

describe('RpcBootstrap against the RPC stand-in', () => {
  let chain: MarketChain;
  let node: RpcStandIn;
  beforeAll(async () => {
    chain = new MarketChain({ seed: 3, pools: 60, tokens: 20 });
    for (let i = 0; i < 5; i++) chain.step();
    node = await RpcStandIn.start(chain);
  });
  afterAll(() => node.close());

  const boot = async (scope: IngestScope): Promise<{ log: CaptureLog; result: Awaited<ReturnType<RpcBootstrap['run']>>; client: RpcClient }> => {
    const log = new CaptureLog();
    const client = new RpcClient(rpcEndpoints([node.url], [node.wsUrl], null), quiet);
    const sink = new AccountSink(log.asLog(), 'rpc');
    const result = await new RpcBootstrap(client, sink, scope, quiet).run();
    return { log, result, client };
  };

  it('reaches the projection of the simulated feed: the same pools, the same quotes bit for bit', async () => {
    const { log, result } = await boot({ programs: INGEST_PROGRAM_NAMES, mints: null, pools: null });
    const viaRpc = projectionOf(log.updates());
    const direct = projectionOf(chain.updates());
    expect(marketsOf(viaRpc)).toEqual(marketsOf(direct));
    expect(quotesOf(viaRpc)).toEqual(quotesOf(direct));
    expect(viaRpc.markets().filter((m) => m.routable).length).toBeGreaterThan(40);
    expect(result.pools).toBe(direct.markets().length);
    expect(result.slot).toBe(chain.slot);
    // every write carries the answer's context slot and source rpc
    for (const u of log.updates()) {
      expect(u.slot).toBe(chain.slot);
      expect(u.source).toBe('rpc');
    }
    // the watched set covers every pool and dependency; the program filters one list per program
    for (const m of direct.markets()) {
      expect(result.addresses).toContain(m.address);
      for (const d of direct.dependenciesOf(m.address)) if (chain.get(d)) expect(result.addresses).toContain(d);
    }
    expect(result.programs).toHaveLength(6);
  });

  it('at most 100 keys a getMultipleAccounts, and counts its requests', async () => {
    const { result } = await boot({ programs: INGEST_PROGRAM_NAMES, mints: null, pools: null });
    expect(result.requests).toBeGreaterThan(6);
    expect(result.requests).toBeLessThan(result.addresses.length);
  });

  it('INGEST_MINTS: only the pools holding one of the mints', async () => {
    const { log } = await boot({ programs: INGEST_PROGRAM_NAMES, mints: [MINTS.USDC], pools: null });
    const p = projectionOf(log.updates());
    const direct = projectionOf(chain.updates());
    const want = direct.markets().filter((m) => m.mintA === MINTS.USDC || m.mintB === MINTS.USDC);
    expect(want.length).toBeGreaterThan(2);
    expect(marketsOf(p)).toEqual(marketsOf(direct).filter((_, i) => direct.markets()[i].mintA === MINTS.USDC || direct.markets()[i].mintB === MINTS.USDC));
  });

  it('INGEST_MINTS finds a pump.fun curve by its PDA; INGEST_POOLS reads the list', async () => {
    const direct = projectionOf(chain.updates());
    const curve = direct.markets().find((m) => m.label === 'pump.fun' && m.routable)!;
    const a = await boot({ programs: ['pump-fun'], mints: [curve.mintA!], pools: null });
    expect(marketsOf(projectionOf(a.log.updates()))).toEqual(marketsOf(direct).filter((s) => s.startsWith(curve.address)));
    const two = direct.markets().filter((m) => m.routable).slice(0, 2);
    const b = await boot({ programs: INGEST_PROGRAM_NAMES, mints: null, pools: two.map((m) => m.address) });
    expect(projectionOf(b.log.updates()).markets().map((m) => m.address)).toEqual(two.map((m) => m.address));
    expect(quotesOf(projectionOf(b.log.updates()))).toEqual(quotesOf(direct).filter((q) => two.some((m) => q.startsWith(m.address))));
  });

  it('an account that is not a pool of the program is counted and not written', async () => {
    const direct = projectionOf(chain.updates());
    const mint = direct.markets()[0].mintA!;
    const { log, result } = await boot({ programs: INGEST_PROGRAM_NAMES, mints: null, pools: [mint] });
    expect(result.rejected).toBe(1);
    expect(log.messages).toHaveLength(0);
  });
});
