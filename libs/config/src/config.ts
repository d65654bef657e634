/**
 * Every setting the service reads, from the environment, validated once at start.
 * The README's configuration table lists the same variables.
 */
import { isPublicKey } from '@app/solana';
import { MINTS } from '@app/solana';
import { DurationError, logLifecycleSettings, type LogLifecycleSettings } from './log-lifecycle';

export type LogDriver = 'embedded' | 'kafka';
export type IngestSource = 'sim' | 'file' | 'rpc' | 'geyser';

/** (snapshots, retention, lag bound: see log-lifecycle.ts) */
export interface AppConfig extends LogLifecycleSettings {
  port: number;
  dataDir: string;
  logDriver: LogDriver;
  kafkaBrokers: string[];
  kafkaClientId: string;
  ingestSource: IngestSource;
  simSeed: number;
  simPools: number;
  simTokens: number;
  simSlotMs: number;
  simSwapsPerSlot: number;
  /** stop the simulated market after this many slots (0 = run forever) */
  simMaxSlots: number;
  ingestFile: string | null;
  ingestFilePace: 'full' | 'slot';
  ingestRecordFile: string | null;
  maxHops: number;
  /** mints the price oracle values at 1 USD (PRICE_STABLECOINS; default USDC and USDT) */
  priceStablecoins: string[];
  /** CHAIN_GATEWAY: where blockhashes and simulations come from (sim: the simulated chain; rpc: a Solana RPC node) */
  chainGateway: 'sim' | 'rpc';
  /** RPC_URL: JSON-RPC endpoint (http or https) of the rpc gateway */
  rpcUrl: string | null;
  /** RPC_KEY: sent to the RPC node as `Authorization: Bearer <key>`, or in the URL where it has an empty query parameter */
  rpcKey: string | null;
  /** RPC_URL as a list: the first is primary (rpcUrl), the others fail over */
  rpcUrls: string[];
  /** RPC_WS_URL: PubSub endpoints (empty: derived from each RPC_URL) */
  rpcWsUrls: string[];
  /** RPC_POLL_MS: 0 = accountSubscribe the watched accounts; > 0 = poll them with getMultipleAccounts this often */
  rpcPollMs: number;
  /** INGEST_PROGRAMS: which of the six programs a chain source ingests */
  ingestPrograms: IngestProgram[];
  /** INGEST_MINTS: only pools holding one of these mints (null: all) */
  ingestMints: string[] | null;
  /** INGEST_POOLS: exactly these pool accounts (null: found by program) */
  ingestPools: string[] | null;
  /** GEYSER_URL: Yellowstone gRPC endpoint of INGEST_SOURCE=geyser (http or https) */
  geyserUrl: string | null;
  /** GEYSER_X_TOKEN: sent as the `x-token` metadata */
  geyserXToken: string | null;
  /** GEYSER_COMMITMENT: commitment of the stream's account writes and slots */
  geyserCommitment: 'processed' | 'confirmed' | 'finalized';
  /** GEYSER_PING_MS: keep-alive ping interval of the stream (silent for 3 of them: reconnect) */
  geyserPingMs: number;
  /** MAX_INGEST_LAG_SLOTS: /health answers 503 when the chain is this many slots ahead of what was ingested */
  maxIngestLagSlots: number;
  /** FEE_BPS: aggregator fee in basis points (0 = none, at most 1000) */
  feeBps: number;
  /** FEE_WALLET: wallet receiving the aggregator fee (required when FEE_BPS > 0) */
  feeWallet: string | null;
  /** FEE_ROUTES: which routes pay the fee: all, or multi-hop (2+ hops or split) */
  feeRoutes: 'all' | 'multi-hop';
  /** COMPUTE_UNIT_PRICE: priority fee in micro-lamports per compute unit (0 = no SetComputeUnitPrice) */
  computeUnitPriceMicroLamports: number;
  /** STREAM_MAX_BUFFERED_BYTES: outbound bytes a WebSocket may have queued before it is dropped as a slow reader */
  streamMaxBufferedBytes: number;
  /** LOOKUP_TABLES: address lookup table accounts the ingestor reads from RPC_URL into the log */
  lookupTables: string[];
  /** LOOKUP_TABLES_REFRESH_MS: how often those tables are read again */
  lookupTablesRefreshMs: number;
  /**
   * INTEREST_WORKERS: worker threads sharing the live stream's quote work (0: on the router's main
   * thread); auto (default): 1 on a machine with at least AUTO_WORKER_CPUS cores, else 0
   */
  interestWorkers: number | 'auto';
  /**
   * SEARCH_WORKER: on: the live stream's background route searches run in a worker thread with
   * its own projection, beside the thread that replays the routes (the candidate refreshes stay
   * on that thread); off: in that thread's slices between debounce windows
   */
  searchWorker: 'on' | 'off';
  /**
   * STREAM_REFRESH_MS: how often, at most, each live stream tuple's candidate paths are searched
   * afresh in the router's background and idle time (the paths its checks compare with its route);
   * 0: never, they stay those of its last full search
   */
  streamRefreshMs: number;
  /** operations (HTTP edge, logs, metrics): see opsSettings */
  corsOrigins: '*' | string[];
  httpHeadersTimeoutMs: number;
  httpRequestTimeoutMs: number;
  httpKeepAliveTimeoutMs: number;
  httpMaxConnections: number;
  logFormat: 'json' | 'pretty' | 'auto';
  logLevel: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
  /** METRICS_PORT: the ingestor alone serves /metrics and /health on it (0: not at all) */
  metricsPort: number;
  /** INTERMEDIATE_TOKENS: the liquid tokens a route with restrictIntermediateTokens may pass through */
  intermediateTokens: string[];
  /** READY_MAX_LAG_SLOTS: /ready answers 503 while the projection is more slots than this behind the log */
  readyMaxLagSlots: number;
  /** QUOTES_KEPT: served quotes kept in memory for /swap and /instructions by quoteId (the oldest go first) */
  quotesKept: number;
  /** access: keys, limits, stream caps, the deployment and the sim endpoints (see accessSettings) */
  authMode: 'keys' | 'off';
  /** API_KEY_PREFIX: the fixed prefix of every key (`<prefix>_<64 hex>`) */
  apiKeyPrefix: string;
  /** the rate-limit tiers: `default` (RATE_LIMIT_PER_MINUTE / _PER_SECOND) and those of RATE_LIMIT_TIERS */
  rateLimitTiers: Record<string, { perMinute: number; perSecond: number }>;
  /** REDIS_URL: the Redis the rate limits are counted in, shared by every replica (null: in memory) */
  redisUrl: string | null;
  /** TRUSTED_PROXIES: addresses whose X-Forwarded-For is believed (keys off: the limit is per client address) */
  trustedProxies: string[];
  /** STREAM_MAX_CONNECTIONS / STREAM_MAX_SUBSCRIPTIONS: per key (per address with keys off) */
  streamMaxConnections: number;
  streamMaxSubscriptions: number;
  /** STREAM_PING_MS: ping interval; a connection without a pong, or with output queued, for a whole interval is dropped */
  streamPingMs: number;
  /** DEPLOYMENT: hosted, or self-hosted (needs LICENSE_KEY, LICENSE_PUBLIC_KEY, RPC_URL and RPC_KEY) */
  deployment: 'hosted' | 'self-hosted';
  licenseKey: string | null;
  /** LICENSE_PUBLIC_KEY: the vendor's Ed25519 public key (PEM, or base64 of its SPKI DER) */
  licensePublicKey: string | null;
  /** the sim chain's faucet and send: CHAIN_GATEWAY=sim, and with AUTH_MODE=keys only with SIM_ENDPOINTS=on */
  simEndpoints: boolean;
  /** SIM_FAUCET_MAX: the most one faucet call credits (smallest units) */
  simFaucetMax: bigint;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** an integer env var in [min, max] (`def` when unset or empty); `or`: another accepted word its message names */
function int(env: Env, name: string, def: number, min: number, max: number, or?: string): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const wanted = or === undefined ? 'an integer' : `${or} or an integer between ${min} and ${max}`;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be ${wanted}, got ${JSON.stringify(raw)}`);
  const n = Number(raw.trim());
  if (n < min || n > max) throw new ConfigError(or === undefined ? `${name} must be between ${min} and ${max}, got ${n}` : `${name} must be ${wanted}, got ${n}`);
  return n;
}

function oneOf<T extends string>(env: Env, name: string, def: T, allowed: readonly T[]): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(raw)}`);
  }
  return raw as T;
}

