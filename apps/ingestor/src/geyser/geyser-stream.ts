/**
 * The live half of INGEST_SOURCE=geyser: a Yellowstone gRPC subscription (the package's own
 * client) on GEYSER_URL with GEYSER_X_TOKEN, after the RPC snapshot. Every account write it
 * streams goes to `pool-updates` with its slot and source `geyser`, unless an account's newer
 * write was already passed on.
 *  - Filters: by owner (the followed programs) and by address (vaults, mints, other
 *    dependencies), at GEYSER_COMMITMENT; slots for the chain's slot (the ingest lag).
 *  - Keep-alive: a ping every GEYSER_PING_MS (it carries the whole subscription); a stream
 *    silent for 3 pings is taken as dead. A server ping is answered the same way.
 *  - Faults: a stream that ends or fails reconnects with exponential backoff and full jitter and
 *    resumes with `from_slot` = the newest slot seen (the replayed writes it already passed on
 *    are dropped by the newest-write guard). A server that no longer holds that slot: subscribe
 *    without it and read every followed account again (the gap healed by a snapshot read).
 *  - New pools: after each append, the pools that changed are asked (AccountSink, the router's
 *    projection) for dependencies never read (a new pool's vaults and mints, the next tick array
 *    as the price moves); those join the address filter (a subscription update on the open
 *    stream) and are read once over RPC (RpcBootstrap).
 *  - Bad input: a message that does not parse ends the stream on the client (counted, resumed
 *    from its slot); a message that parses but is malformed, an account of an unknown layout or
 *    of another owner: counted by reason, logged (the first ones), never written.
 */
import Client, { type SubscribeRequest, type SubscribeUpdate } from '@triton-one/yellowstone-grpc';
import type { Duplex } from 'stream';
import type { PoolUpdate } from '@app/contracts';
import { PROGRAM_IDS } from '@app/solana';
import type { AccountSink } from '../rpc/account-sink';
import type { BootstrapResult, RpcBootstrap } from '../rpc/rpc-bootstrap';
import { NewestWrites } from './newest-writes';
import { readStreamMessage, type LayoutCheck } from './stream-message';
import { subscribeRequest, type GeyserCommitment } from './subscribe-request';
import { MutableWatchSet } from './watch-set';

export interface GeyserStreamOptions {
  url: string;
  xToken: string | null;
  commitment: GeyserCommitment;
  pingMs: number;
  /** first reconnect delay; doubles up to reconnectMaxMs (each delay drawn in [d/2, d]) */
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
}

export interface GeyserLogger {
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** the IO the stream hands off: the log (through the sink), the RPC reads, the decoders */
export interface GeyserStreamDeps {
  /** appends to pool-updates (drops what is older than the account's last write) and tracks dependencies */
  sink: AccountSink;
  /** RPC reads: accounts, missing dependencies, pools (after a gap the server cannot replay) */
  boot: Pick<RpcBootstrap, 'readAccounts' | 'readDependencies' | 'readPools' | 'readCurveTokenAccount'>;
  layouts: LayoutCheck;
  logger: GeyserLogger;
}

/** where the RPC snapshot left the ingest, and the slot the stream replays from */
export interface GeyserStart {
  boot: Pick<BootstrapResult, 'programs' | 'addresses' | 'slot'>;
  /** replay from this slot (the Geyser slot read before the snapshot: nothing written meanwhile is missed) */
  fromSlot: number;
}

export interface GeyserStreamStats {
  connected: boolean;
  /** Subscribe calls opened (the first and every reconnect) */
  subscribes: number;
  reconnects: number;
  /** streams that ended on an error (a message that does not parse is one) */
  streamErrors: number;
  lastError: string | null;
  messages: number;
  /** account writes passed to pool-updates (stream and reads) */
  written: number;
  /** account writes dropped: not newer than the last one passed on for the account */
  stale: number;
  /** messages rejected, by reason (the reason without the account's address) */
  rejected: number;
  rejectedBy: Record<string, number>;
  pings: number;
  pongs: number;
  /** the newest slot of any message (what a resume starts from) */
  lastSlot: number;
  /** the newest slot message at the commitment (the chain's slot) */
  chainSlot: number;
  /** the newest slot the written state is known complete at (nothing of it waits to be appended) */
  ingestedSlot: number;
  /** accounts followed by address */
  addressesFollowed: number;
  /** pools that entered after the start */
  newPools: number;
  /** snapshot reads after a gap the server could not replay */
  resyncs: number;
}

const MAX_LOGGED_REJECTS = 50;
/** pending writes above which the stream is paused until they are appended */
const HIGH_WATER = 20_000;
/** how long, and up to how many writes, the writes that keep arriving are gathered into one append */
const GATHER_MS = 5;
const GATHER_QUIET_MS = 0.5;
const GATHER_MAX = 5_000;

export class GeyserStream {
  private readonly watch: MutableWatchSet;
  private readonly newest = new NewestWrites();
  private readonly statsData: GeyserStreamStats;
  private pending: PoolUpdate[] = [];
  /** when the last write joined `pending` (performance.now()) */
  private lastArrival = 0;
  private flushing: Promise<void> | null = null;
  private stream: Duplex | null = null;
  private stopping = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private pingId = 0;
  /** background RPC reads (dependencies, resync), one after the other */
  private background: Promise<void> = Promise.resolve();
  private fromSlot: number | undefined;
  private needResync = false;

