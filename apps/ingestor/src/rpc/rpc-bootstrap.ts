/**
 * The RPC snapshot of the chain that a chain source starts from (INGEST_SOURCE=rpc, and geyser
 * before its stream). Interface:
 *
 *   const boot = new RpcBootstrap(client, sink, scope, logger);
 *   const r = await boot.run();   // -> BootstrapResult
 *   r.slot            the newest context slot the snapshot reached (a stream resumes from it)
 *   r.programs        per watched program: its id and the filter lists of its pool accounts (what
 *                     programSubscribe / a Geyser owner filter subscribe with)
 *   r.addresses       every pool and every account a pool depends on (what accountSubscribe /
 *                     polling / a Geyser address filter watch)
 *   r.pools, r.requests, r.rejected
 *
 * `client` is an RpcClient (web3.js Connections with failover and retry), `sink` the AccountSink
 * (appends to pool-updates, tracks dependencies through the router's program registry). Steps:
 *  1. pools: getProgramAccounts per program of INGEST_PROGRAMS with its pool account filters
 *     (size and discriminator memcmp, base64); with INGEST_MINTS one call per mint and side (mint
 *     memcmp), pump.fun curves as their PDAs; with INGEST_POOLS getMultipleAccounts of the list.
 *     An account of another owner or whose layout is not the program's pool account is counted
 *     and logged, never written.
 *  2. dependencies, until none is missing: what the pools' quotes and swaps depend on (vaults,
 *     mints, configs, tick arrays around the current price and the bitmap extension, oracles,
 *     fee configs, pump Global and fee config) with getMultipleAccounts, at most 100 keys a call,
 *     RPC_CONCURRENCY calls in flight; pump.fun curves' token accounts with getTokenAccountsByOwner.
 * Every account is appended with the context slot of the answer that carried it, source `rpc`.
 */
import type { GetProgramAccountsFilter } from '@solana/web3.js';
import { VENUES } from '@app/pools';
import { PROGRAM_IDS } from '@app/solana';
import { pumpBondingCurveAddress } from '@app/solana';
import type { AccountSink } from './account-sink';
import { mintScopedFilters, POOL_ACCOUNT_FILTERS, type IngestProgramName } from './pool-filters';
import { MAX_KEYS_PER_CALL, type RawAccount, type RpcClient } from './rpc-client';

export interface IngestScope {
  /** INGEST_PROGRAMS: which of the six */
  programs: readonly IngestProgramName[];
  /** INGEST_MINTS: only pools with one of these mints (null: every pool) */
  mints: readonly string[] | null;
  /** INGEST_POOLS: exactly these pool accounts (null: found by program) */
  pools: readonly string[] | null;
}

export interface WatchedProgram {
  programId: string;
  /** each list selects a set of the program's pool accounts (several lists: their union) */
  filters: GetProgramAccountsFilter[][];
}

export interface BootstrapResult {
  slot: number;
  programs: WatchedProgram[];
  addresses: string[];
  pools: number;
  requests: number;
  rejected: number;
}

export interface BootstrapLogger {
  log(message: string): void;
  warn(message: string): void;
}

/** getMultipleAccounts calls in flight at once */
export const RPC_CONCURRENCY = 4;
const MAX_DEPENDENCY_ROUNDS = 8;
const MAX_LOGGED_REJECTS = 20;

const VENUE_BY_PROGRAM = new Map(VENUES.map((m) => [m.programId, m]));

/** null when `a` is a pool account of one of `programIds`; otherwise why not */
export function poolAccountProblem(a: RawAccount, programIds: ReadonlySet<string>): string | null {
  if (!programIds.has(a.owner)) return `owned by ${a.owner}, not a watched program`;
  const m = VENUE_BY_PROGRAM.get(a.owner);
  if (!m) return `owned by ${a.owner}, a program without a module`;
  const kind = m.accountKind(a.data);
  if (kind !== m.poolAccountKind) return `not a ${m.label} ${m.poolAccountKind} (${a.data.length} bytes, layout ${kind ?? 'unknown'})`;
  return null;
}

export class RpcBootstrap {
  private rejected = 0;
  private readonly programIds: Set<string>;

  constructor(
    private readonly client: RpcClient,
    private readonly sink: AccountSink,
    private readonly scope: IngestScope,
    private readonly logger: BootstrapLogger,
  ) {
    this.programIds = new Set(scope.programs.map((n) => POOL_ACCOUNT_FILTERS[n].programId));
  }

  /** the subscriptions that follow this scope's pool accounts */
  watchedPrograms(): WatchedProgram[] {
    if (this.scope.pools !== null) return [];
    return this.scope.programs
      .map((n) => POOL_ACCOUNT_FILTERS[n])
      .map((p) => ({
        programId: p.programId,
        filters: this.scope.mints === null ? [p.filters] : mintScopedFilters(p, this.scope.mints),
      }))
      .filter((w) => w.filters.length > 0);
  }

