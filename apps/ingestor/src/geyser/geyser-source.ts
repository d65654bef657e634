/**
 * INGEST_SOURCE=geyser: the chain through a Yellowstone gRPC (Geyser) endpoint, bootstrapped by
 * the RPC snapshot. Start: the Geyser endpoint is asked its slot (a refused GEYSER_X_TOKEN stops
 * the start naming it), the RPC node is checked (RPC_KEY likewise), the scope is bootstrapped
 * (RpcBootstrap: getProgramAccounts + getMultipleAccounts, source `rpc`), one log line
 * summarises what is ingested, then GeyserStream follows the chain from the slot read before the
 * snapshot (`from_slot`: nothing written while the snapshot was read is missed; the older writes
 * it replays are dropped per account). About once a second an `ingest-status` heartbeat (chain
 * slot, slot ingested) goes to the log for the routers' /health; every 30 s the lag is logged.
 */
import Client, { CommitmentLevel } from '@triton-one/yellowstone-grpc';
import type { AppConfig } from '@app/config';
import { encodeIngestStatus } from '@app/contracts';
import { TOPICS } from '@app/contracts';
import type { LogPort } from '@app/log';
import { IngestorStartError, type IngestorLogger } from '../ingestor';
import { AccountSink } from '../rpc/account-sink';
import { RpcBootstrap } from '../rpc/rpc-bootstrap';
import { classifyRpcError, RpcAuthError, RpcClient, rpcEndpoints } from '../rpc/rpc-client';
import { GeyserStream, type GeyserStreamStats } from './geyser-stream';
import { ProgramAccounts } from './program-accounts';
import { COMMITMENT_LEVELS } from './subscribe-request';

export type GeyserSourceOptions = Pick<
  AppConfig,
  'rpcUrls' | 'rpcWsUrls' | 'rpcKey' | 'ingestPrograms' | 'ingestMints' | 'ingestPools' | 'geyserUrl' | 'geyserXToken' | 'geyserCommitment' | 'geyserPingMs'
>;

const HEARTBEAT_MS = 1_000;
const LAG_LOG_MS = 30_000;

export class GeyserSource {
  readonly client: RpcClient;
  readonly sink: AccountSink;
  readonly bootstrap: RpcBootstrap;
  stream: GeyserStream | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private lagLog: NodeJS.Timeout | null = null;

  constructor(
    private readonly opts: GeyserSourceOptions,
    private readonly log: LogPort,
    private readonly logger: IngestorLogger,
  ) {
    this.client = new RpcClient(rpcEndpoints(opts.rpcUrls, opts.rpcWsUrls, opts.rpcKey), logger);
    this.sink = new AccountSink(log, 'rpc');
    this.bootstrap = new RpcBootstrap(this.client, this.sink, { programs: opts.ingestPrograms, mints: opts.ingestMints, pools: opts.ingestPools }, logger);
  }

  /** check both endpoints, bootstrap, then stream (resolves once the bootstrap is in the log) */
  async start(): Promise<void> {
    await this.log.ensureTopic(TOPICS.poolUpdates);
    await this.log.ensureTopic(TOPICS.ingestStatus);
    const fromSlot = await this.geyserSlot();
    await this.checkNode();
    const t0 = Date.now();
    let r;
    try {
      r = await this.bootstrap.run();
    } catch (e) {
      if (e instanceof RpcAuthError) throw new IngestorStartError(e.message);
      throw e;
    }
    const o = this.opts;
    const scope = o.ingestPools ? `INGEST_POOLS (${o.ingestPools.length})` : o.ingestMints ? `INGEST_MINTS ${o.ingestMints.join(',')}` : 'every pool';
    this.logger.log(
      `geyser ingest: programs ${o.ingestPrograms.join(',')}; scope ${scope}; ${r.pools} pools, ${r.addresses.length} accounts followed by address; ` +
        `RPC bootstrap at slot ${r.slot}: ${r.requests} requests in ${Date.now() - t0} ms; stream from slot ${fromSlot} at ${o.geyserCommitment}`,
    );
    const layouts = new ProgramAccounts(r.programs.map((p) => p.programId));
    this.stream = new GeyserStream(
      { url: o.geyserUrl!, xToken: o.geyserXToken, commitment: o.geyserCommitment, pingMs: o.geyserPingMs },
      { sink: this.sink, boot: this.bootstrap, layouts, logger: this.logger },
      { boot: r, fromSlot },
    );
    this.stream.start();
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
    await this.stream?.stop();
  }

  stats(): GeyserStreamStats | null {
    return this.stream?.stats() ?? null;
  }

  /** the Geyser endpoint's slot at the commitment; an endpoint that refuses the token stops the start */
  private async geyserSlot(): Promise<number> {
    const o = this.opts;
    for (let attempt = 0; ; attempt++) {
      try {
        const c = new Client(o.geyserUrl!, o.geyserXToken ?? undefined, undefined);
        await c.connect();
        const r = await c.getSlot(COMMITMENT_LEVELS[o.geyserCommitment] as CommitmentLevel);
        return Number(r.slot);
      } catch (e) {
        const text = errorText(e);
        if (/unauthenticated|permission denied|x-token|401|403/i.test(text)) throw new IngestorStartError(`GEYSER_URL ${o.geyserUrl} refused the token (${text.slice(0, 160)}): check GEYSER_X_TOKEN`);
        if (attempt >= 4) throw new IngestorStartError(`GEYSER_URL ${o.geyserUrl} does not answer (${text.slice(0, 160)})`);
        this.logger.warn(`GEYSER_URL ${o.geyserUrl} does not answer yet (${text.slice(0, 160)}); retrying`);
        await new Promise((r) => setTimeout(r, 500 * 2 ** attempt));
      }
    }
  }

  /** the RPC node takes the key (a 401/403 stops the start); an unreachable node is retried by the bootstrap */
  private async checkNode(): Promise<void> {
    try {
      await this.client.probe(0);
    } catch (e) {
      if (classifyRpcError(e) === 'auth') throw new IngestorStartError(`RPC_URL refused the key (${errorText(e).slice(0, 120)}): check RPC_KEY`);
      this.logger.warn(`RPC_URL does not answer yet (${errorText(e).slice(0, 120)}); retrying`);
    }
  }

  private async beat(): Promise<void> {
    const s = this.stream?.stats();
    if (!s) return;
    try {
      await this.log.append(TOPICS.ingestStatus, [{ key: 'geyser', value: encodeIngestStatus({ source: 'geyser', chainSlot: s.chainSlot, ingestedSlot: s.ingestedSlot, at: Date.now() }) }]);
    } catch (e) {
      this.logger.warn(`ingest-status heartbeat not written: ${errorText(e)}`);
    }
  }

  private logLag(): void {
    const s = this.stream?.stats();
    if (!s) return;
    this.logger.log(
      `geyser ingest: chain slot ${s.chainSlot}, ingested ${s.ingestedSlot}, lag ${Math.max(0, s.chainSlot - s.ingestedSlot)} slots; ${s.written} writes, ` +
        `${s.addressesFollowed} accounts followed by address, ${s.reconnects} reconnects, ${s.resyncs} resyncs, ${s.rejected} refused`,
    );
  }
}

/** an error's message and causes (the native client's errors may come from another realm) */
function errorText(e: unknown): string {
  let out = '';
  for (let c: unknown = e, i = 0; c && i < 5; c = (c as { cause?: unknown }).cause, i++) {
    const m = (c as { message?: unknown }).message;
    out += (i > 0 ? ': ' : '') + (typeof m === 'string' ? m : String(c));
  }
  return out;
}