  constructor(
    private readonly opts: GeyserStreamOptions,
    private readonly deps: GeyserStreamDeps,
    start: GeyserStart,
  ) {
    this.watch = new MutableWatchSet(start.boot.programs, start.boot.addresses, (a) => deps.sink.projection.account(a)?.owner);
    this.fromSlot = start.fromSlot;
    this.statsData = {
      connected: false,
      subscribes: 0,
      reconnects: 0,
      streamErrors: 0,
      lastError: null,
      messages: 0,
      written: 0,
      stale: 0,
      rejected: 0,
      rejectedBy: {},
      pings: 0,
      pongs: 0,
      lastSlot: start.boot.slot,
      chainSlot: start.boot.slot,
      ingestedSlot: start.boot.slot,
      addressesFollowed: this.watch.addresses.size,
      newPools: 0,
      resyncs: 0,
    };
  }

  stats(): GeyserStreamStats {
    return { ...this.statsData, rejectedBy: { ...this.statsData.rejectedBy }, addressesFollowed: this.watch.addresses.size };
  }

  /** run in the background until stop() */
  start(): void {
    if (this.loop) throw new Error('geyser stream already started');
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    this.stream?.destroy();
    await this.loop;
    await this.idle();
  }

  /** settles once nothing waits to be appended and no RPC read is under way (tests, benchmarks) */
  async idle(): Promise<void> {
    for (;;) {
      const b = this.background;
      await this.flushing;
      await b;
      if (this.flushing === null && b === this.background && this.pending.length === 0) return;
    }
  }

  // ---- the connection loop ----

  private async run(): Promise<void> {
    const min = this.opts.reconnectMinMs ?? 250;
    const max = this.opts.reconnectMaxMs ?? 10_000;
    let delay = min;
    while (!this.stopping) {
      const delivered = await this.streamOnce();
      if (this.stopping) break;
      this.statsData.reconnects++;
      if (delivered) delay = min;
      const wait = delay / 2 + Math.random() * (delay / 2);
      this.deps.logger.warn(`geyser stream ended (${this.statsData.lastError ?? 'closed'}); reconnecting in ${wait.toFixed(0)} ms from slot ${this.fromSlot ?? 'now'}`);
      await this.sleep(wait);
      delay = Math.min(max, delay * 2);
    }
  }

