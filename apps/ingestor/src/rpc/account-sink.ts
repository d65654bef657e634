/**
 * Where a chain source (rpc, geyser) writes what it read: each account goes to `pool-updates`
 * as raw bytes with the slot of the answer or notification that carried it, and into a private
 * copy of the router's projection (apps/router/src/projection: the program registry's
 * `poolDependencies`), which says what every pool's quote and swap depend on. No second table of
 * dependencies: the sink asks that projection which dependencies were never read (`missing`),
 * including those a price move makes needed (the next tick array), and which pump.fun curves
 * have no known mint yet (their token account is found by owner).
 *
 * Per account, a write older than the last one written is dropped (counted as `stale`), and a
 * write that repeats the content already written is skipped (`unchanged`); a closed account is
 * written as data null (once, and only when it was written before). Writes are appended in order,
 * chunked. Whether an account may be written at all (its owner, its layout) is the source's check.
 */
import { encodePoolUpdate, type PoolUpdate } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import type { LogPort } from '@app/log';
import { PROGRAM_IDS, metadataAddress } from '@app/solana';
import { Projection } from '@app/pools';
import type { RawAccount } from './rpc-client';

export interface AccountSinkStats {
  appended: number;
  stale: number;
  unchanged: number;
  /** newest slot of a write appended */
  lastSlot: number | null;
}

const APPEND_CHUNK = 500;

export class AccountSink {
  /** the router's projection over what was written: dependencies and pool decoding */
  readonly projection = new Projection();
  private offset = 0;
  private tail: Promise<void> = Promise.resolve();
  /** last slot written per address (closed accounts included) */
  private readonly lastSlot = new Map<string, number>();
  /** addresses read and found absent on chain (not written; read again when the set is healed) */
  private readonly absent = new Set<string>();
  /** each mint's Metadata account address, derived once */
  private readonly metadataPdas = new Map<string, string>();
  private readonly counters: AccountSinkStats = { appended: 0, stale: 0, unchanged: 0, lastSlot: null };
  /** called with each batch actually appended (after the log accepted it) */
  onAppended: ((updates: readonly PoolUpdate[]) => void) | null = null;

  constructor(
    private readonly log: LogPort,
    private readonly source: string,
  ) {}

  stats(): AccountSinkStats {
    return { ...this.counters };
  }

  /** the slot last written for `address` (undefined: never) */
  slotOf(address: string): number | undefined {
    return this.lastSlot.get(address);
  }

  /** Append accounts read at `slot` (null: the node has no account at that address). */
  async writeRead(slot: number, reads: ReadonlyArray<{ address: string; account: RawAccount | null }>): Promise<number> {
    const updates: PoolUpdate[] = [];
    for (const r of reads) {
      if (r.account === null) {
        if (this.lastSlot.has(r.address) && this.projection.account(r.address) !== undefined) {
          updates.push({ slot, address: r.address, owner: PROGRAM_IDS.system, lamports: 0n, data: null, source: this.source });
        } else this.absent.add(r.address);
      } else updates.push(this.update(slot, r.account));
    }
    return this.write(updates);
  }

  /** the PoolUpdate of an account read at `slot` */
  update(slot: number, a: RawAccount): PoolUpdate {
    return { slot, address: a.address, owner: a.owner, lamports: a.lamports, data: a.data, source: this.source };
  }

