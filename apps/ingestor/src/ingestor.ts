/**
 * The ingestor's logic, free of Nest: runs a chain source and appends its account writes to the
 * `pool-updates` topic (key = account address, value = encodePoolUpdate).
 *
 *  - sim: a seeded SimMarket over all six programs. An empty topic gets the genesis snapshot, then one step per
 *    SIM_SLOT_MS. A topic that already holds a market is resumed: the market is regenerated up
 *    to the log's last slot (no IO), the log's last-slot records are checked against the
 *    regenerated ones (a different seed / size / source refuses to start), a slot whose append
 *    was interrupted is completed, and the sequence continues. SIM_MAX_SLOTS > 0 ends the
 *    market at slot startSlot + SIM_MAX_SLOTS (counted from genesis, across restarts).
 *  - file: replays a JSON-lines recording at full speed (batches) or at slot pace; malformed
 *    lines are logged with their line numbers and counted, never appended. Records keep the
 *    `source` they were recorded with (the file is only the transport).
 *  - INGEST_RECORD_FILE: every appended record is also written to that recording.
 */
import * as fs from 'fs';
import { performance } from 'perf_hooks';
import type { AppConfig } from '@app/config';
import { decodePoolUpdate, encodePoolUpdate, type PoolUpdate } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import type { LogMessage, LogPort, LogRecord, Positions } from '@app/log';
import { readRecording, RecordingWriter } from './file/recording';
import { CHECKPOINT_EVERY_SLOTS, SimCheckpoints, slotDigest } from '@app/sim';
import { SimMarket } from '@app/sim';
import { metrics } from '@app/observability';

export type IngestorOptions = Pick<
  AppConfig,
  | 'ingestSource'
  | 'simSeed'
  | 'simPools'
  | 'simTokens'
  | 'simSlotMs'
  | 'simSwapsPerSlot'
  | 'simMaxSlots'
  | 'ingestFile'
  | 'ingestFilePace'
  | 'ingestRecordFile'
> &
  /** with a data directory, the simulated market keeps checkpoints there (sim/checkpoint.ts) */
  Partial<Pick<AppConfig, 'dataDir'>>;

export interface IngestorLogger {
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface IngestorStats {
  source: AppConfig['ingestSource'];
  /** started and not yet finished or stopped */
  running: boolean;
  /** the source ended (SIM_MAX_SLOTS reached, end of the recording) */
  finished: boolean;
  /** slots ingested by this process (the genesis snapshot counts as one) */
  slots: number;
  /** slot of the newest record appended (or found on resume) */
  lastSlot: number | null;
  /** records appended by this process */
  recordsAppended: number;
  /** recording lines rejected (file source) */
  linesRejected: number;
  /** appends that failed and were retried */
  appendFailures: number;
  /** sim: the log's last slot this process resumed from (null: started from genesis) */
  resumedFromSlot: number | null;
}

/** The ingestor cannot start (e.g. the log holds another market). */
export class IngestorStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IngestorStartError';
  }
}

const TOPIC = TOPICS.poolUpdates;
/** largest batch handed to one append (keeps Kafka requests well under broker limits) */
export const APPEND_CHUNK = 500;
/** rejected lines logged one by one before the log goes quiet (all are counted) */
const MAX_LOGGED_REJECTS = 50;
const RETRY_MIN_MS = 200;
const RETRY_MAX_MS = 10_000;

const consoleLogger: IngestorLogger = {
  log: (m) => console.log(m),
  warn: (m) => console.warn(m),
  error: (m) => console.error(m),
};

export class Ingestor {
  private readonly counters: IngestorStats;
  private market: SimMarket | null = null;
  /** the simulated market's checkpoints (null: no data directory) */
  private readonly checkpoints: SimCheckpoints | null;
  /** the records of the market's last slot, as appended (a checkpoint keeps their digest) */
  private lastSlotUpdates: PoolUpdate[] = [];
  private recorder: RecordingWriter | null = null;
  private loop: Promise<void> | null = null;
  private stopping = false;
  private wake: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private resolveFinished!: () => void;
  /** resolves when the source has ended or the ingestor was stopped */
  readonly finished: Promise<void>;