  /** one Subscribe call, to its end; true when it delivered a message */
  private async streamOnce(): Promise<boolean> {
    let delivered = false;
    let fromSlot = this.fromSlot;
    let stream: Duplex;
    try {
      const client = new Client(this.opts.url, this.opts.xToken ?? undefined, undefined);
      await client.connect();
      if (fromSlot !== undefined) await this.checkReplay(client, fromSlot);
      stream = await client.subscribe(this.request({ fromSlot: this.fromSlot }));
    } catch (e) {
      this.fail(`subscribe failed: ${message(e)}`);
      return false;
    }
    fromSlot = this.fromSlot;
    if (this.stopping) {
      stream.destroy();
      return false;
    }
    this.stream = stream;
    this.statsData.subscribes++;
    this.statsData.connected = true;
    if (this.needResync) this.inBackground(() => this.resync());
    let heard = Date.now();
    await new Promise<void>((resolve) => {
      let done = false;
      const finish = (): void => {
        if (done) return;
        done = true;
        clearInterval(timer);
        resolve();
      };
      const timer = setInterval(() => {
        if (Date.now() - heard > 3 * this.opts.pingMs) {
          this.fail(`no message for ${Date.now() - heard} ms`);
          stream.destroy();
          finish();
          return;
        }
        this.ping(stream);
      }, this.opts.pingMs);
      stream.on('data', (m: SubscribeUpdate) => {
        heard = Date.now();
        delivered = true;
        this.onMessage(m, stream);
      });
      stream.on('error', (e: unknown) => {
        const text = message(e) + causes(e);
        // the slot went out of the server's replay between SubscribeReplayInfo and Subscribe
        if (fromSlot !== undefined && !delivered && /not available/i.test(text)) this.gapTooOld(fromSlot, 'the server answered: not available');
        this.fail(text);
        finish();
      });
      stream.on('end', finish);
      stream.on('close', finish);
    });
    this.statsData.connected = false;
    this.stream = null;
    // resume from the newest slot seen: its writes come again, the guard drops those passed on
    if (!this.needResync) this.fromSlot = this.statsData.lastSlot;
    return delivered;
  }

  /**
   * Whether the server still holds `fromSlot` (SubscribeReplayInfo). When it does not (or keeps
   * no replay at all), the stream starts from now and every followed account is read again.
   */
  private async checkReplay(client: Client, fromSlot: number): Promise<void> {
    const info = await client.subscribeReplayInfo();
    const first = info.firstAvailable === undefined ? null : Number(info.firstAvailable);
    if (first === null || first > fromSlot) this.gapTooOld(fromSlot, first === null ? 'the server keeps no replay' : `its first slot is ${first}`);
  }

  private gapTooOld(fromSlot: number, why: string): void {
    this.deps.logger.warn(`geyser: cannot resume from slot ${fromSlot} (${why}); subscribing from now and reading every followed account again`);
    this.fromSlot = undefined;
    this.needResync = true;
  }

  private request(extra: { fromSlot?: number; pingId?: number }): SubscribeRequest {
    return subscribeRequest(this.watch, { commitment: this.opts.commitment, ...extra });
  }

  private ping(stream: Duplex): void {
    if (stream.destroyed) return;
    this.statsData.pings++;
    stream.write(this.request({ pingId: ++this.pingId }));
  }

  private fail(reason: string): void {
    this.statsData.streamErrors++;
    this.statsData.lastError = reason;
  }

  // ---- messages ----

  private onMessage(m: SubscribeUpdate, stream: Duplex): void {
    this.statsData.messages++;
    const r = readStreamMessage(m, this.watch, this.deps.layouts);
    switch (r.kind) {
      case 'account': {
        const u = r.update;
        if (u.slot > this.statsData.lastSlot) this.statsData.lastSlot = u.slot;
        if (!this.newest.accept(u.address, u.slot, r.writeVersion)) {
          this.statsData.stale++;
          return;
        }
        this.enqueue(u, stream);
        return;
      }
      case 'slot':
        if (r.slot > this.statsData.chainSlot) this.statsData.chainSlot = r.slot;
        if (r.slot > this.statsData.lastSlot) this.statsData.lastSlot = r.slot;
        this.settle();
        return;
      case 'ping':
        this.ping(stream);
        return;
      case 'pong':
        this.statsData.pongs++;
        return;
      case 'reject':
        this.reject(r.reason);
        return;
      case 'ignored':
        return;
    }
  }

  private reject(reason: string): void {
    const s = this.statsData;
    s.rejected++;
    const key = reason.replace(/[1-9A-HJ-NP-Za-km-z]{32,44}/g, '<key>').replace(/\d+/g, 'N');
    s.rejectedBy[key] = (s.rejectedBy[key] ?? 0) + 1;
    if (s.rejected <= MAX_LOGGED_REJECTS) {
      this.deps.logger.warn(`geyser message rejected: ${reason}`);
      if (s.rejected === MAX_LOGGED_REJECTS) this.deps.logger.warn('further rejected geyser messages are counted, not logged');
    }
  }

