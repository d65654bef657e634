/**
 * Configured address lookup tables, ingested from the chain: the accounts of LOOKUP_TABLES are
 * read from a Solana RPC node (RPC_URL, RPC_KEY; getMultipleAccounts through @solana/web3.js) at
 * start and every LOOKUP_TABLES_REFRESH_MS, and each one whose content changed is appended to
 * `pool-updates` like any account write (slot = the read's context slot, source `rpc`), so the
 * router compiles transactions with them. An account the node no longer has is appended as
 * closed (data null). A failed read is logged and tried again at the next refresh; the
 * ingestor's other source is not disturbed.
 */
import { Connection, PublicKey, type AccountInfo } from '@solana/web3.js';
import { encodePoolUpdate, type PoolUpdate } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import type { LogPort } from '@app/log';
import { PROGRAM_IDS } from '@app/solana';
import type { IngestorLogger } from '../ingestor';

export interface LookupTableIngestOptions {
  rpcUrl: string;
  rpcKey: string | null;
  addresses: readonly string[];
  refreshMs: number;
}

export interface LookupTableIngestStats {
  reads: number;
  failedReads: number;
  recordsAppended: number;
  lastSlot: number | null;
}

/** getMultipleAccounts takes at most this many keys per call */
const MAX_KEYS_PER_CALL = 100;
export const LOOKUP_TABLE_SOURCE = 'rpc';

export class LookupTableIngest {
  private readonly connection: Connection;
  private readonly keys: PublicKey[];
  /** the content last appended per address ('' once closed) */
  private readonly last = new Map<string, string>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = false;
  private readonly counters: LookupTableIngestStats = { reads: 0, failedReads: 0, recordsAppended: 0, lastSlot: null };

  constructor(
    private readonly opts: LookupTableIngestOptions,
    private readonly log: LogPort,
    private readonly logger: IngestorLogger,
  ) {
    this.connection = new Connection(opts.rpcUrl, {
      commitment: 'confirmed',
      disableRetryOnRateLimit: true,
      httpHeaders: opts.rpcKey ? { Authorization: `Bearer ${opts.rpcKey}` } : undefined,
    });
    this.keys = opts.addresses.map((a) => new PublicKey(a));
  }

  /** the first read (awaited: a start with the tables in the log), then the refresh timer */
  async start(): Promise<void> {
    this.stopped = false;
    await this.refresh();
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  stats(): LookupTableIngestStats {
    return { ...this.counters };
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.refresh().finally(() => this.schedule());
    }, this.opts.refreshMs);
    this.timer.unref();
  }

  /** one read of every table; appends what changed. Never throws (failures are logged and counted). */
  refresh(): Promise<void> {
    const run = (this.running = this.readAndAppend().catch((e: unknown) => {
      this.counters.failedReads++;
      this.logger.warn(`lookup tables: ${(e as Error).message} (next try in ${this.opts.refreshMs} ms)`);
    }));
    return run;
  }

  private async readAndAppend(): Promise<void> {
    const updates: PoolUpdate[] = [];
    for (let i = 0; i < this.keys.length; i += MAX_KEYS_PER_CALL) {
      const chunk = this.keys.slice(i, i + MAX_KEYS_PER_CALL);
      const { context, value } = await this.connection.getMultipleAccountsInfoAndContext(chunk, 'confirmed');
      this.counters.reads++;
      chunk.forEach((key, j) => {
        const u = toUpdate(key.toBase58(), value[j], context.slot);
        const fingerprint = u.data === null ? '' : `${u.owner}:${u.lamports}:${u.data.toString('base64')}`;
        if (this.last.get(u.address) === fingerprint) return;
        if (this.last.get(u.address) === undefined && u.data === null) {
          this.logger.warn(`lookup tables: ${u.address} does not exist on the node`);
          this.last.set(u.address, '');
          return;
        }
        if (u.data !== null && u.owner !== PROGRAM_IDS.addressLookupTable) {
          this.logger.warn(`lookup tables: ${u.address} is owned by ${u.owner}, not the address lookup table program (appended; the router will not use it)`);
        }
        this.last.set(u.address, fingerprint);
        updates.push(u);
      });
    }
    if (updates.length === 0) return;
    await this.log.append(
      TOPICS.poolUpdates,
      updates.map((u) => ({ key: u.address, value: encodePoolUpdate(u) })),
    );
    this.counters.recordsAppended += updates.length;
    this.counters.lastSlot = updates[0].slot;
    this.logger.log(`lookup tables: ${updates.length} account(s) appended at slot ${updates[0].slot}`);
  }
}

function toUpdate(address: string, info: AccountInfo<Buffer> | null, slot: number): PoolUpdate {
  if (info === null) return { slot, address, owner: PROGRAM_IDS.system, lamports: 0n, data: null, source: LOOKUP_TABLE_SOURCE };
  return { slot, address, owner: info.owner.toBase58(), lamports: BigInt(info.lamports), data: Buffer.from(info.data), source: LOOKUP_TABLE_SOURCE };
}
