/**
 * LOOKUP_TABLES ingestion against a local JSON-RPC server answering getMultipleAccounts in the
 * shape a Solana node returns, with two real mainnet lookup table accounts (fixtures/alt), on a
 * real embedded log; the router's projection and lookup table index take them from there.
 */
import * as fs from 'node:fs';
import { startJsonRpcServer, type JsonRpcServer } from './support/json-rpc-server';
import * as os from 'node:os';
import * as path from 'node:path';
import { Projection } from '@app/pools';
import { LookupTableIndex } from '../apps/router/src/swap/transaction';
import { decodePoolUpdate } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import { loadConfig } from '@app/config';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import { decodeAddressLookupTable } from '@app/solana';
import { PROGRAM_IDS } from '@app/solana';
import { LookupTableIngest } from '../apps/ingestor/src/rpc/lookup-tables';

const FIXTURES = path.join(__dirname, '..', '..', 'shared', 'fixtures', 'alt');
const dumps = fs.readdirSync(FIXTURES).map((f) => JSON.parse(fs.readFileSync(path.join(FIXTURES, f), 'utf8')) as { pubkey: string; account: { data: [string, string]; owner: string } });
const MISSING = 'GThUX1Atko4tqhN2NaiTazWSeFWMuiUvfFnyJyUghFMJ';

/** what the node holds: address → base64 data (absent: no such account) */
let chain = new Map<string, string>();
let slot = 345_000_000;
let failNext = false;
const seen: { method: string; auth: string | undefined }[] = [];
let server: JsonRpcServer;
let url: string;

beforeAll(async () => {
  server = await startJsonRpcServer((call) => {
    seen.push({ method: call.method, auth: call.auth });
    if (failNext) {
      failNext = false;
      return new Error('Node is behind by 420 slots');
    }
    const keys = call.params[0] as string[];
    const value = keys.map((k) => {
      const data = chain.get(k);
      return data === undefined ? null : { data: [data, 'base64'], executable: false, lamports: 6_625_920, owner: PROGRAM_IDS.addressLookupTable, rentEpoch: 18446744073709551615, space: Buffer.from(data, 'base64').length };
    });
    return { context: { apiVersion: '2.1.13', slot }, value };
  });
  url = server.url;
});
afterAll(() => server.close());

describe('LookupTableIngest', () => {
  let dir: string;
  let log: EmbeddedLog;
  const warnings: string[] = [];
  const logger = { log: () => undefined, warn: (m: string) => void warnings.push(m), error: (m: string) => void warnings.push(m) };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'alt-ingest-'));
    log = new EmbeddedLog({ dataDir: dir });
    chain = new Map(dumps.map((d) => [d.pubkey, d.account.data[0]]));
    warnings.length = 0;
    seen.length = 0;
  });
  afterEach(async () => {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const records = async () => (await log.read(TOPICS.poolUpdates, 'beginning', 1000)).map((r) => decodePoolUpdate(r.value));
  const ingest = () => new LookupTableIngest({ rpcUrl: url, rpcKey: 'k3y', addresses: [...dumps.map((d) => d.pubkey), MISSING], refreshMs: 60_000 }, log, logger);

  it('appends the configured tables at their read slot; the projection and the lookup table index use them', async () => {
    const t = ingest();
    await t.start();
    await t.stop();
    const recs = await records();
    expect(recs.map((r) => r.address).sort()).toEqual(dumps.map((d) => d.pubkey).sort());
    for (const r of recs) {
      expect(r).toMatchObject({ slot: 345_000_000, owner: PROGRAM_IDS.addressLookupTable, lamports: 6_625_920n, source: 'rpc' });
      expect(r.data!.toString('base64')).toBe(chain.get(r.address));
    }
    expect(warnings).toEqual([`lookup tables: ${MISSING} does not exist on the node`]);
    expect(seen.every((s) => s.method === 'getMultipleAccounts' && s.auth === 'Bearer k3y')).toBe(true);

    const p = new Projection();
    p.applyBatch((await log.read(TOPICS.poolUpdates, 'beginning', 1000)).map((r) => ({ partition: r.partition, offset: r.offset, value: r.value })));
    expect([...p.lookupTableAddresses()].sort()).toEqual(dumps.map((d) => d.pubkey).sort());
    const index = new LookupTableIndex({ lookupTableAddresses: () => p.lookupTableAddresses(), account: (a) => p.account(a) });
    const tables = index.tables();
    expect(tables.map((x) => x.state.addresses.length).sort((a, b) => a - b)).toEqual([24, 64]);
  });

  it('a refresh appends only what changed: an extended table, a closed one; a failed read is retried at the next refresh', async () => {
    const t = ingest();
    await t.start();
    await t.stop();
    slot += 10;
    await t.refresh(); // nothing changed
    expect((await records()).length).toBe(2);

    // the node is behind: logged and counted, nothing appended, nothing thrown
    failNext = true;
    await t.refresh();
    expect(t.stats().failedReads).toBe(1);
    expect(warnings.at(-1)).toMatch(/^lookup tables: .*Node is behind by 420 slots.* \(next try in 60000 ms\)$/);

    // one table extended by an address, the other closed
    const [a, b] = dumps;
    const bytes = Buffer.from(chain.get(a.pubkey)!, 'base64');
    const extended = Buffer.concat([bytes, Buffer.alloc(32, 7)]);
    chain.set(a.pubkey, extended.toString('base64'));
    chain.delete(b.pubkey);
    slot += 10;
    await t.refresh();
    const recs = await records();
    expect(recs.length).toBe(4);
    expect(recs[2]).toMatchObject({ address: a.pubkey, slot });
    expect(decodeAddressLookupTable(recs[2].data!, recs[2].owner).addresses.length).toBe(decodeAddressLookupTable(bytes).addresses.length + 1);
    expect(recs[3]).toMatchObject({ address: b.pubkey, slot, data: null, source: 'rpc' });
    expect(t.stats()).toMatchObject({ recordsAppended: 4, failedReads: 1, lastSlot: slot });
  });
});

describe('LOOKUP_TABLES configuration', () => {
  const table = dumps[0].pubkey;
  it('reads the list and the refresh period; needs RPC_URL and a chain-fed log', () => {
    const c = loadConfig({ INGEST_SOURCE: 'file', INGEST_FILE: 'rec.jsonl', RPC_URL: 'http://127.0.0.1:8899', LOOKUP_TABLES: ` ${table}, ${dumps[1].pubkey},${table}`, LOOKUP_TABLES_REFRESH_MS: '5000' });
    expect(c.lookupTables).toEqual([table, dumps[1].pubkey]);
    expect(c.lookupTablesRefreshMs).toBe(5000);
    expect(loadConfig({}).lookupTables).toEqual([]);
    expect(loadConfig({}).lookupTablesRefreshMs).toBe(60_000);
    expect(() => loadConfig({ INGEST_SOURCE: 'file', INGEST_FILE: 'rec.jsonl', LOOKUP_TABLES: table })).toThrow('LOOKUP_TABLES needs RPC_URL');
    expect(() => loadConfig({ RPC_URL: 'http://127.0.0.1:8899', LOOKUP_TABLES: table })).toThrow('LOOKUP_TABLES goes with a chain-fed log');
    expect(() => loadConfig({ INGEST_SOURCE: 'file', INGEST_FILE: 'rec.jsonl', RPC_URL: 'http://127.0.0.1:8899', LOOKUP_TABLES: 'nope' })).toThrow('LOOKUP_TABLES: "nope" is not a base58 public key');
  });
});