  constructor(
    private readonly opts: IngestorOptions,
    private readonly log: LogPort,
    private readonly logger: IngestorLogger = consoleLogger,
  ) {
    this.counters = {
      source: opts.ingestSource,
      running: false,
      finished: false,
      slots: 0,
      lastSlot: null,
      recordsAppended: 0,
      linesRejected: 0,
      appendFailures: 0,
      resumedFromSlot: null,
    };
    this.finished = new Promise((resolve) => (this.resolveFinished = resolve));
    this.checkpoints = opts.ingestSource === 'sim' && opts.dataDir ? new SimCheckpoints(opts.dataDir, this.settings(), logger) : null;
  }

  stats(): IngestorStats {
    return { ...this.counters };
  }

  /**
   * Make sure the topic exists, prepare the source (sim: genesis or resume), then run it in the
   * background. Rejects when the source cannot start (the caller should refuse to run).
   */
  async start(): Promise<void> {
    if (this.loop) throw new Error('ingestor already started');
    await this.log.ensureTopic(TOPIC);
    if (this.opts.ingestRecordFile) this.recorder = new RecordingWriter(this.opts.ingestRecordFile);
    this.counters.running = true;
    try {
      if (this.opts.ingestSource === 'sim') {
        await this.prepareSim();
        this.loop = this.runSim();
      } else {
        if (!this.opts.ingestFile) throw new IngestorStartError('INGEST_SOURCE=file needs INGEST_FILE');
        try {
          await fs.promises.access(this.opts.ingestFile, fs.constants.R_OK);
        } catch (e) {
          throw new IngestorStartError(`INGEST_FILE ${this.opts.ingestFile} cannot be read: ${(e as Error).message}`);
        }
        const end = await this.log.endPositions(TOPIC);
        if (total(end) > 0n) this.logger.log(`${TOPIC} already holds ${total(end)} records; the recording is appended after them`);
        this.loop = this.runFile(this.opts.ingestFile);
      }
    } catch (e) {
      this.counters.running = false;
      await this.closeRecorder();
      throw e;
    }
    this.loop = this.loop
      .catch((e: unknown) => this.logger.error(`ingestor stopped on an error: ${(e as Error)?.stack ?? String(e)}`))
      .finally(() => this.finish());
  }

  /** Stop: the in-flight append finishes, the timer stops, the recording is flushed. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.wake?.();
    const wasRunning = this.counters.running;
    if (this.loop) await this.loop;
    else await this.finish();
    if (wasRunning) {
      const c = this.counters;
      this.logger.log(`ingestor stopped: ${c.slots} slots, ${c.recordsAppended} records appended, last slot ${c.lastSlot ?? '-'}`);
    }
  }

  // ---- sim ----

  private simMarket(): SimMarket {
    return new SimMarket({
      seed: this.opts.simSeed,
      pools: this.opts.simPools,
      tokens: this.opts.simTokens,
      swapsPerSlot: this.opts.simSwapsPerSlot,
      programs: 'all',
      lookupTables: true,
    });
  }

  private settings(): string {
    const o = this.opts;
    return `SIM_SEED=${o.simSeed} SIM_POOLS=${o.simPools} SIM_TOKENS=${o.simTokens} SIM_SWAPS_PER_SLOT=${o.simSwapsPerSlot}`;
  }

  /** a checkpoint of the market now; a failure is logged (the next resume simulates more) */
  private async checkpoint(): Promise<void> {
    if (!this.checkpoints || !this.market) return;
    try {
      const c = await this.checkpoints.write(this.market, this.lastSlotUpdates.length > 0 ? slotDigest(this.lastSlotUpdates.map(encodePoolUpdate)) : null);
      this.logger.log(`sim market checkpoint at slot ${this.market.slot}: ${(c.bytes / 1048576).toFixed(1)} MiB, serialized in ${c.serializeMs.toFixed(0)} ms`);
    } catch (e) {
      this.logger.warn(`sim market checkpoint failed: ${(e as Error).message}`);
    }
  }