/** STREAM_REFRESH_MS: 0 (never), or 1,000 ms to an hour; 10 s by default */
function streamRefreshMs(env: Env): number {
  const raw = env.STREAM_REFRESH_MS?.trim();
  if (raw === undefined || raw === '') return 10_000;
  const ms = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(ms === 0 || (ms >= 1_000 && ms <= 3_600_000))) {
    throw new ConfigError(`STREAM_REFRESH_MS must be 0 (never) or an integer between 1000 and 3600000, got ${JSON.stringify(env.STREAM_REFRESH_MS)}`);
  }
  return ms;
}

/** INTEREST_WORKERS: auto (unset or empty too), or 0–16 */
function interestWorkers(env: Env): number | 'auto' {
  const raw = env.INTEREST_WORKERS?.trim();
  return raw === undefined || raw === '' || raw === 'auto' ? 'auto' : int(env, 'INTEREST_WORKERS', 0, 0, 16, 'auto');
}

/** PRICE_STABLECOINS: comma-separated base58 mints, at least one, never the wrapped-SOL mint; duplicates count once. */
function stablecoins(env: Env): string[] {
  const raw = env.PRICE_STABLECOINS;
  if (raw === undefined || raw.trim() === '') return [MINTS.USDC, MINTS.USDT];
  const out: string[] = [];
  for (const entry of raw.split(',')) {
    const mint = entry.trim();
    if (!isPublicKey(mint)) throw new ConfigError(`PRICE_STABLECOINS must be comma-separated base58 mints, got ${JSON.stringify(entry)}`);
    if (mint === MINTS.SOL) throw new ConfigError('PRICE_STABLECOINS must not include the wrapped-SOL mint (SOL is priced from its stablecoin pools)');
    if (!out.includes(mint)) out.push(mint);
  }
  return out;
}

