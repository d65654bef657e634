/**
 * Suite `interest`: what a stream instance's lease costs the router's quote thread. Every 5 s a
 * stream instance leases every tuple its clients hold (apps/stream/src/stream.service.ts); the
 * router decodes the records and applies them to its interest registry on the thread that does
 * the quote work, in one piece. Measured on the live stream benchmark's scale (10,000 tuples):
 * the lease by key (quote-interest version 2, what the stream writes) and the same lease as
 * tuple objects (version 1, what it wrote before and the router still reads), in alternated
 * rounds on one core.
 */
import { InterestRegistry } from '../apps/router/src/interest/interest-registry';
import { SimMarket } from '@app/sim';
import { LEASE_CHUNK, LEASE_TTL_MS, leaseMessages } from '../apps/stream/src/stream.service';
import { decodeQuoteInterest, tupleKey, type QuoteTuple } from '@app/contracts';
import { fmtMs, summarize, type BenchSection } from './harness';

const TUPLES = 10_000;
const ROUNDS = 40;
const INSTANCE = 'stream-bench';

/** 10,000 distinct tuples over the simulated market's mints (amounts and modes varied) */
function tuples(): QuoteTuple[] {
  const mints = new SimMarket({ seed: 12, pools: 200, tokens: 200, swapsPerSlot: 1 }).tokens.map((t) => t.mint);
  const out: QuoteTuple[] = [];
  for (let i = 0; out.length < TUPLES; i++) {
    const a = i % mints.length;
    const b = (i * 7 + 1) % mints.length;
    if (a === b) continue;
    out.push({ in: mints[a], out: mints[b], amount: String(1_000 + i * 37), exactIn: i % 3 !== 0 });
  }
  return out;
}

/** the same lease as the version 1 records listed it: tuple objects */
function leaseV1(ts: readonly QuoteTuple[]): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < ts.length; i += LEASE_CHUNK) {
    out.push(Buffer.from(JSON.stringify({ v: 1, op: 'lease', instance: INSTANCE, tuples: ts.slice(i, i + LEASE_CHUNK), ttlMs: LEASE_TTL_MS })));
  }
  return out;
}

export async function bench(): Promise<BenchSection[]> {
  const ts = tuples();
  const byKey = leaseMessages(INSTANCE, ts.map(tupleKey)).map((m) => m.value);
  const asTuples = leaseV1(ts);
  const forms = [
    { records: byKey, registry: new InterestRegistry(), known: true, first: 0, rounds: [] as number[] },
    { records: asTuples, registry: new InterestRegistry(), known: false, first: 0, rounds: [] as number[] },
  ];
  let at = 1_000_000;
  for (let round = 0; round <= ROUNDS; round++) {
    for (const f of forms) {
      const r = f.registry;
      const known = (key: string): boolean => r.has(key);
      const t0 = process.hrtime.bigint();
      // as the router does: the registry's keys are known valid (the version 1 form has none to skip)
      for (const value of f.records) r.apply(f.known ? decodeQuoteInterest(value, known) : decodeQuoteInterest(value), at);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (round === 0) f.first = ms;
      else f.rounds.push(ms);
    }
    at += 5_000;
  }
  const bytes = (rs: Buffer[]): string => `${rs.length} records, ${(rs.reduce((s, b) => s + b.length, 0) / 1024).toFixed(0)} KiB`;
  const row = (metric: string, f: (typeof forms)[number], notes: string) => {
    const s = summarize(f.rounds);
    return { metric, value: `p50 ${fmtMs(s.p50)} / max ${fmtMs(s.max)}`, notes: `${notes}; ${bytes(f.records)}; ${f.rounds.length} rounds after the first; the first round (every tuple new to the registry: a router that starts) ${fmtMs(f.first)}` };
  };
  return [
    {
      title: 'Live stream: a lease of the interest',
      description:
        "`bench/interest.bench.ts`: a stream instance's lease of 10,000 tuples (what it writes every 5 s, in records of 500), decoded and applied to the router's interest registry as the router's quote thread does it, in one piece; the lease by key (quote-interest version 2) and the same lease as tuple objects (version 1, written until 2026-11-28), in alternated rounds on one core.",
      rows: [
        row('lease by key (version 2), decoded and applied', forms[0], 'a key the registry holds is looked up, not validated again'),
        row('the same lease as tuple objects (version 1)', forms[1], 'each tuple parsed and validated, its key built and looked up'),
      ],
    },
  ];
}
