/**
 * Audit of served quotes: every `quotes-served` record names the log position its answer was
 * computed on. Rebuild the projection at exactly that position, recompute the quote from the
 * recorded request, and compare with what was served, field by field. Plain TypeScript over the
 * LogPort. Records are audited in log-position order so one replay serves them all (the
 * projection only moves forward).
 *
 * Records of /swap and /instructions answers (kind swap / instructions) built from a served
 * quote (build.fromQuoteId, not requoted) are checked against that quote instead: the route and amounts built
 * must be the quote's, field by field (provenance aside), and the answer's amounts the built
 * route's. Other builds (without a quoteId, or quoted again) are kept in the trail but not
 * recomputed (the byte budget may have served a smaller route than the quote's search).
 */
import { ContractError } from '@app/contracts';
import { decodeQuoteServed, type QuoteServed } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import type { LogPort, LogRecord, Positions } from '@app/log';
import { quoteOn } from './quote-on';
import { replayProjection, ReplayError, type ReplayOptions, type ReplayResult } from './replay';

export interface AuditOptions {
  /** audit only this quote id */
  id?: string;
  /** audit the last N served quotes (default: all) */
  last?: number;
  /** MAX_HOPS the router served with (default 5) */
  maxHops?: number;
  /** snapshots to start replays from, progress (see replayProjection) */
  replay?: ReplayOptions;
}

export interface AuditEntry {
  quoteId: string;
  logPosition: Positions;
  slot: number;
  verdict: 'match' | 'mismatch' | 'unreadable';
  /** fields that differ: served vs recomputed */
  differences?: Array<{ field: string; served: unknown; recomputed: unknown }>;
  error?: string;
}

export interface AuditReport {
  audited: number;
  matched: number;
  mismatched: number;
  unreadable: number;
  entries: AuditEntry[];
}

/** every record of a topic, in offset order per partition */
export async function readAll(log: LogPort, topic: string): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  const from: Positions = {};
  for (;;) {
    const page = await log.read(topic, from, 5000);
    if (page.length === 0) return out;
    for (const r of page) {
      out.push(r);
      from[String(r.partition)] = String(BigInt(r.offset) + 1n);
    }
  }
}

/** total order of positions for sorting (sum of offsets; ties by text) */
function weight(p: Positions): bigint {
  return Object.values(p).reduce((s, o) => s + BigInt(o), 0n);
}

export async function auditServedQuotes(log: LogPort, opts: AuditOptions = {}): Promise<AuditReport> {
  if (opts.last !== undefined && (!Number.isInteger(opts.last) || opts.last <= 0)) throw new ReplayError('--last must be a positive integer');
  await log.ensureTopic(TOPICS.quotesServed);
  const raw = await readAll(log, TOPICS.quotesServed);
  const entries: AuditEntry[] = [];
  const served: QuoteServed[] = [];
  for (const r of raw) {
    try {
      const q = decodeQuoteServed(r.value);
      if (opts.id === undefined || q.quoteId === opts.id) served.push(q);
    } catch (e) {
      if (!(e instanceof ContractError)) throw e;
      if (opts.id === undefined || r.key === opts.id) {
        entries.push({ quoteId: r.key, logPosition: {}, slot: 0, verdict: 'unreadable', error: `record ${r.partition}/${r.offset}: ${e.reason}` });
      }
    }
  }
  if (opts.id !== undefined && served.length === 0 && entries.length === 0) throw new ReplayError(`no served quote with id ${opts.id}`);
  const byId = new Map(served.map((q) => [q.quoteId, q]));
  const builds = served.filter((q) => q.build !== undefined);
  const quotes = served.filter((q) => q.build === undefined);
  for (const b of builds) if (b.build!.fromQuoteId !== undefined && b.build!.requoted !== true) entries.push(auditBuild(b, byId.get(b.build!.fromQuoteId)));
  const chosen = opts.last === undefined ? quotes : quotes.slice(-opts.last);
  chosen.sort((a, b) => {
    const d = weight(a.logPosition) - weight(b.logPosition);
    return d < 0n ? -1 : d > 0n ? 1 : 0;
  });

  let state: ReplayResult | undefined;
  for (const q of chosen) {
    const entry: AuditEntry = { quoteId: q.quoteId, logPosition: q.logPosition, slot: q.slot, verdict: 'match' };
    try {
      state = await replayProjection(log, { position: q.logPosition }, 5000, state, opts.replay);
    } catch (e) {
      if (!(e instanceof ReplayError)) throw e;
      entries.push({ ...entry, verdict: 'unreadable', error: e.message });
      state = undefined;
      continue;
    }
    const outcome = quoteOn(state.projection, { ...q.request }, opts.maxHops ?? 5, q.fee ?? null, q.request.controls);
    const recomputed: Record<string, unknown> = 'quote' in outcome ? { ...outcome.quote } : { error: outcome.error };
    const differences: NonNullable<AuditEntry['differences']> = [];
    const servedFields = q.response as unknown as Record<string, unknown>;
    for (const field of new Set([...Object.keys(servedFields), ...Object.keys(recomputed)])) {
      const a = JSON.stringify(servedFields[field]);
      const b = JSON.stringify(recomputed[field]);
      if (a !== b) differences.push({ field, served: servedFields[field], recomputed: recomputed[field] });
    }
    if (differences.length > 0) {
      entry.verdict = 'mismatch';
      entry.differences = differences;
    }
    entries.push(entry);
  }
  const count = (v: AuditEntry['verdict']): number => entries.filter((e) => e.verdict === v).length;
  return { audited: entries.length, matched: count('match'), mismatched: count('mismatch'), unreadable: count('unreadable'), entries };
}

/** a build from a served quote against that quote: the same route and amounts, the answer's amounts the route's */
function auditBuild(b: QuoteServed, quote: QuoteServed | undefined): AuditEntry {
  const entry: AuditEntry = { quoteId: b.quoteId, logPosition: b.logPosition, slot: b.slot, verdict: 'match' };
  if (quote === undefined) return { ...entry, verdict: 'unreadable', error: `the quote ${b.build!.fromQuoteId} it was built from is not on the trail` };
  const differences: NonNullable<AuditEntry['differences']> = [];
  const built = b.response as unknown as Record<string, unknown>;
  const quoted = quote.response as unknown as Record<string, unknown>;
  for (const field of Object.keys(quoted)) {
    if (field === 'contextSlot' || field === 'logPosition') continue;
    if (JSON.stringify(built[field]) !== JSON.stringify(quoted[field])) differences.push({ field, served: built[field], recomputed: quoted[field] });
  }
  for (const field of ['amountIn', 'amountOut']) {
    if (b.build!.answer[field] !== built[field]) differences.push({ field: `answer.${field}`, served: b.build!.answer[field], recomputed: built[field] });
  }
  return differences.length > 0 ? { ...entry, verdict: 'mismatch', differences } : entry;
}