  private async prepareSim(): Promise<void> {
    const t0 = performance.now();
    const end = await this.log.endPositions(TOPIC);
    const logSlot = total(end) === 0n ? -1 : await this.lastSlot(end);
    let restored = logSlot < 0 ? null : ((await this.checkpoints?.restore(logSlot)) ?? null);
    if (restored && restored.market.slot === logSlot && restored.lastSlotDigest !== (await this.slotDigestOf(end, logSlot))) {
      this.logger.warn(`market checkpoint of slot ${logSlot} does not match the log's records of that slot: regenerating the market instead`);
      restored = null;
    }
    const market = restored?.market ?? this.simMarket();
    this.market = market;
    if (total(end) === 0n) {
      const genesis = market.genesis();
      this.logger.log(
        `sim market: ${market.tokens.length} tokens, ${market.programs.reduce((n, p) => n + p.pools.length, 0)} pools of ${market.programs.length} programs, genesis of ${genesis.length} accounts at slot ${market.slot} ` +
          `built in ${(performance.now() - t0).toFixed(0)} ms`,
      );
      await this.appendOnce(genesis);
      this.counters.slots++;
      return;
    }
    const from = market.slot;
    await this.resume(market, end);
    this.logger.log(
      `sim market resumed at slot ${market.slot} (${market.slot - market.startSlot} slots after genesis; ` +
        `${restored ? `from its checkpoint at slot ${from}` : 'regenerated from genesis'}, ${market.slot - from} slots simulated, in ${(performance.now() - t0).toFixed(0)} ms)`,
    );
    if (market.slot - from > CHECKPOINT_EVERY_SLOTS / 10) await this.checkpoint();
  }

  /** the digest of the log's records of `slot` (the last one), in offset order */
  private async slotDigestOf(end: Positions, slot: number): Promise<string> {
    const records = (await this.tail(end, 5_000)).filter((r) => this.decodeOwn(r).slot === slot);
    return slotDigest(records.map((r) => r.value));
  }

  /** the newest slot among the last records of the log */
  private async lastSlot(end: Positions): Promise<number> {
    const last = (await this.tail(end, 1)).map((r) => this.decodeOwn(r).slot);
    return last.length === 0 ? -1 : Math.max(...last);
  }

  /** Regenerate the market up to the log's last slot, check it is the same market, complete a torn slot. */
  private async resume(market: SimMarket, end: Positions): Promise<void> {
    const tails = await this.tail(end, 1);
    const last = tails.map((r) => this.decodeOwn(r));
    const refuse = (why: string): never => {
      throw new IngestorStartError(
        `${TOPIC} in this log was not written by this simulated market (${why}). It was made with other SIM_* settings ` +
          `(or another source) than the current ${this.settings()}. Restart with the SIM_* settings the log was created with, ` +
          `or use another DATA_DIR (a fresh log).`,
      );
    };
    if (last.length === 0) refuse('the topic has offsets but no readable records');
    const lastSlot = Math.max(...last.map((u) => u.slot));
    if (lastSlot < market.startSlot) refuse(`its last slot ${lastSlot} is before the market's genesis slot ${market.startSlot}`);
    let expected: PoolUpdate[];
    if (lastSlot === market.startSlot) {
      expected = market.genesis();
    } else if (lastSlot === market.slot) {
      // a checkpoint of the last slot, whose records it matched by digest (prepareSim): complete
      this.counters.resumedFromSlot = lastSlot;
      this.counters.lastSlot = lastSlot;
      return;
    } else {
      market.advance(lastSlot - market.slot - 1);
      expected = market.step();
    }
    const byKey = new Map(expected.map((u) => [u.address, encodePoolUpdate(u)]));
    const present = new Set<string>();
    for (const r of await this.tail(end, Math.max(1, expected.length))) {
      const u = this.decodeOwn(r);
      if (u.slot !== lastSlot) continue;
      const want = byKey.get(r.key);
      if (!want) refuse(`slot ${lastSlot} holds a write of ${r.key}, which this market does not write at that slot`);
      else if (!want.equals(r.value)) refuse(`the slot ${lastSlot} write of ${r.key} differs from this market's`);
      present.add(r.key);
    }
    if (present.size === 0) refuse(`no record of slot ${lastSlot} matches`);
    this.counters.resumedFromSlot = lastSlot;
    this.counters.lastSlot = lastSlot;
    const missing = expected.filter((u) => !present.has(u.address));
    if (missing.length > 0) {
      this.logger.warn(`slot ${lastSlot} was appended only in part (${missing.length} of ${expected.length} records missing): completing it`);
      await this.appendOnce(missing);
    }
    this.lastSlotUpdates = expected;
  }

