/**
 * StreamService on a real embedded log: what it does with the quotes-changed records it reads.
 * A record of a held tuple is decoded and pushed; a malformed one, or one whose key is not its
 * tuple, is rejected and counted, and the records after it still arrive; a record of a tuple no
 * client of this instance holds is skipped without being decoded. And the leases it writes: every
 * held tuple once, by key, in records a router decodes.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Logger } from '@nestjs/common';
import { decodeQuoteInterest, encodeQuotesChanged, tupleKey, type QuotesChanged, type QuoteTuple } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import { EmbeddedLog } from '@app/log/embedded/embedded-log';
import type { StreamConnection } from './hub';
import { LEASE_CHUNK, LEASE_TTL_MS, StreamService } from './stream.service';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

class Conn implements StreamConnection {
  readonly id = 1;
  sent: any[] = [];
  send(m: object | string): boolean {
    this.sent.push(typeof m === 'string' ? JSON.parse(m) : m);
    return true;
  }
}

const held: QuoteTuple = { in: SOL, out: USDC, amount: '1000', exactIn: true };
const other: QuoteTuple = { in: USDC, out: SOL, amount: '1000', exactIn: true };
const quote = (tuple: QuoteTuple, amountOut: string): QuotesChanged => ({ tuple, amountOut, amountIn: tuple.amount, priceImpactBps: 1, hops: 1, slot: 7 });

describe('StreamService reading quotes-changed', () => {
  let dir: string;
  let log: EmbeddedLog;
  let svc: StreamService;
  let conn: Conn;

  beforeEach(async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stream-service-'));
    log = new EmbeddedLog({ dataDir: dir, pollIntervalMs: 5 });
    svc = new StreamService(log);
    await svc.onModuleInit();
    conn = new Conn();
    svc.hub.connect(conn);
    svc.hub.subscribe(conn, [held]);
  });

  afterEach(async () => {
    await svc.onApplicationShutdown();
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
    jest.restoreAllMocks();
  });

  const until = async (ok: () => boolean): Promise<void> => {
    for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  };

  it('pushes held quotes, rejects and counts malformed ones, and skips tuples nobody here holds', async () => {
    const warn = Logger.prototype.warn as jest.Mock;
    await log.append(TOPICS.quotesChanged, [
      { key: tupleKey(held), value: Buffer.from('{not json') },
      // valid JSON, but the key names another tuple than the value
      { key: tupleKey(held), value: encodeQuotesChanged(quote(other, '5')) },
      { key: tupleKey(held), value: Buffer.from(JSON.stringify({ v: 99, ...quote(held, '6') })) },
      // the key's tuple, but not a valid tuple in the value
      { key: tupleKey(held), value: Buffer.from(JSON.stringify({ v: 1, ...quote(held, '7'), tuple: { ...held, out: 'x' } })) },
      // not held here: not decoded, so its garbage is not this instance's to report
      { key: tupleKey(other), value: Buffer.from('also not json') },
      { key: tupleKey(held), value: encodeQuotesChanged(quote(held, '10')) },
    ]);
    await until(() => conn.sent.length > 0);
    expect(conn.sent).toEqual([expect.objectContaining({ type: 'quote', amountOut: '10', slot: 7 })]);
    expect(svc.rejected).toBe(4);
    expect(svc.skipped).toBe(1);
    const reasons = warn.mock.calls.map((c) => String(c[0]));
    expect(reasons).toEqual([
      expect.stringMatching(/not JSON/),
      expect.stringMatching(/its key is not its tuple/),
      expect.stringMatching(/unsupported schema version 99/),
      expect.stringMatching(/malformed record: tuple/),
    ]);
  });

  it('leases every tuple its clients hold, by key, in records of at most LEASE_CHUNK that a router reads back', async () => {
    const many = Array.from({ length: LEASE_CHUNK + 3 }, (_, i) => ({ ...held, amount: String(2000 + i) }));
    // at most 256 subscriptions per connection: three connections; the last also holds the first tuple, leased once
    svc.hub.subscribe(conn, many.slice(0, 200));
    const more = [new Conn(), new Conn()];
    for (const c of more) svc.hub.connect(c);
    svc.hub.subscribe(more[0], many.slice(200, 400));
    svc.hub.subscribe(more[1], [...many.slice(400), held]);
    const leases = async () =>
      (await log.read(TOPICS.quoteInterest, 'beginning', 100_000)).map((r) => ({ key: r.key, i: decodeQuoteInterest(r.value) })).filter((r) => r.i.op === 'lease');
    svc.renewLease();
    let got: Awaited<ReturnType<typeof leases>> = [];
    for (let i = 0; i < 200 && got.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 10));
      got = await leases();
    }
    expect(got.map((r) => r.key)).toEqual([svc.instance, svc.instance]);
    expect(got.map(({ i }) => (i.op === 'lease' ? [i.instance, i.keys.length, i.ttlMs] : i.op))).toEqual([
      [svc.instance, LEASE_CHUNK, LEASE_TTL_MS],
      [svc.instance, many.length + 1 - LEASE_CHUNK, LEASE_TTL_MS],
    ]);
    const keys = got.flatMap(({ i }) => (i.op === 'lease' ? i.keys : []));
    expect(keys.sort()).toEqual([held, ...many].map(tupleKey).sort());
  });

  it('starts decoding a tuple once a client holds it', async () => {
    await log.append(TOPICS.quotesChanged, [{ key: tupleKey(other), value: encodeQuotesChanged(quote(other, '3')) }]);
    await until(() => svc.skipped === 1);
    expect(svc.skipped).toBe(1);
    svc.hub.subscribe(conn, [other]);
    await log.append(TOPICS.quotesChanged, [{ key: tupleKey(other), value: encodeQuotesChanged(quote(other, '4')) }]);
    await until(() => conn.sent.length > 0);
    expect(conn.sent).toEqual([expect.objectContaining({ in: USDC, amountOut: '4' })]);
    expect(svc.rejected).toBe(0);
  });
});