  async run(): Promise<BootstrapResult> {
    const before = this.client.stats().requests;
    let slot = 0;
    const seen = (s: number): void => {
      if (s > slot) slot = s;
    };
    seen(await this.readPools());
    seen(await this.readDependencies());
    seen(await this.readAccounts(this.sink.missingMetadata()));
    const addresses = this.sink.watchedAddresses();
    return {
      slot,
      programs: this.watchedPrograms(),
      addresses,
      pools: this.sink.pools().length,
      requests: this.client.stats().requests - before,
      rejected: this.rejected,
    };
  }

  /** step 1: find the scope's pool accounts and write them; returns the newest context slot */
  async readPools(): Promise<number> {
    let slot = 0;
    for (const { slot: s, accounts } of await this.findPools()) {
      slot = Math.max(slot, s);
      const ok = accounts.filter((a) => this.acceptPool(a));
      await this.sink.write(ok.map((a) => this.sink.update(s, a)));
    }
    return slot;
  }

  /** step 2: read what the pools depend on until nothing is missing; returns the newest context slot */
  async readDependencies(minContextSlot?: number): Promise<number> {
    let slot = 0;
    for (let round = 0; round < MAX_DEPENDENCY_ROUNDS; round++) {
      const curves = this.sink.curvesWithoutMint();
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < curves.length) slot = Math.max(slot, await this.readCurveTokenAccount(curves[next++]));
      };
      await Promise.all(Array.from({ length: Math.min(RPC_CONCURRENCY, curves.length) }, worker));
      const missing = this.sink.missing();
      if (missing.length === 0 && curves.length === 0) break;
      slot = Math.max(slot, await this.readAccounts(missing, minContextSlot));
    }
    return slot;
  }

  /** read `addresses` (100 a call, RPC_CONCURRENCY calls at once) and write them; returns the newest context slot */
  async readAccounts(addresses: readonly string[], minContextSlot?: number): Promise<number> {
    const chunks: string[][] = [];
    for (let i = 0; i < addresses.length; i += MAX_KEYS_PER_CALL) chunks.push(addresses.slice(i, i + MAX_KEYS_PER_CALL));
    let slot = 0;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < chunks.length) {
        const keys = chunks[next++];
        const r = await this.client.getMultipleAccounts(keys, minContextSlot);
        if (r.slot > slot) slot = r.slot;
        await this.sink.writeRead(r.slot, keys.map((address, i) => ({ address, account: r.accounts[i] })));
      }
    };
    await Promise.all(Array.from({ length: Math.min(RPC_CONCURRENCY, chunks.length) }, worker));
    return slot;
  }

  /** the token account a pump.fun curve owns (its mint proves the curve), by owner */
  async readCurveTokenAccount(curve: string): Promise<number> {
    let slot = 0;
    let found = false;
    for (const program of [PROGRAM_IDS.token, PROGRAM_IDS.token2022]) {
      const r = await this.client.getTokenAccountsByOwner(curve, program);
      slot = Math.max(slot, r.slot);
      if (r.accounts.length > 0) found = true;
      await this.sink.write(r.accounts.map((a) => this.sink.update(r.slot, a)));
    }
    if (!found) this.sink.noTokenAccount(curve);
    return slot;
  }

  private async findPools(): Promise<Array<{ slot: number; accounts: RawAccount[] }>> {
    const out: Array<{ slot: number; accounts: RawAccount[] }> = [];
    const { pools, mints, programs } = this.scope;
    if (pools !== null) {
      for (let i = 0; i < pools.length; i += MAX_KEYS_PER_CALL) {
        const keys = pools.slice(i, i + MAX_KEYS_PER_CALL);
        const r = await this.client.getMultipleAccounts(keys);
        r.accounts.forEach((a, j) => {
          if (a === null) this.reject(keys[j], 'INGEST_POOLS names an account the node does not have');
        });
        out.push({ slot: r.slot, accounts: r.accounts.filter((a): a is RawAccount => a !== null) });
      }
      return out;
    }
    for (const name of programs) {
      const p = POOL_ACCOUNT_FILTERS[name];
      if (mints === null) {
        out.push(await this.client.getProgramAccounts(p.programId, p.filters));
      } else if (p.mintOffsets === null) {
        // pump.fun: a curve is the PDA of its mint
        const curves = mints.map((m) => pumpBondingCurveAddress(m));
        const r = await this.client.getMultipleAccounts(curves);
        out.push({ slot: r.slot, accounts: r.accounts.filter((a): a is RawAccount => a !== null) });
      } else {
        for (const filters of mintScopedFilters(p, mints)) out.push(await this.client.getProgramAccounts(p.programId, filters));
      }
    }
    return out;
  }

  /** a pool account the node answered: written when it is one, counted and logged when not */
  acceptPool(a: RawAccount): boolean {
    const problem = poolAccountProblem(a, this.programIds);
    if (problem === null) return true;
    this.reject(a.address, problem);
    return false;
  }

  private reject(address: string, why: string): void {
    this.rejected++;
    if (this.rejected <= MAX_LOGGED_REJECTS) this.logger.warn(`rpc bootstrap: ${address} not ingested: ${why}`);
  }
}