  /** the last `n` records of every partition */
  private async tail(end: Positions, n: number): Promise<LogRecord[]> {
    const from: Positions = {};
    let parts = 0;
    for (const [p, off] of Object.entries(end)) {
      const o = BigInt(off);
      from[p] = String(o > BigInt(n) ? o - BigInt(n) : 0n);
      parts++;
    }
    return this.log.read(TOPIC, from, n * Math.max(1, parts));
  }

  private decodeOwn(r: LogRecord): PoolUpdate {
    try {
      return decodePoolUpdate(r.value);
    } catch (e) {
      throw new IngestorStartError(
        `${TOPIC} record at partition ${r.partition} offset ${r.offset} cannot be read (${(e as Error).message}); ` +
          `this log was not written by this ingestor: use another DATA_DIR`,
      );
    }
  }

  private targetSlot(market: SimMarket): number {
    return this.opts.simMaxSlots > 0 ? market.startSlot + this.opts.simMaxSlots : Number.POSITIVE_INFINITY;
  }

  private async runSim(): Promise<void> {
    const market = this.market!;
    const target = this.targetSlot(market);
    const slotMs = this.opts.simSlotMs;
    let next = performance.now() + slotMs;
    while (!this.stopping && market.slot < target) {
      await this.sleep(next - performance.now());
      if (this.stopping) break;
      const updates = market.step();
      await this.appendRetrying(updates);
      this.lastSlotUpdates = updates;
      this.counters.slots++;
      this.counters.lastSlot = market.slot;
      if ((market.slot - market.startSlot) % CHECKPOINT_EVERY_SLOTS === 0) await this.checkpoint();
      next += slotMs;
      const now = performance.now();
      if (next < now - slotMs) next = now; // fell behind (slow log): do not burst to catch up
    }
    if (this.counters.slots > 1) await this.checkpoint();
    if (market.slot >= target) {
      this.counters.finished = true;
      this.logger.log(`sim market reached SIM_MAX_SLOTS (slot ${market.slot}); stopping`);
    }
  }

  // ---- file ----

