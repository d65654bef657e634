/**
 * Test stand-in of the Solana chain: the simulated market (apps/ingestor/src/sim, SimMarket) run
 * as "the chain" behind the RPC and Geyser stand-ins. No real node can run here; this holds what a
 * node would: every account (address -> owner, lamports, data bytes, slot of its last write), the
 * current slot, which advances behind it (on a timer with `run(ms)`, or by hand with `step()`),
 * accounts by owner (what getProgramAccounts and a Geyser owner filter scan), token accounts by
 * their authority (what getTokenAccountsByOwner looks up), and events that the
 * wire stand-ins turn into their formats:
 *
 *   chain.on('account', (a: ChainAccountChange) => ...)   every write (data null = closed), in order
 *   chain.on('slot', (slot: number) => ...)               after the slot's writes
 *
 * Besides the market's own swaps, a test may write any account (`write`: a new pool created on
 * chain, a fixture account) or close one (`close`); both land at the current slot.
 */
import { EventEmitter } from 'events';
import type { PoolUpdate } from '@app/contracts';
import { PROGRAM_IDS } from '@app/solana';
import { SimMarket, type SimMarketOptions } from '@app/sim/market';

export interface ChainAccount {
  readonly address: string;
  readonly owner: string;
  readonly lamports: bigint;
  readonly data: Buffer;
  /** slot of the account's last write */
  readonly slot: number;
}

/** one write as the chain's subscribers see it; `data` null: the account was closed */
export interface ChainAccountChange {
  readonly address: string;
  readonly owner: string;
  readonly lamports: bigint;
  readonly data: Buffer | null;
  readonly slot: number;
}

export interface MarketChainOptions extends Partial<SimMarketOptions> {
  /** build the market from these options (seed, pools, ...); default a small all-programs market */
  market?: SimMarket;
}

export class MarketChain extends EventEmitter {
  readonly market: SimMarket;
  private readonly accounts = new Map<string, ChainAccount>();
  private readonly byOwner = new Map<string, Set<string>>();
  /** token accounts (of either token program) by their authority's bytes (hex) */
  private readonly byAuthority = new Map<string, Set<string>>();
  private timer: NodeJS.Timeout | null = null;
  private extraSlot = 0;

  constructor(opts: MarketChainOptions = {}) {
    super();
    this.setMaxListeners(0);
    this.market =
      opts.market ??
      new SimMarket({
        seed: opts.seed ?? 1,
        pools: opts.pools ?? 60,
        tokens: opts.tokens ?? 20,
        swapsPerSlot: opts.swapsPerSlot ?? 8,
        programs: opts.programs ?? 'all',
        lookupTables: opts.lookupTables ?? false,
        ...(opts.startSlot !== undefined ? { startSlot: opts.startSlot } : {}),
      });
    for (const u of this.market.snapshot()) this.put(u, false);
  }

  /** the chain's current slot */
  get slot(): number {
    return this.market.slot + this.extraSlot;
  }

  get(address: string): ChainAccount | undefined {
    return this.accounts.get(address);
  }

  /** addresses of the accounts `owner` owns (insertion order) */
  ownedBy(owner: string): ChainAccount[] {
    const set = this.byOwner.get(owner);
    if (!set) return [];
    const out: ChainAccount[] = [];
    for (const a of set) out.push(this.accounts.get(a)!);
    return out;
  }

  /** the token accounts (of either token program, 165 bytes or more) whose authority is these 32 bytes, in ownedBy's order */
  tokenAccountsOf(authority: Uint8Array): ChainAccount[] {
    const set = this.byAuthority.get(Buffer.from(authority).toString('hex'));
    if (!set) return [];
    const out: ChainAccount[] = [];
    for (const a of set) out.push(this.accounts.get(a)!);
    return out;
  }

  /** every account (for tests that compare or copy the whole chain) */
  all(): ChainAccount[] {
    return [...this.accounts.values()];
  }

  /** every account as PoolUpdates stamped with their last-write slot (what a direct sim feed holds) */
  updates(source = 'sim'): PoolUpdate[] {
    return this.all().map((a) => ({ slot: a.slot, address: a.address, owner: a.owner, lamports: a.lamports, data: a.data, source }));
  }

  /** Advance one slot: the market's swaps of the slot are written and emitted, then the slot. Returns the writes. */
  step(): PoolUpdate[] {
    const updates = this.market.step();
    // accounts written by hand keep their slot numbering with the market's
    const shifted = this.extraSlot === 0 ? updates : updates.map((u) => ({ ...u, slot: u.slot + this.extraSlot }));
    for (const u of shifted) this.put(u, true);
    this.emit('slot', this.slot);
    return shifted;
  }

  /** step every `ms` until stop() (the timer does not hold the process open) */
  run(ms: number): void {
    this.stop();
    this.timer = setInterval(() => this.step(), ms);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Write an account at the current slot (a pool created on chain, a fixture account, ...). */
  write(address: string, owner: string, data: Buffer, lamports: bigint = rentExempt(data.length)): void {
    this.put({ slot: this.slot, address, owner, lamports, data, source: 'chain' }, true);
  }

  /** Close an account at the current slot (lamports 0, data gone). */
  close(address: string): void {
    if (!this.accounts.has(address)) return;
    this.put({ slot: this.slot, address, owner: PROGRAM_IDS.system, lamports: 0n, data: null, source: 'chain' }, true);
  }

  /** An empty slot (no market swap): hand-written accounts can then land at a fresh slot. */
  tick(): void {
    this.extraSlot++;
    this.emit('slot', this.slot);
  }

  private put(u: PoolUpdate, emit: boolean): void {
    const before = this.accounts.get(u.address);
    const authorityBefore = before ? authorityOf(before.owner, before.data) : null;
    const authorityAfter = u.data === null ? null : authorityOf(u.owner, u.data);
    if (before) this.byOwner.get(before.owner)?.delete(u.address);
    // (a write moves the account to the end of its sets, as ownedBy answers in last-write order)
    if (authorityBefore !== null) this.byAuthority.get(authorityBefore)?.delete(u.address);
    if (u.data === null) this.accounts.delete(u.address);
    else {
      this.accounts.set(u.address, { address: u.address, owner: u.owner, lamports: u.lamports, data: u.data, slot: u.slot });
      let set = this.byOwner.get(u.owner);
      if (!set) this.byOwner.set(u.owner, (set = new Set()));
      set.add(u.address);
      if (authorityAfter !== null) {
        let byAuth = this.byAuthority.get(authorityAfter);
        if (!byAuth) this.byAuthority.set(authorityAfter, (byAuth = new Set()));
        byAuth.add(u.address);
      }
    }
    if (emit) this.emit('account', { address: u.address, owner: u.owner, lamports: u.lamports, data: u.data, slot: u.slot } satisfies ChainAccountChange);
  }
}

/** a token account's authority (bytes 32..64, hex); null for any other account */
function authorityOf(owner: string, data: Buffer): string | null {
  if ((owner !== PROGRAM_IDS.token && owner !== PROGRAM_IDS.token2022) || data.length < 165) return null;
  return data.toString('hex', 32, 64);
}

/** rent-exempt lamports of an account of `size` bytes (the runtime's formula) */
export function rentExempt(size: number): bigint {
  return BigInt((128 + size) * 3480 * 2);
}