  /** pools that changed: follow and read what they depend on now and was never read */
  private followDependencies(): void {
    const sink = this.deps.sink;
    const changed = sink.drainChanged();
    if (changed.size === 0) return;
    const fresh: string[] = [];
    for (const p of changed) if (!this.watch.addresses.has(p) && sink.projection.account(p) !== undefined) fresh.push(p);
    this.statsData.newPools += fresh.length;
    this.follow(fresh);
    const curves = fresh.filter((p) => sink.projection.account(p)?.owner === PROGRAM_IDS.pumpFun);
    if (sink.missing(changed).length === 0 && curves.length === 0 && sink.missingMetadata(changed).length === 0) return;
    this.inBackground(async () => {
      for (const c of curves) await this.deps.boot.readCurveTokenAccount(c);
      const missing = sink.missing(changed);
      this.follow(missing);
      // the mints' Metadata accounts are read once, not followed
      await this.deps.boot.readAccounts([...missing, ...sink.missingMetadata(changed)]);
      this.followDependencies();
    });
  }

  /** follow these accounts by address too (a subscription update on the open stream) */
  private follow(addresses: Iterable<string>): void {
    if (this.watch.addAddresses(addresses).length === 0) return;
    const stream = this.stream;
    if (stream && !stream.destroyed) stream.write(this.request({}));
  }

  /** every followed account read again (after a gap the server could not replay) */
  private async resync(): Promise<void> {
    this.needResync = false;
    this.statsData.resyncs++;
    const from = this.statsData.lastSlot;
    this.deps.sink.forgetAbsent();
    if (this.watch.programs.length > 0) await this.deps.boot.readPools();
    await this.deps.boot.readAccounts([...this.watch.addresses], from);
    await this.deps.boot.readDependencies(from);
    this.follow(this.deps.sink.watchedAddresses());
  }

  private inBackground(fn: () => Promise<void>): void {
    this.background = this.background.then(fn).catch((e: unknown) => {
      if (this.stopping) return;
      this.deps.logger.warn(`geyser: an RPC read failed (${message(e)}); every followed account is read again after the next reconnect`);
      this.needResync = true;
    });
  }

  /** nothing waits to be appended while the stream is up: the state is complete at the newest slot seen */
  private settle(): void {
    const s = this.statsData;
    if (s.connected && this.pending.length === 0 && this.flushing === null && s.lastSlot > s.ingestedSlot) s.ingestedSlot = s.lastSlot;
  }

  // ---- writes ----

  private enqueue(u: PoolUpdate, stream: Duplex | null): void {
    this.pending.push(u);
    this.lastArrival = performance.now();
    if (this.pending.length >= HIGH_WATER && stream && !stream.isPaused()) stream.pause();
    this.kick();
  }

  /** start appending the pending writes unless an append loop runs (one that ends re-checks) */
  private kick(): void {
    if (this.flushing) return;
    let failed = false;
    this.flushing = this.flush()
      .catch((e: unknown) => {
        failed = true;
        this.deps.logger.error(`geyser: writing to pool-updates stopped: ${message(e)}`);
      })
      .finally(() => {
        this.flushing = null;
        if (!failed && this.pending.length > 0) this.kick();
        else this.settle();
      });
  }

  private async flush(): Promise<void> {
    await this.gather();
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      await this.deps.sink.write(batch);
      this.statsData.written += batch.length;
      const s = this.stream;
      if (s && s.isPaused()) s.resume();
      this.followDependencies();
    }
  }

  /**
   * Let what arrives meanwhile join the next append: the client hands over one message per turn
   * of the event loop (a turn often brings none), so the writes are gathered while they keep
   * coming (the last less than GATHER_QUIET_MS ago), for at most GATHER_MS and GATHER_MAX writes.
   * One append and one dependency check per batch, not per write.
   */
  private async gather(): Promise<void> {
    const until = performance.now() + GATHER_MS;
    for (;;) {
      await new Promise<void>((r) => setImmediate(r));
      const now = performance.now();
      if (this.pending.length >= GATHER_MAX || now >= until || now - this.lastArrival >= GATHER_QUIET_MS) return;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(t);
        this.wake = null;
        resolve();
      };
    });
  }
}

/** an error's message (errors of the native client may come from another realm: no instanceof) */
function message(e: unknown): string {
  const m = (e as { message?: unknown })?.message;
  return typeof m === 'string' ? m : String(e);
}

/** the causes a napi error carries (the gRPC status is in them) */
function causes(e: unknown): string {
  let out = '';
  let c = (e as { cause?: unknown })?.cause;
  for (let i = 0; c && i < 4; i++, c = (c as { cause?: unknown }).cause) out += `: ${message(c)}`;
  return out;
}
