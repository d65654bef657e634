/**
 * The real mainnet account bytes of ../shared/fixtures (the SOL-USDC Whirlpool of
 * whirlpool-essentials: pool, tick arrays, vaults, and the SOL and USDC mints) written on the
 * stand-in chain and ingested through INGEST_SOURCE=rpc (INGEST_POOLS): the pool decodes, is
 * routable, and quotes bit for bit as the same bytes projected directly.
 */
import * as fs from 'fs';
import * as path from 'path';
import { AccountSink } from '../apps/ingestor/src/rpc/account-sink';
import { RpcBootstrap } from '../apps/ingestor/src/rpc/rpc-bootstrap';
import { RpcClient, rpcEndpoints } from '../apps/ingestor/src/rpc/rpc-client';
import type { PoolUpdate } from '@app/contracts';
import { CaptureLog, marketsOf, quotesOf } from './support/chain-stand-in/compare';
import { MarketChain } from './support/chain-stand-in/market-chain';
import { RpcStandIn } from './support/chain-stand-in/rpc-stand-in';
import { projectionOf } from './support/projection';

const FIXTURES = path.resolve(__dirname, '..', '..', 'shared', 'fixtures');
const POOL = 'HJPjoWUrhoZzkNfRpHuieeFk9WcZWjwy6PBjZ81ngndJ';
const quiet = { log: (): void => undefined, warn: (): void => undefined };

function fixtureAccounts(): PoolUpdate[] {
  const files = [
    ...fs.readdirSync(path.join(FIXTURES, 'orca-whirlpool', 'whirlpool-essentials')).filter((f) => /^sol_usdc_wp_(whirlpool|ta_|vault_)/.test(f)).map((f) => path.join(FIXTURES, 'orca-whirlpool', 'whirlpool-essentials', f)),
    ...['token_native', 'token_usdc'].map((p) => fs.readdirSync(path.join(FIXTURES, 'spl-token', 'whirlpool-essentials')).filter((f) => f.startsWith(p)).map((f) => path.join(FIXTURES, 'spl-token', 'whirlpool-essentials', f))).flat(),
  ];
  return files.map((f) => {
    const j = JSON.parse(fs.readFileSync(f, 'utf8')) as { pubkey: string; account: { lamports: number; data: [string, string]; owner: string } };
    return { slot: 1, address: j.pubkey, owner: j.account.owner, lamports: BigInt(j.account.lamports), data: Buffer.from(j.account.data[0], 'base64'), source: 'file' };
  });
}

describe('real fixture accounts served through the RPC stand-in', () => {
  it('the SOL-USDC Whirlpool of mainnet decodes and quotes through rpc as from its bytes', async () => {
    const accounts = fixtureAccounts();
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
      const viaRpc = projectionOf(log.updates());
      const direct = projectionOf(accounts);
      expect(viaRpc.markets().find((m) => m.address === POOL)?.routable).toBe(true);
      expect(marketsOf(viaRpc)).toEqual(marketsOf(direct));
      expect(quotesOf(viaRpc)).toEqual(quotesOf(direct));
      expect(quotesOf(viaRpc).filter((q) => !q.includes('error')).length).toBeGreaterThan(6);
    } finally {
      await node.close();
    }
  });
});