export function loadConfig(env: Env = process.env): AppConfig {
  const logDriver = oneOf(env, 'LOG_DRIVER', 'embedded', ['embedded', 'kafka'] as const);
  const kafkaBrokers = (env.KAFKA_BROKERS ?? 'localhost:9092')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (logDriver === 'kafka' && kafkaBrokers.length === 0) throw new ConfigError('KAFKA_BROKERS must list at least one host:port');
  const ingestSource = oneOf(env, 'INGEST_SOURCE', 'sim', ['sim', 'file', 'rpc', 'geyser'] as const);
  const ingestFile = env.INGEST_FILE && env.INGEST_FILE !== '' ? env.INGEST_FILE : null;
  if (ingestSource === 'file' && !ingestFile) throw new ConfigError('INGEST_SOURCE=file needs INGEST_FILE (a JSON-lines recording)');
  return {
    port: int(env, 'PORT', 8080, 0, 65535),
    dataDir: env.DATA_DIR && env.DATA_DIR !== '' ? env.DATA_DIR : './data',
    logDriver,
    kafkaBrokers,
    kafkaClientId: env.KAFKA_CLIENT_ID && env.KAFKA_CLIENT_ID !== '' ? env.KAFKA_CLIENT_ID : 'swap-aggregator',
    ingestSource,
    simSeed: int(env, 'SIM_SEED', 1, 0, 2 ** 31 - 1),
    simPools: int(env, 'SIM_POOLS', 1000, 1, 1_000_000),
    simTokens: int(env, 'SIM_TOKENS', 200, 3, 1_000_000),
    simSlotMs: int(env, 'SIM_SLOT_MS', 400, 1, 60_000),
    simSwapsPerSlot: int(env, 'SIM_SWAPS_PER_SLOT', 8, 0, 100_000),
    simMaxSlots: int(env, 'SIM_MAX_SLOTS', 0, 0, Number.MAX_SAFE_INTEGER),
    ingestFile,
    ingestFilePace: oneOf(env, 'INGEST_FILE_PACE', 'full', ['full', 'slot'] as const),
    ingestRecordFile: env.INGEST_RECORD_FILE && env.INGEST_RECORD_FILE !== '' ? env.INGEST_RECORD_FILE : null,
    maxHops: int(env, 'MAX_HOPS', 5, 1, 5),
    priceStablecoins: stablecoins(env),
    streamMaxBufferedBytes: int(env, 'STREAM_MAX_BUFFERED_BYTES', 1_048_576, 1, 1 << 30),
    interestWorkers: interestWorkers(env),
    searchWorker: oneOf(env, 'SEARCH_WORKER', 'off', ['on', 'off'] as const),
    streamRefreshMs: streamRefreshMs(env),
    ...chainSettings(env),
    ...chainSourceSettings(env, ingestSource),
    ...geyserSettings(env, ingestSource),
    ...lookupTableSettings(env, ingestSource),
    ...opsSettings(env),
    ...swapApiSettings(env),
    ...lifecycle(env),
    ...accessSettings(env),
  };
}

