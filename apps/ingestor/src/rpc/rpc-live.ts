/**
 * The live half of INGEST_SOURCE=rpc, after the bootstrap (RpcBootstrap): follows the chain over
 * the PubSub WebSocket and writes every change through the AccountSink with its notification's
 * context slot.
 *
 *  - programSubscribe (base64, the pool account filters) per watched program: a pool created on
 *    chain enters without a restart (its dependencies are read at once, then watched);
 *  - the pools and their dependencies: accountSubscribe each (RPC_POLL_MS=0), or getMultipleAccounts
 *    of all of them every RPC_POLL_MS (providers that limit subscriptions); a closed account
 *    (lamports 0) is written as data null;
 *  - after each batch of writes, the pools that changed are asked for their dependencies again: a
 *    tick array that becomes needed as the price moves is read then and watched from then on;
 *  - slotSubscribe gives the chain's slot. The ingested slot is the newest slot the written state is
 *    known complete at: each answer's or notification's context slot, and the chain's slot while the
 *    socket is up with every subscription confirmed and nothing waiting to be written;
 *  - a dropped socket (PubSubClient reconnects with backoff and jitter, resubscribes) is healed:
 *    the pool accounts are looked up again and every watched account is read again with
 *    minContextSlot = the last chain slot seen, so no change of the gap is lost;
 *  - a notification that does not parse, whose account is not base64 of the right shape, or whose
 *    pool account has another owner or layout: counted by reason and logged, never written.
 */
import type { PoolUpdate } from '@app/contracts';
import { PROGRAM_IDS } from '@app/solana';
import type { AccountSink } from './account-sink';
import { PubSubClient, type PubSubEndpoint } from './pubsub-client';
import { poolAccountProblem, type BootstrapLogger, type BootstrapResult, type RpcBootstrap, type WatchedProgram } from './rpc-bootstrap';
import type { RawAccount, RpcClient } from './rpc-client';

export interface RpcLiveOptions {
  /** 0: accountSubscribe every watched account; > 0: poll them with getMultipleAccounts this often */
  pollMs: number;
  commitment: 'processed' | 'confirmed' | 'finalized';
}

export interface RpcLiveStats {
  chainSlot: number;
  ingestedSlot: number;
  /** chainSlot - ingestedSlot */
  lag: number;
  notifications: number;
  /** notifications and messages refused, by reason */
  rejected: Record<string, number>;
  reconnects: number;
  heals: number;
  watched: number;
  subscriptions: number;
  /** the socket is up, every subscription confirmed, no heal under way */
  live: boolean;
}

const MAX_LOGGED_REJECTS = 50;

