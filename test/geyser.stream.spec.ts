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
import { SubscribeUpdate } from '@triton-one/yellowstone-grpc';

const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

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

async function harness(opts: { pools?: number; xToken?: string; read?: (a: string[]) => PoolUpdate[] } = {}): Promise<Harness> {
  const standIn = new GeyserStandIn({ xToken: opts.xToken });
  const url = await standIn.start();
  const market = new SimMarket({ seed: 7, pools: opts.pools ?? 60, tokens: 20, swapsPerSlot: 8, programs: 'all' });
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
    { url, xToken: opts.xToken ?? null, commitment: 'processed', pingMs: 1_000, reconnectMinMs: 20, reconnectMaxMs: 200 },
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
});
