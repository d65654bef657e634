/**
 * The ingestor's HTTP side of a Solana RPC provider, through @solana/web3.js `Connection`s:
 * the reads the rpc source makes (getProgramAccounts, getMultipleAccounts, getTokenAccountsByOwner,
 * getSlot), each answer with its context slot and raw account bytes.
 *
 *  - Endpoints (libs/solana/src/rpc-endpoint.ts: RPC_URL list, RPC_WS_URL, where RPC_KEY goes): the
 *    first is primary, the others fail over (a request that fails on one endpoint is tried on the
 *    next; the client stays on the endpoint that answered).
 *  - Faults: HTTP 429 and 5xx, unreachable nodes, -32016 (minContextSlot not reached) and
 *    malformed answers back off (exponential with jitter, up to 10 s) and retry until the client is
 *    stopped; they are counted, never thrown at the caller. 401/403 throw RpcAuthError at once
 *    (the key is wrong: retrying does not help).
 */
import { Connection, PublicKey, type AccountInfo, type GetProgramAccountsFilter } from '@solana/web3.js';
import { classifyRpcError, type RpcEndpoint } from '@app/solana';

export { classifyRpcError, deriveWsUrl, rpcEndpoints, type RpcEndpoint } from '@app/solana';

/** one account as an RPC answer carried it */
export interface RawAccount {
  address: string;
  owner: string;
  lamports: bigint;
  data: Buffer;
}


export interface RpcClientStats {
  requests: number;
  byMethod: Record<string, number>;
  retries: number;
  /** failures by kind: rate-limited, server, unreachable, min-context-slot, malformed */
  failures: Record<string, number>;
  failovers: number;
}

export class RpcAuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RpcAuthError';
  }
}

export interface RpcClientLogger {
  warn(message: string): void;
}

/** getMultipleAccounts takes at most this many keys per call */
export const MAX_KEYS_PER_CALL = 100;
const BACKOFF_MIN_MS = 100;
const BACKOFF_MAX_MS = 10_000;

export class RpcClient {
  private readonly connections: Connection[];
  private current = 0;
  private stopped = false;
  private readonly counters: RpcClientStats = { requests: 0, byMethod: {}, retries: 0, failures: {}, failovers: 0 };
  private readonly sleepers = new Set<() => void>();

  constructor(
    readonly endpoints: readonly RpcEndpoint[],
    private readonly logger: RpcClientLogger,
    private readonly commitment: 'processed' | 'confirmed' | 'finalized' = 'confirmed',
  ) {
    if (endpoints.length === 0) throw new Error('RpcClient needs at least one endpoint');
    this.connections = endpoints.map(
      (e) => new Connection(e.httpUrl, { commitment, disableRetryOnRateLimit: true, httpHeaders: e.headers, wsEndpoint: e.wsUrl }),
    );
  }

  stats(): RpcClientStats {
    return { ...this.counters, byMethod: { ...this.counters.byMethod }, failures: { ...this.counters.failures } };
  }

  /** the endpoint requests go to now (index into `endpoints`) */
  get endpointIndex(): number {
    return this.current;
  }

  /** stop retrying: pending calls reject */
  stop(): void {
    this.stopped = true;
    for (const wake of this.sleepers) wake();
  }

  async getSlot(minContextSlot?: number): Promise<number> {
    return this.call('getSlot', (c) => c.getSlot({ commitment: this.commitment, ...(minContextSlot ? { minContextSlot } : {}) }));
  }

  /** one try of getSlot on endpoint `i` (the start check): throws what the node answered */
  async probe(i = 0): Promise<number> {
    this.count('getSlot');
    return this.connections[i].getSlot({ commitment: this.commitment });
  }

  async getProgramAccounts(program: string, filters: GetProgramAccountsFilter[]): Promise<{ slot: number; accounts: RawAccount[] }> {
    const r = await this.call('getProgramAccounts', (c) =>
      c.getProgramAccounts(new PublicKey(program), { commitment: this.commitment, encoding: 'base64', filters, withContext: true }),
    );
    return { slot: r.context.slot, accounts: r.value.map((x) => raw(x.pubkey.toBase58(), x.account)) };
  }

  /** at most MAX_KEYS_PER_CALL keys; null for an account the node does not have */
  async getMultipleAccounts(keys: readonly string[], minContextSlot?: number): Promise<{ slot: number; accounts: (RawAccount | null)[] }> {
    if (keys.length > MAX_KEYS_PER_CALL) throw new RangeError(`getMultipleAccounts takes at most ${MAX_KEYS_PER_CALL} keys`);
    const pks = keys.map((k) => new PublicKey(k));
    const r = await this.call('getMultipleAccounts', (c) =>
      c.getMultipleAccountsInfoAndContext(pks, { commitment: this.commitment, ...(minContextSlot ? { minContextSlot } : {}) }),
    );
    if (r.value.length !== keys.length) throw new Error(`getMultipleAccounts answered ${r.value.length} accounts for ${keys.length} keys`);
    return { slot: r.context.slot, accounts: r.value.map((a, i) => (a === null ? null : raw(keys[i], a))) };
  }

  async getTokenAccountsByOwner(owner: string, programId: string): Promise<{ slot: number; accounts: RawAccount[] }> {
    const r = await this.call('getTokenAccountsByOwner', (c) =>
      c.getTokenAccountsByOwner(new PublicKey(owner), { programId: new PublicKey(programId) }, { commitment: this.commitment }),
    );
    return { slot: r.context.slot, accounts: r.value.map((x) => raw(x.pubkey.toBase58(), x.account)) };
  }

  private count(method: string): void {
    this.counters.requests++;
    this.counters.byMethod[method] = (this.counters.byMethod[method] ?? 0) + 1;
  }

  /** run `fn` on the current endpoint; on a retryable failure back off, fail over, and retry */
  private async call<T>(method: string, fn: (c: Connection) => Promise<T>): Promise<T> {
    let delay = BACKOFF_MIN_MS;
    let triedHere = 0;
    for (;;) {
      if (this.stopped) throw new Error(`${method}: the rpc client is stopped`);
      this.count(method);
      try {
        return await fn(this.connections[this.current]);
      } catch (e) {
        const kind = classifyRpcError(e);
        if (kind === 'auth') throw new RpcAuthError(`${method}: the node refused the key (${(e as Error).message.slice(0, 200)}); check RPC_KEY`);
        this.counters.failures[kind] = (this.counters.failures[kind] ?? 0) + 1;
        this.counters.retries++;
        triedHere++;
        if (this.connections.length > 1 && kind !== 'min-context-slot') {
          this.current = (this.current + 1) % this.connections.length;
          this.counters.failovers++;
        }
        if (triedHere <= 3 || triedHere % 20 === 0) {
          this.logger.warn(`rpc ${method} failed (${kind}: ${(e as Error).message.slice(0, 160)}); retry ${triedHere} in ~${delay} ms`);
        }
        await this.sleep(delay / 2 + Math.random() * delay);
        delay = Math.min(BACKOFF_MAX_MS, delay * 2);
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(t);
        this.sleepers.delete(done);
        resolve();
      };
      const t = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }
}

function raw(address: string, a: AccountInfo<Buffer>): RawAccount {
  return { address, owner: a.owner.toBase58(), lamports: BigInt(a.lamports), data: Buffer.from(a.data) };
}