export class RpcLive {
  private readonly pubsub: PubSubClient;
  private readonly watched = new Set<string>();
  private readonly programOf = new Map<string, string>();
  private queue: PoolUpdate[] = [];
  private flushing: Promise<void> | null = null;
  private healing = false;
  private pollTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private chainSlot = 0;
  private ingestedSlot = 0;
  private notifications = 0;
  private heals = 0;
  private readonly rejected: Record<string, number> = {};
  private rejectedTotal = 0;
  private following = false;
  private initialHealDone = false;
  private chainConfirmedEarly = false;
  /** the newest slotNotification: the state is complete at it once what came before is written */
  private notifiedSlot = 0;
  /** resolves when a heal or a dependency read in the background finishes (tests, benchmarks) */
  private background: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly client: RpcClient,
    private readonly sink: AccountSink,
    private readonly boot: RpcBootstrap,
    endpoints: readonly PubSubEndpoint[],
    private readonly opts: RpcLiveOptions,
    private readonly logger: BootstrapLogger,
  ) {
    this.pubsub = new PubSubClient(endpoints, {
      onNotification: (key, method, result) => this.notification(key, method, result),
      onResubscribed: (reconnected) => this.confirmed(reconnected),
      onDisconnected: (reason) => this.logger.warn(`rpc websocket: ${reason}; reconnecting`),
      onBadMessage: (reason) => this.reject(reason),
    });
  }

  stats(): RpcLiveStats {
    const rejected = { ...this.rejected };
    return {
      chainSlot: this.chainSlot,
      ingestedSlot: this.ingestedSlot,
      lag: Math.max(0, this.chainSlot - this.ingestedSlot),
      notifications: this.notifications,
      rejected,
      reconnects: this.pubsub.reconnects,
      heals: this.heals,
      watched: this.watched.size,
      subscriptions: this.pubsub.subscriptions,
      live: this.pubsub.live && !this.healing,
    };
  }

  /**
   * Before the bootstrap: the chain's slot and the programs' pool accounts, so that nothing
   * written while the snapshot is read is missed (a notification newer than the read wins).
   * Resolves once the subscriptions are confirmed, or after `waitMs` (the socket keeps trying).
   */
  async subscribeChain(programs: readonly WatchedProgram[], waitMs = 10_000): Promise<boolean> {
    this.pubsub.subscribe('slot', { method: 'slotSubscribe', params: [] });
    for (const p of programs) {
      p.filters.forEach((filters, i) => {
        const key = `program:${p.programId}:${i}`;
        this.programOf.set(key, p.programId);
        this.pubsub.subscribe(key, { method: 'programSubscribe', params: [p.programId, { encoding: 'base64', commitment: this.opts.commitment, filters }] });
      });
    }
    this.pubsub.start();
    const until = Date.now() + waitMs;
    while (!this.pubsub.live && Date.now() < until && !this.stopped) await new Promise((r) => setTimeout(r, 10));
    this.chainConfirmedEarly = this.pubsub.live;
    return this.pubsub.live;
  }

  /** After the bootstrap: watch its accounts from its slot on. */
  follow(boot: BootstrapResult): void {
    this.chainSlot = Math.max(this.chainSlot, boot.slot);
    this.ingestedSlot = Math.max(this.ingestedSlot, boot.slot);
    this.following = true;
    this.watch(boot.addresses);
    if (this.opts.pollMs > 0) this.schedulePoll();
    // polling (nothing more to confirm): the program subscriptions covered the bootstrap if confirmed early
    if (this.pubsub.live) this.confirmed(false);
  }

  /** every subscription confirmed: heal what they may have missed */
  private confirmed(reconnected: boolean): void {
    if (!this.following) return;
    if (reconnected) return this.heal(true);
    if (this.initialHealDone) return this.settle();
    this.initialHealDone = true;
    // the accounts were read before their subscriptions were confirmed: read them once more
    this.heal(!this.chainConfirmedEarly);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = null;
    this.pubsub.stop();
    await this.flushing;
    await this.background.catch(() => undefined);
  }

  /** settles once nothing is queued and no heal or dependency read is under way */
  async idle(): Promise<void> {
    for (;;) {
      const b = this.background;
      await this.flushing;
      await b.catch(() => undefined);
      if (this.flushing === null && b === this.background && this.queue.length === 0) return;
    }
  }

  private watch(addresses: Iterable<string>): void {
    for (const a of addresses) {
      if (this.watched.has(a)) continue;
      this.watched.add(a);
      if (this.opts.pollMs === 0) {
        this.pubsub.subscribe(`account:${a}`, { method: 'accountSubscribe', params: [a, { encoding: 'base64', commitment: this.opts.commitment }] });
      }
    }
  }

  // ---- notifications ----

  private notification(key: string, method: string, result: unknown): void {
    if (this.stopped) return;
    this.notifications++;
    if (method === 'slotNotification') {
      const slot = (result as { slot?: unknown })?.slot;
      if (typeof slot !== 'number' || !Number.isSafeInteger(slot)) return this.reject('slotNotification without a slot');
      if (slot > this.chainSlot) this.chainSlot = slot;
      if (slot > this.notifiedSlot) this.notifiedSlot = slot;
      return this.settle();
    }
    const context = (result as { context?: { slot?: unknown } })?.context;
    const slot = context?.slot;
    if (typeof slot !== 'number' || !Number.isSafeInteger(slot) || slot < 0) return this.reject(`${method} without a context slot`);
    const value = (result as { value?: unknown }).value;
    if (method === 'programNotification' && key.startsWith('program:')) {
      const v = value as { pubkey?: unknown; account?: unknown };
      if (typeof v?.pubkey !== 'string') return this.reject('programNotification without a pubkey');
      const account = parseAccount(v.pubkey, v.account);
      if (typeof account === 'string') return this.reject(`programNotification: ${account}`);
      if (account === null) return this.reject('programNotification of a closed account');
      const problem = poolAccountProblem(account, new Set([this.programOf.get(key)!]));
      if (problem !== null) return this.reject(`programNotification of ${v.pubkey}: ${problem}`);
      return this.enqueue(this.sink.update(slot, account));
    }
    if (method === 'accountNotification' && key.startsWith('account:')) {
      const address = key.slice('account:'.length);
      const account = parseAccount(address, value);
      if (typeof account === 'string') return this.reject(`accountNotification: ${account}`);
      if (account === null) return this.enqueue({ slot, address, owner: PROGRAM_IDS.system, lamports: 0n, data: null, source: 'rpc' });
      return this.enqueue(this.sink.update(slot, account));
    }
    this.reject(`unexpected ${method} on subscription ${key}`);
  }

  /** the state written is complete at `slot` (an answer's or a batch's context slot); the chain is at least there */
  private ingested(slot: number): void {
    if (slot > this.ingestedSlot) this.ingestedSlot = slot;
    if (slot > this.chainSlot) this.chainSlot = slot;
  }

  /** nothing waiting, every subscription confirmed: the state is complete at the last slot notified */
  private settle(): void {
    if (this.pubsub.live && this.following && !this.healing && this.queue.length === 0 && this.flushing === null && this.notifiedSlot > this.ingestedSlot) {
      this.ingestedSlot = this.notifiedSlot;
    }
  }

  private reject(reason: string): void {
    const short = reason.replace(/ of [1-9A-HJ-NP-Za-km-z]{32,44}:/, ':');
    this.rejected[short] = (this.rejected[short] ?? 0) + 1;
    this.rejectedTotal++;
    if (this.rejectedTotal <= MAX_LOGGED_REJECTS) this.logger.warn(`rpc: refused: ${reason}`);
    if (this.rejectedTotal === MAX_LOGGED_REJECTS) this.logger.warn('rpc: further refusals are counted, not logged');
  }

  private enqueue(u: PoolUpdate): void {
    this.queue.push(u);
    if (this.flushing === null) this.flushing = this.flush();
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        await new Promise<void>((r) => setImmediate(r)); // gather what arrives meanwhile into one append
        const batch = this.queue;
        this.queue = [];
        await this.sink.write(batch);
        let newest = 0;
        for (const u of batch) if (u.slot > newest) newest = u.slot;
        this.ingested(newest);
        this.followDependencies();
      }
    } catch (e) {
      this.logger.warn(`rpc: writing to the log failed (${(e as Error).message}); the next heal reads the accounts again`);
    } finally {
      this.flushing = null;
    }
    this.settle();
  }

  /** pools that changed: read and watch what they depend on now and was never read */
  private followDependencies(): void {
    const changed = this.sink.drainChanged();
    if (changed.size === 0) return;
    const fresh: string[] = [];
    for (const p of changed) if (!this.watched.has(p) && this.sink.projection.account(p) !== undefined) fresh.push(p);
    this.watch(fresh);
    const curves = fresh.filter((p) => this.sink.projection.account(p)?.owner === PROGRAM_IDS.pumpFun);
    const missing = this.sink.missing(changed);
    const metadata = this.sink.missingMetadata(changed);
    if (missing.length === 0 && curves.length === 0 && metadata.length === 0) return;
    this.inBackground(async () => {
      for (const c of curves) await this.boot.readCurveTokenAccount(c);
      const deps = this.sink.missing(changed);
      this.watch(deps);
      await this.boot.readAccounts([...deps, ...this.sink.missingMetadata(changed)]);
      this.followDependencies();
    });
  }

  private inBackground(fn: () => Promise<void>): void {
    const run = this.background.then(fn).catch((e: unknown) => {
      if (!this.stopped) this.logger.warn(`rpc: background read failed: ${(e as Error).message}`);
    });
    this.background = run;
  }

  // ---- heal and poll ----

  /** after a reconnection: pools again (`pools`), every watched account again at >= the last slot seen */
  private heal(pools: boolean): void {
    this.heals++;
    this.healing = true;
    const from = this.chainSlot;
    this.logger.log(`rpc subscriptions confirmed; healing the gap: reading ${pools ? 'the pools and ' : ''}${this.watched.size} accounts again (minContextSlot ${from})`);
    this.inBackground(async () => {
      try {
        this.sink.forgetAbsent();
        if (pools) await this.boot.readPools();
        const slot = await this.boot.readAccounts([...this.watched], from);
        await this.boot.readDependencies(from);
        this.watch(this.sink.watchedAddresses());
        this.ingested(slot);
      } finally {
        this.healing = false;
        this.settle();
      }
    });
  }

  private schedulePoll(): void {
    if (this.stopped) return;
    this.pollTimer = setTimeout(() => {
      this.inBackground(async () => {
        this.ingested(await this.boot.readAccounts([...this.watched]));
        this.followDependencies();
      });
      void this.background.finally(() => this.schedulePoll());
    }, this.opts.pollMs);
    this.pollTimer.unref();
  }
}

/** a notification's account in the base64 encoding; null = closed; a string = why it is malformed */
export function parseAccount(address: string, v: unknown): RawAccount | null | string {
  if (typeof v !== 'object' || v === null) return 'no account object';
  const a = v as { data?: unknown; lamports?: unknown; owner?: unknown };
  if (typeof a.lamports !== 'number' || !Number.isSafeInteger(a.lamports) || a.lamports < 0) return 'lamports is not a non-negative integer';
  if (typeof a.owner !== 'string' || a.owner.length < 32 || a.owner.length > 44) return 'owner is not a public key';
  if (!Array.isArray(a.data) || a.data.length !== 2 || a.data[1] !== 'base64' || typeof a.data[0] !== 'string') return 'data is not [base64, "base64"]';
  const text = a.data[0];
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return 'data is not valid base64';
  if (a.lamports === 0) return null;
  return { address, owner: a.owner, lamports: BigInt(a.lamports), data: Buffer.from(text, 'base64') };
}