  /** Append what is newer than what was written; returns how many were appended. Calls run one after the other. */
  write(updates: readonly PoolUpdate[]): Promise<number> {
    const run = this.tail.then(() => this.writeNow(updates));
    this.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async writeNow(updates: readonly PoolUpdate[]): Promise<number> {
    const out: PoolUpdate[] = [];
    for (const u of updates) {
      const last = this.lastSlot.get(u.address);
      if (last !== undefined && u.slot < last) {
        this.counters.stale++;
        continue;
      }
      const have = this.projection.account(u.address);
      if (u.data === null) {
        if (have === undefined) {
          this.absent.add(u.address);
          if (last !== undefined) this.lastSlot.set(u.address, u.slot);
          continue;
        }
      } else {
        if (have !== undefined && have.owner === u.owner && have.data.equals(u.data)) {
          this.counters.unchanged++;
          this.lastSlot.set(u.address, u.slot);
          continue;
        }
      }
      this.absent.delete(u.address);
      this.lastSlot.set(u.address, u.slot);
      out.push(u);
    }
    // the chunks go to the log one after the other, and only then into this projection: its
    // re-decoding is not in the way of the next chunk (a consumer of the log has the first already)
    const appended: Buffer[] = [];
    try {
      for (let i = 0; i < out.length; i += APPEND_CHUNK) {
        const chunk = out.slice(i, i + APPEND_CHUNK);
        const encoded = chunk.map((u) => encodePoolUpdate(u));
        await this.log.append(
          TOPICS.poolUpdates,
          chunk.map((u, j) => ({ key: u.address, value: encoded[j] })),
        );
        for (const e of encoded) appended.push(e);
        for (const u of chunk) if (this.counters.lastSlot === null || u.slot > this.counters.lastSlot) this.counters.lastSlot = u.slot;
        this.counters.appended += chunk.length;
        this.onAppended?.(chunk);
      }
    } finally {
      for (const value of appended) this.projection.apply({ partition: 0, offset: this.offset++, value });
    }
    return out.length;
  }

  /** pool accounts written (routable or not) */
  pools(): string[] {
    return this.projection.markets().map((m) => m.address);
  }

  /** every address a pool depends on, and the pools themselves */
  watchedAddresses(): string[] {
    const out = new Set<string>();
    for (const pool of this.pools()) {
      out.add(pool);
      for (const d of this.projection.dependenciesOf(pool)) out.add(d);
    }
    return [...out];
  }

  /** dependencies of the pools (all, or `pools`) that were never read */
  missing(pools: Iterable<string> = this.pools()): string[] {
    const out = new Set<string>();
    for (const pool of pools) {
      for (const d of this.projection.dependenciesOf(pool)) {
        if (!this.lastSlot.has(d) && !this.absent.has(d)) out.add(d);
      }
    }
    return [...out];
  }

  /**
   * The Metaplex Metadata accounts of the pools' mints (all pools, or `pools`) that were never
   * read: read once for the tokens' symbols and names, not followed (a token's metadata seldom
   * changes; a Token-2022 mint's own metadata extension comes with the mint, which is followed).
   */
  missingMetadata(pools: Iterable<string> = this.pools()): string[] {
    const out = new Set<string>();
    for (const pool of pools) {
      const p = this.projection.pool(pool);
      if (p === undefined) continue;
      for (const mint of [p.mintA, p.mintB]) {
        let pda = this.metadataPdas.get(mint);
        if (pda === undefined) this.metadataPdas.set(mint, (pda = metadataAddress(mint)));
        if (!this.lastSlot.has(pda) && !this.absent.has(pda)) out.add(pda);
      }
    }
    return [...out];
  }

  /** pump.fun curves whose mint is not known yet (their token account was never read) */
  curvesWithoutMint(): string[] {
    return this.projection
      .markets()
      .filter((m) => m.programId === PROGRAM_IDS.pumpFun && m.mintA === null && !this.absent.has(`curve-ta:${m.address}`))
      .map((m) => m.address);
  }

  /** remember that a curve's token account was searched for and not found (not searched again until healed) */
  noTokenAccount(curve: string): void {
    this.absent.add(`curve-ta:${curve}`);
  }

  /** forget what was found absent: a heal reads it again */
  forgetAbsent(): void {
    this.absent.clear();
  }

  /** pools re-materialised since the last call (their dependencies may have changed) */
  drainChanged(): Set<string> {
    return this.projection.drainChanged();
  }
}
