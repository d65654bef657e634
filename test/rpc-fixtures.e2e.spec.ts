/**
 * The real mainnet account bytes of ../shared/fixtures (the SOL-USDC Whirlpool of
 * whirlpool-essentials: pool, tick arrays, vaults, and the SOL and USDC mints) written on the
 * stand-in chain and ingested through INGEST_SOURCE=rpc (INGEST_POOLS): the pool decodes, is
 * routable, and quotes bit for bit as the same bytes projected directly.
 */
import { AccountSink } from '../apps/ingestor/src/rpc/account-sink';
import { RpcBootstrap } from '../apps/ingestor/src/rpc/rpc-bootstrap';
import { RpcClient, rpcEndpoints } from '../apps/ingestor/src/rpc/rpc-client';
import { CaptureLog } from './support/chain-stand-in/compare';
import { MarketChain } from './support/chain-stand-in/market-chain';
import { RpcStandIn } from './support/chain-stand-in/rpc-stand-in';
import { expectAsFixture, solUsdcWhirlpoolAccounts, SOL_USDC_WHIRLPOOL } from './support/chain-stand-in/whirlpool-fixture';

const POOL = SOL_USDC_WHIRLPOOL;
const quiet = { log: (): void => undefined, warn: (): void => undefined };

describe('real fixture accounts served through the RPC stand-in', () => {
  it('the SOL-USDC Whirlpool of mainnet decodes and quotes through rpc as from its bytes', async () => {
    const accounts = solUsdcWhirlpoolAccounts();
    expect(accounts.length).toBeGreaterThan(8);
    const chain = new MarketChain({ pools: 1, tokens: 3, programs: ['raydium-cpmm'] });
    chain.tick();
    for (const a of accounts) chain.write(a.address, a.owner, a.data!, a.lamports);
    const node = await RpcStandIn.start(chain);
    try {
      const log = new CaptureLog();
      const client = new RpcClient(rpcEndpoints([node.url], [node.wsUrl], null), quiet);
      const result = await new RpcBootstrap(client, new AccountSink(log.asLog(), 'rpc'), { programs: ['orca-whirlpool'], mints: null, pools: [POOL] }, quiet).run();
      expect(result.rejected).toBe(0);
      expectAsFixture(log.updates(), accounts);
    } finally {
      await node.close();
    }
  });
});