/**
 * CORS_ORIGINS (* or comma-separated origins), HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS,
 * HTTP_KEEP_ALIVE_TIMEOUT_MS, HTTP_MAX_CONNECTIONS, LOG_FORMAT, LOG_LEVEL, METRICS_PORT, READY_MAX_LAG_SLOTS
 */
function opsSettings(env: Env): Pick<AppConfig, 'corsOrigins' | 'httpHeadersTimeoutMs' | 'httpRequestTimeoutMs' | 'httpKeepAliveTimeoutMs' | 'httpMaxConnections' | 'logFormat' | 'logLevel' | 'metricsPort' | 'readyMaxLagSlots'> {
  const rawOrigins = (env.CORS_ORIGINS ?? '').trim();
  let corsOrigins: '*' | string[] = '*';
  if (rawOrigins !== '' && rawOrigins !== '*') {
    corsOrigins = [...new Set(rawOrigins.split(',').map((o) => o.trim()))];
    for (const o of corsOrigins) {
      if (!/^https?:\/\/[^\s/?#]+$/.test(o)) throw new ConfigError(`CORS_ORIGINS must be * or comma-separated origins like https://app.example.com (scheme and host, no path), got ${JSON.stringify(o)}`);
    }
  }
  const httpHeadersTimeoutMs = int(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 1_000, 600_000);
  const httpRequestTimeoutMs = int(env, 'HTTP_REQUEST_TIMEOUT_MS', 30_000, 1_000, 3_600_000);
  if (httpHeadersTimeoutMs > httpRequestTimeoutMs) throw new ConfigError(`HTTP_HEADERS_TIMEOUT_MS (${httpHeadersTimeoutMs}) must not exceed HTTP_REQUEST_TIMEOUT_MS (${httpRequestTimeoutMs})`);
  return {
    corsOrigins,
    httpHeadersTimeoutMs,
    httpRequestTimeoutMs,
    httpKeepAliveTimeoutMs: int(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', 5_000, 1, 600_000),
    httpMaxConnections: int(env, 'HTTP_MAX_CONNECTIONS', 10_000, 0, 1_000_000),
    logFormat: oneOf(env, 'LOG_FORMAT', 'auto', ['json', 'pretty', 'auto'] as const),
    logLevel: oneOf(env, 'LOG_LEVEL', 'info', ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const),
    metricsPort: int(env, 'METRICS_PORT', 0, 0, 65535),
    readyMaxLagSlots: int(env, 'READY_MAX_LAG_SLOTS', 10, 0, 1_000_000),
  };
}

/** SNAPSHOT_*, LOG_RETENTION_*, HEALTH_MAX_LAG_RECORDS (log-lifecycle.ts), their errors as ConfigErrors */
function lifecycle(env: Env): LogLifecycleSettings {
  try {
    return logLifecycleSettings(env);
  } catch (e) {
    if (e instanceof DurationError) throw new ConfigError(e.message);
    throw e;
  }
}

type AccessSettings = Pick<
  AppConfig,
  | 'authMode'
  | 'apiKeyPrefix'
  | 'rateLimitTiers'
  | 'redisUrl'
  | 'trustedProxies'
  | 'streamMaxConnections'
  | 'streamMaxSubscriptions'
  | 'streamPingMs'
  | 'deployment'
  | 'licenseKey'
  | 'licensePublicKey'
  | 'simEndpoints'
  | 'simFaucetMax'
>;

const set = (env: Env, name: string): string | null => (env[name] !== undefined && env[name]!.trim() !== '' ? env[name]!.trim() : null);

/** RATE_LIMIT_TIERS: `name=perMinute/perSecond` entries, comma-separated (0: no such window) */
function rateLimitTiers(env: Env): AppConfig['rateLimitTiers'] {
  const tiers: AppConfig['rateLimitTiers'] = {
    default: { perMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 60, 0, 1_000_000_000), perSecond: int(env, 'RATE_LIMIT_PER_SECOND', 10, 0, 1_000_000_000) },
  };
  for (const entry of (set(env, 'RATE_LIMIT_TIERS') ?? '').split(',').filter((e) => e.trim() !== '')) {
    const m = /^([a-z0-9][a-z0-9_-]{0,31})=(\d{1,10})\/(\d{1,10})$/.exec(entry.trim());
    if (m === null) throw new ConfigError(`RATE_LIMIT_TIERS must be comma-separated name=perMinute/perSecond entries (name: a-z, 0-9, _ or -), got ${JSON.stringify(entry)}`);
    tiers[m[1]] = { perMinute: Number(m[2]), perSecond: Number(m[3]) };
  }
  return tiers;
}

/** AUTH_MODE, API_KEY_PREFIX, RATE_LIMIT_TIERS, REDIS_URL, TRUSTED_PROXIES, STREAM_MAX_*, STREAM_PING_MS, DEPLOYMENT, LICENSE_*, SIM_* */
function accessSettings(env: Env): AccessSettings {
  const authMode = oneOf(env, 'AUTH_MODE', 'off', ['keys', 'off'] as const);
  const apiKeyPrefix = set(env, 'API_KEY_PREFIX') ?? 'swap';
  if (!/^[a-z0-9]{1,16}$/.test(apiKeyPrefix)) throw new ConfigError(`API_KEY_PREFIX must be 1 to 16 characters a-z or 0-9, got ${JSON.stringify(apiKeyPrefix)}`);
  const redisUrl = set(env, 'REDIS_URL');
  if (redisUrl !== null && !/^rediss?:\/\/[^\s]+$/.test(redisUrl)) throw new ConfigError(`REDIS_URL must be a redis:// or rediss:// URL, got ${JSON.stringify(redisUrl)}`);
  const trustedProxies = (set(env, 'TRUSTED_PROXIES') ?? '').split(',').map((a) => a.trim().toLowerCase()).filter((a) => a !== '');
  for (const a of trustedProxies) if (!/^[0-9.]+$|^[0-9a-f:.]+$/.test(a) || !a.match(/[.:]/)) throw new ConfigError(`TRUSTED_PROXIES must be comma-separated IP addresses, got ${JSON.stringify(a)}`);
  const deployment = oneOf(env, 'DEPLOYMENT', 'hosted', ['hosted', 'self-hosted'] as const);
  const licenseKey = set(env, 'LICENSE_KEY');
  const licensePublicKey = set(env, 'LICENSE_PUBLIC_KEY');
  if (deployment === 'self-hosted') {
    const missing = ['LICENSE_KEY', 'LICENSE_PUBLIC_KEY', 'RPC_URL', 'RPC_KEY'].filter((n) => set(env, n) === null);
    if (missing.length > 0) throw new ConfigError(`DEPLOYMENT=self-hosted needs ${missing.join(', ')}`);
  }
  const simEndpointsSetting = oneOf(env, 'SIM_ENDPOINTS', 'off', ['on', 'off'] as const);
  const faucet = set(env, 'SIM_FAUCET_MAX') ?? '1000000000000000';
  if (!/^[1-9][0-9]{0,19}$/.test(faucet) || BigInt(faucet) > (1n << 64n) - 1n) throw new ConfigError(`SIM_FAUCET_MAX must be a positive integer of at most 2^64-1, got ${JSON.stringify(faucet)}`);
  return {
    authMode,
    apiKeyPrefix,
    rateLimitTiers: rateLimitTiers(env),
    redisUrl,
    trustedProxies: trustedProxies.map((a) => (a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a)),
    streamMaxConnections: int(env, 'STREAM_MAX_CONNECTIONS', 16, 1, 100_000),
    streamMaxSubscriptions: int(env, 'STREAM_MAX_SUBSCRIPTIONS', 1024, 1, 10_000_000),
    streamPingMs: int(env, 'STREAM_PING_MS', 15_000, 100, 3_600_000),
    deployment,
    licenseKey,
    licensePublicKey,
    simEndpoints: (env.CHAIN_GATEWAY ?? 'sim') === 'sim' && (authMode === 'off' || simEndpointsSetting === 'on'),
    simFaucetMax: BigInt(faucet),
  };
}

/** LOOKUP_TABLES (comma-separated addresses; they need RPC_URL), LOOKUP_TABLES_REFRESH_MS */
function lookupTableSettings(env: Env, ingestSource: AppConfig['ingestSource']): Pick<AppConfig, 'lookupTables' | 'lookupTablesRefreshMs'> {
  const raw = env.LOOKUP_TABLES ?? '';
  const lookupTables = raw.trim() === '' ? [] : [...new Set(raw.split(',').map((x) => x.trim()))];
  for (const a of lookupTables) if (!isPublicKey(a)) throw new ConfigError(`LOOKUP_TABLES: ${JSON.stringify(a)} is not a base58 public key`);
  const rpcUrl = env.RPC_URL && env.RPC_URL.trim() !== '' ? env.RPC_URL.trim() : null;
  if (lookupTables.length > 0 && rpcUrl === null) throw new ConfigError('LOOKUP_TABLES needs RPC_URL (the tables are read from that node)');
  // the simulated market writes its own tables, and its log must hold its records only (resume checks them)
  if (lookupTables.length > 0 && ingestSource === 'sim') throw new ConfigError('LOOKUP_TABLES goes with a chain-fed log (INGEST_SOURCE=file or rpc); the simulated market creates its own lookup tables');
  return { lookupTables, lookupTablesRefreshMs: int(env, 'LOOKUP_TABLES_REFRESH_MS', 60_000, 1_000, 86_400_000) };
}

/** CHAIN_GATEWAY, RPC_URL, RPC_KEY, FEE_BPS, FEE_WALLET, FEE_ROUTES, COMPUTE_UNIT_PRICE */
function chainSettings(env: Env): Pick<AppConfig, 'chainGateway' | 'rpcUrl' | 'rpcKey' | 'feeBps' | 'feeWallet' | 'feeRoutes' | 'computeUnitPriceMicroLamports'> {
  const chainGateway = oneOf(env, 'CHAIN_GATEWAY', 'sim', ['sim', 'rpc'] as const);
  const rpcUrl = rpcUrlList(env)[0] ?? null;
  if (chainGateway === 'rpc' && rpcUrl === null) throw new ConfigError('CHAIN_GATEWAY=rpc needs RPC_URL');
  const feeBps = int(env, 'FEE_BPS', 0, 0, 1000);
  const feeWallet = env.FEE_WALLET && env.FEE_WALLET.trim() !== '' ? env.FEE_WALLET.trim() : null;
  if (feeWallet !== null && !isPublicKey(feeWallet)) throw new ConfigError(`FEE_WALLET must be a base58 public key, got ${JSON.stringify(feeWallet)}`);
  if (feeBps > 0 && feeWallet === null) throw new ConfigError('FEE_BPS > 0 needs FEE_WALLET');
  return {
    chainGateway,
    rpcUrl,
    rpcKey: env.RPC_KEY && env.RPC_KEY !== '' ? env.RPC_KEY : null,
    feeBps,
    feeWallet,
    feeRoutes: oneOf(env, 'FEE_ROUTES', 'all', ['all', 'multi-hop'] as const),
    computeUnitPriceMicroLamports: int(env, 'COMPUTE_UNIT_PRICE', 0, 0, 1_000_000_000),
  };
}

/** INTERMEDIATE_TOKENS (comma-separated mints; default SOL, USDC, USDT), QUOTES_KEPT */
function swapApiSettings(env: Env): Pick<AppConfig, 'intermediateTokens' | 'quotesKept'> {
  const raw = env.INTERMEDIATE_TOKENS;
  const intermediateTokens = raw === undefined || raw.trim() === '' ? [MINTS.SOL, MINTS.USDC, MINTS.USDT] : [...new Set(raw.split(',').map((x) => x.trim()))];
  for (const m of intermediateTokens) if (!isPublicKey(m)) throw new ConfigError(`INTERMEDIATE_TOKENS must be comma-separated base58 mints, got ${JSON.stringify(m)}`);
  return { intermediateTokens, quotesKept: int(env, 'QUOTES_KEPT', 10_000, 0, 10_000_000) };
}

// ---- chain sources (INGEST_SOURCE=rpc) ----

export const INGEST_PROGRAMS = ['raydium-cpmm', 'orca-whirlpool', 'raydium-clmm', 'raydium-amm-v4', 'pump-amm', 'pump-fun'] as const;
export type IngestProgram = (typeof INGEST_PROGRAMS)[number];

function list(env: Env, name: string): string[] {
  const raw = env[name] ?? '';
  return raw.trim() === '' ? [] : [...new Set(raw.split(',').map((x) => x.trim()).filter((x) => x !== ''))];
}

/** RPC_URL: one or more comma-separated http(s) URLs */
function rpcUrlList(env: Env): string[] {
  const urls = list(env, 'RPC_URL');
  for (const u of urls) if (!/^https?:\/\/[^\s/,]+/.test(u)) throw new ConfigError(`RPC_URL must be an http(s) URL or a comma-separated list of them, got ${JSON.stringify(u)}`);
  return urls;
}

function keyList(env: Env, name: string): string[] | null {
  const keys = list(env, name);
  for (const k of keys) if (!isPublicKey(k)) throw new ConfigError(`${name}: ${JSON.stringify(k)} is not a base58 public key`);
  return keys.length === 0 ? null : keys;
}

/** GEYSER_URL (required with INGEST_SOURCE=geyser), GEYSER_X_TOKEN, GEYSER_COMMITMENT, GEYSER_PING_MS */
function geyserSettings(env: Env, ingestSource: IngestSource): Pick<AppConfig, 'geyserUrl' | 'geyserXToken' | 'geyserCommitment' | 'geyserPingMs'> {
  const url = env.GEYSER_URL?.trim() ? env.GEYSER_URL.trim() : null;
  if (url !== null && !/^https?:\/\/[^\s/]+/.test(url)) throw new ConfigError(`GEYSER_URL must be an http(s) URL, got ${JSON.stringify(url)}`);
  if (ingestSource === 'geyser' && url === null) throw new ConfigError('INGEST_SOURCE=geyser needs GEYSER_URL (a Yellowstone gRPC endpoint)');
  return {
    geyserUrl: url,
    geyserXToken: env.GEYSER_X_TOKEN?.trim() ? env.GEYSER_X_TOKEN.trim() : null,
    geyserCommitment: oneOf(env, 'GEYSER_COMMITMENT', 'confirmed', ['processed', 'confirmed', 'finalized'] as const),
    geyserPingMs: int(env, 'GEYSER_PING_MS', 10_000, 1_000, 300_000),
  };
}

/** RPC_URL (list), RPC_WS_URL, RPC_POLL_MS, INGEST_PROGRAMS, INGEST_MINTS, INGEST_POOLS, MAX_INGEST_LAG_SLOTS */
function chainSourceSettings(
  env: Env,
  ingestSource: IngestSource,
): Pick<AppConfig, 'rpcUrls' | 'rpcWsUrls' | 'rpcPollMs' | 'ingestPrograms' | 'ingestMints' | 'ingestPools' | 'maxIngestLagSlots'> {
  const rpcUrls = rpcUrlList(env);
  if ((ingestSource === 'rpc' || ingestSource === 'geyser') && rpcUrls.length === 0) throw new ConfigError(`INGEST_SOURCE=${ingestSource} needs RPC_URL${ingestSource === 'geyser' ? ' (the bootstrap snapshot is read over RPC)' : ''}`);
  const rpcWsUrls = list(env, 'RPC_WS_URL');
  for (const u of rpcWsUrls) if (!/^wss?:\/\/[^\s/,]+/.test(u)) throw new ConfigError(`RPC_WS_URL must be ws(s) URLs, comma-separated, got ${JSON.stringify(u)}`);
  const programs = list(env, 'INGEST_PROGRAMS');
  for (const p of programs) {
    if (!(INGEST_PROGRAMS as readonly string[]).includes(p)) throw new ConfigError(`INGEST_PROGRAMS: unknown program ${JSON.stringify(p)}; expected some of ${INGEST_PROGRAMS.join(', ')}`);
  }
  const ingestMints = keyList(env, 'INGEST_MINTS');
  const ingestPools = keyList(env, 'INGEST_POOLS');
  if (ingestMints !== null && ingestPools !== null) throw new ConfigError('INGEST_MINTS and INGEST_POOLS exclude each other: set one');
  return {
    rpcUrls,
    rpcWsUrls,
    rpcPollMs: int(env, 'RPC_POLL_MS', 0, 0, 3_600_000),
    ingestPrograms: programs.length === 0 ? [...INGEST_PROGRAMS] : (programs as IngestProgram[]),
    ingestMints,
    ingestPools,
    maxIngestLagSlots: int(env, 'MAX_INGEST_LAG_SLOTS', 150, 1, 1_000_000),
  };
}