  private async runFile(file: string): Promise<void> {
    const paced = this.opts.ingestFilePace === 'slot';
    let batch: PoolUpdate[] = [];
    let batchSlot: number | null = null;
    let lastSlot: number | null = null;
    let lines = 0;
    this.logger.log(`replaying ${file} (${paced ? `one slot every ${this.opts.simSlotMs} ms` : 'full speed'})`);
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      const b = batch;
      batch = [];
      await this.appendRetrying(b);
    };
    for await (const line of readRecording(file)) {
      if (this.stopping) break;
      lines++;
      if (line.error !== undefined || !line.update) {
        this.counters.linesRejected++;
        if (this.counters.linesRejected <= MAX_LOGGED_REJECTS) {
          this.logger.warn(`${file}:${line.line}: line rejected: ${line.error}`);
          if (this.counters.linesRejected === MAX_LOGGED_REJECTS) this.logger.warn('further rejected lines are counted, not logged');
        }
        continue;
      }
      const u = line.update;
      if (u.slot !== lastSlot) {
        if (lastSlot !== null) this.counters.slots++;
        lastSlot = u.slot;
      }
      if (paced && batchSlot !== null && u.slot !== batchSlot) {
        await flush();
        await this.sleep(this.opts.simSlotMs);
        if (this.stopping) break;
      }
      batchSlot = u.slot;
      batch.push(u);
      if (batch.length >= APPEND_CHUNK && !paced) await flush();
    }
    if (!this.stopping) await flush();
    if (lastSlot !== null && !this.stopping) this.counters.slots++;
    if (!this.stopping) {
      this.counters.finished = true;
      this.logger.log(
        `replay of ${file} finished: ${lines} lines, ${this.counters.recordsAppended} records appended over ${this.counters.slots} slots, ` +
          `${this.counters.linesRejected} lines rejected`,
      );
    }
  }

  // ---- appends ----

  /** append (chunked); throws on the first failure */
  private async appendOnce(updates: PoolUpdate[]): Promise<void> {
    for (let i = 0; i < updates.length; i += APPEND_CHUNK) {
      const chunk = updates.slice(i, i + APPEND_CHUNK);
      const messages: LogMessage[] = chunk.map((u) => ({ key: u.address, value: encodePoolUpdate(u) }));
      await this.log.append(TOPIC, messages);
      this.counters.recordsAppended += chunk.length;
      for (const u of chunk) {
        if (this.counters.lastSlot === null || u.slot > this.counters.lastSlot) this.counters.lastSlot = u.slot;
      }
      metrics.ingested(this.counters.source, chunk.length, this.counters.lastSlot ?? 0);
      await this.record(chunk);
    }
  }

  /** append, retrying with backoff until it succeeds or the ingestor stops */
  private async appendRetrying(updates: PoolUpdate[]): Promise<void> {
    let delay = RETRY_MIN_MS;
    let done = 0;
    while (done < updates.length) {
      const chunk = updates.slice(done, done + APPEND_CHUNK);
      try {
        await this.appendOnce(chunk);
        done += chunk.length;
        delay = RETRY_MIN_MS;
      } catch (e) {
        this.counters.appendFailures++;
        if (this.stopping) throw e;
        this.logger.error(`append to ${TOPIC} failed (${(e as Error).message}); retrying in ${delay} ms`);
        await this.sleep(delay);
        if (this.stopping) throw e;
        delay = Math.min(RETRY_MAX_MS, delay * 2);
      }
    }
  }

  private async record(updates: PoolUpdate[]): Promise<void> {
    if (!this.recorder) return;
    try {
      await this.recorder.append(updates);
      await this.recorder.flush();
    } catch (e) {
      this.logger.error(`writing the recording ${this.recorder.path} failed (${(e as Error).message}); recording stops`);
      this.recorder = null;
    }
  }

  private async closeRecorder(): Promise<void> {
    const r = this.recorder;
    this.recorder = null;
    if (!r) return;
    try {
      await r.close();
    } catch (e) {
      this.logger.error(`closing the recording ${r.path} failed: ${(e as Error).message}`);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.timer = null;
        this.wake = null;
        resolve();
      };
      this.wake = () => {
        if (this.timer) clearTimeout(this.timer);
        done();
      };
      this.timer = setTimeout(done, Math.max(0, ms));
    });
  }

  private async finish(): Promise<void> {
    await this.closeRecorder();
    this.counters.running = false;
    this.resolveFinished();
  }
}

function total(p: Positions): bigint {
  let n = 0n;
  for (const v of Object.values(p)) n += BigInt(v);
  return n;
}
