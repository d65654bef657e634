/**
 * INGEST_SOURCE=rpc: the chain through a Solana RPC provider. Start: the node is checked (a
 * refused key stops the start naming RPC_KEY), the scope is bootstrapped (RpcBootstrap), one log
 * line summarises what is ingested, then RpcLive follows the chain. About once a second an
 * `ingest-status` heartbeat (chain slot, slot ingested) goes to the log for the routers' /health;
 * every 30 s the ingest lag is logged.
 */
import type { AppConfig } from '@app/config';
import { encodeIngestStatus } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import type { LogPort } from '@app/log';
import { IngestorStartError, type IngestorLogger } from '../ingestor';
import { AccountSink, type AccountSinkStats } from './account-sink';
import { RpcBootstrap, type BootstrapResult } from './rpc-bootstrap';
import { classifyRpcError, RpcAuthError, RpcClient, rpcEndpoints, type RpcClientStats } from './rpc-client';
import { RpcLive, type RpcLiveStats } from './rpc-live';
import { metrics } from '@app/observability';

export type RpcSourceOptions = Pick<AppConfig, 'rpcUrls' | 'rpcWsUrls' | 'rpcKey' | 'rpcPollMs' | 'ingestPrograms' | 'ingestMints' | 'ingestPools'>;

export interface RpcSourceStats {
  bootstrap: Omit<BootstrapResult, 'addresses' | 'programs'> & { ms: number; accounts: number };
  live: RpcLiveStats;
  sink: AccountSinkStats;
  rpc: RpcClientStats;
}

const HEARTBEAT_MS = 1_000;
const LAG_LOG_MS = 30_000;

export class RpcSource {
  readonly client: RpcClient;
  readonly sink: AccountSink;
  readonly bootstrap: RpcBootstrap;
  readonly live: RpcLive;
  private bootStats: RpcSourceStats['bootstrap'] | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private lagLog: NodeJS.Timeout | null = null;
  private lastLagLog = { at: Date.now(), appended: 0 };

  constructor(
    private readonly opts: RpcSourceOptions,
    private readonly log: LogPort,
    private readonly logger: IngestorLogger,
  ) {
    const endpoints = rpcEndpoints(opts.rpcUrls, opts.rpcWsUrls, opts.rpcKey);
    this.client = new RpcClient(endpoints, logger);
    this.sink = new AccountSink(log, 'rpc');
    const scope = { programs: opts.ingestPrograms, mints: opts.ingestMints, pools: opts.ingestPools };
    this.bootstrap = new RpcBootstrap(this.client, this.sink, scope, logger);
    this.live = new RpcLive(this.client, this.sink, this.bootstrap, endpoints.map((e) => ({ url: e.wsUrl, headers: e.headers })), { pollMs: opts.rpcPollMs, commitment: 'confirmed' }, logger);
  }

  /** check the node, bootstrap, then follow the chain (resolves once the bootstrap is in the log) */
  async start(): Promise<void> {
    await this.log.ensureTopic(TOPICS.poolUpdates);
    await this.log.ensureTopic(TOPICS.ingestStatus);
    await this.checkNode();
    if (!(await this.live.subscribeChain(this.bootstrap.watchedPrograms()))) {
      this.logger.warn('rpc websocket: the subscriptions are not confirmed yet; bootstrapping meanwhile (healed once they are)');
    }
    const t0 = Date.now();
    let r: BootstrapResult;
    try {
      r = await this.bootstrap.run();
    } catch (e) {
      if (e instanceof RpcAuthError) throw new IngestorStartError(`${e.message}`);
      throw e;
    }
    this.bootStats = { slot: r.slot, pools: r.pools, requests: r.requests, rejected: r.rejected, ms: Date.now() - t0, accounts: r.addresses.length };
    const o = this.opts;
    const scope = o.ingestPools ? `INGEST_POOLS (${o.ingestPools.length})` : o.ingestMints ? `INGEST_MINTS ${o.ingestMints.join(',')}` : 'every pool';
    const routable = this.sink.projection.markets().filter((m) => m.routable).length;
    this.logger.log(
      `rpc ingest: programs ${o.ingestPrograms.join(',')}; scope ${scope}; ${r.pools} pools (${routable} routable), ${r.addresses.length} accounts watched ` +
        `(${o.rpcPollMs > 0 ? `polled every ${o.rpcPollMs} ms` : 'accountSubscribe'}); bootstrap at slot ${r.slot}: ${r.requests} requests in ${this.bootStats.ms} ms` +
        `${r.rejected > 0 ? `, ${r.rejected} accounts refused` : ''}; endpoints ${this.client.endpoints.length}`,
    );
    this.live.follow(r);
    this.heartbeat = setInterval(() => void this.beat(), HEARTBEAT_MS);
    this.heartbeat.unref();
    this.lagLog = setInterval(() => this.logLag(), LAG_LOG_MS);
    this.lagLog.unref();
  }

  async stop(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.lagLog) clearInterval(this.lagLog);
    this.heartbeat = this.lagLog = null;
    this.client.stop();
    await this.live.stop();
  }

  stats(): RpcSourceStats {
    return {
      bootstrap: this.bootStats ?? { slot: 0, pools: 0, requests: 0, rejected: 0, ms: 0, accounts: 0 },
      live: this.live.stats(),
      sink: this.sink.stats(),
      rpc: this.client.stats(),
    };
  }

  /** the primary node answers and takes the key: a 401/403 stops the start; an unreachable node is retried */
  private async checkNode(): Promise<void> {
    try {
      await this.client.probe(0);
    } catch (e) {
      const kind = classifyRpcError(e);
      if (kind === 'auth') throw new IngestorStartError(`RPC_URL ${redact(this.opts.rpcUrls[0])} refused the key (${(e as Error).message.slice(0, 120)}): check RPC_KEY`);
      this.logger.warn(`RPC_URL ${redact(this.opts.rpcUrls[0])} does not answer yet (${kind}: ${(e as Error).message.slice(0, 120)}); retrying`);
    }
  }

  private async beat(): Promise<void> {
    const s = this.live.stats();
    metrics.ingestLag('rpc', s.lag);
    try {
      await this.log.append(TOPICS.ingestStatus, [{ key: 'rpc', value: encodeIngestStatus({ source: 'rpc', chainSlot: s.chainSlot, ingestedSlot: s.ingestedSlot, at: Date.now() }) }]);
    } catch (e) {
      this.logger.warn(`ingest-status heartbeat not written: ${(e as Error).message}`);
    }
  }

  private logLag(): void {
    const s = this.live.stats();
    const appended = this.sink.stats().appended;
    const secs = (Date.now() - this.lastLagLog.at) / 1000;
    const rate = (appended - this.lastLagLog.appended) / Math.max(1, secs);
    this.lastLagLog = { at: Date.now(), appended };
    const refused = Object.values(s.rejected).reduce((a, b) => a + b, 0);
    this.logger.log(
      `rpc ingest: chain slot ${s.chainSlot}, ingested ${s.ingestedSlot}, lag ${s.lag} slots; ${rate.toFixed(0)} writes/s; ${s.watched} accounts watched, ` +
        `${s.reconnects} reconnects, ${s.heals} heals, ${refused} refused, ${this.client.stats().requests} requests`,
    );
  }
}

/** a URL without its query (a key may be in it) */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}${u.search ? '?…' : ''}`;
  } catch {
    return '(invalid URL)';
  }
}
