import { ConfigError, loadConfig } from './config';

describe('loadConfig', () => {
  it('defaults to the embedded log, the sim source and port 8080', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 8080, dataDir: './data', logDriver: 'embedded', ingestSource: 'sim', maxHops: 5 });
    // the simulated market: at least 1,000 pools over the six programs
    expect(c.simPools).toBe(1000);
    expect(c.simTokens).toBe(200);
  });

  it.each([
    [{ PORT: 'abc' }, /PORT must be an integer/],
    [{ PORT: '70000' }, /PORT must be between/],
    [{ LOG_DRIVER: 'redis' }, /LOG_DRIVER must be one of/],
    [{ INGEST_SOURCE: 'file' }, /INGEST_FILE/],
    [{ MAX_HOPS: '6' }, /MAX_HOPS/],
    [{ STREAM_MAX_BUFFERED_BYTES: '0' }, /STREAM_MAX_BUFFERED_BYTES/],
    [{ STREAM_MAX_BUFFERED_BYTES: '1mb' }, /STREAM_MAX_BUFFERED_BYTES/],
    [{ RATE_LIMIT_PER_MINUTE: '-1' }, /RATE_LIMIT_PER_MINUTE must be between 0/],
    [{ RATE_LIMIT_PER_SECOND: '10/s' }, /RATE_LIMIT_PER_SECOND must be an integer/],
    [{ LOG_DRIVER: 'kafka', KAFKA_BROKERS: ' , ' }, /KAFKA_BROKERS/],
    [{ INTEREST_WORKERS: 'two' }, /INTEREST_WORKERS must be auto or an integer between 0 and 16, got "two"/],
    [{ INTEREST_WORKERS: '17' }, /INTEREST_WORKERS must be auto or an integer between 0 and 16/],
    [{ INTEREST_WORKERS: '-1' }, /INTEREST_WORKERS must be auto or an integer/],
    [{ SEARCH_WORKER: 'yes' }, /SEARCH_WORKER must be one of on, off, got "yes"/],
    [{ STREAM_REFRESH_MS: '500' }, /STREAM_REFRESH_MS must be 0 \(never\) or an integer between 1000 and 3600000, got "500"/],
    [{ STREAM_REFRESH_MS: '3600001' }, /STREAM_REFRESH_MS must be 0 \(never\) or an integer between 1000 and 3600000/],
    [{ STREAM_REFRESH_MS: '-1' }, /STREAM_REFRESH_MS must be 0/],
    [{ STREAM_REFRESH_MS: '10s' }, /STREAM_REFRESH_MS must be 0 \(never\) or an integer between 1000 and 3600000, got "10s"/],
  ])('rejects %j clearly', (env, msg) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(msg);
  });

  it('reads PRICE_STABLECOINS: USDC and USDT by default, a comma-separated list of mints otherwise', () => {
    const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
    const USDT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
    const PYUSD = '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo';
    expect(loadConfig({}).priceStablecoins).toEqual([USDC, USDT]);
    expect(loadConfig({ PRICE_STABLECOINS: '' }).priceStablecoins).toEqual([USDC, USDT]);
    expect(loadConfig({ PRICE_STABLECOINS: ` ${PYUSD} ,${USDC},${PYUSD}` }).priceStablecoins).toEqual([PYUSD, USDC]);
  });

  it.each([
    [{ PRICE_STABLECOINS: 'not-a-mint' }, /PRICE_STABLECOINS must be comma-separated base58 mints, got "not-a-mint"/],
    [{ PRICE_STABLECOINS: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v,,' }, /PRICE_STABLECOINS must be comma-separated base58 mints, got ""/],
    [{ PRICE_STABLECOINS: 'So11111111111111111111111111111111111111112' }, /must not include the wrapped-SOL mint/],
  ])('rejects PRICE_STABLECOINS %j clearly', (env, msg) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(msg);
  });

  it('reads INTEREST_WORKERS: auto by default (unset, empty or "auto"), else a count', () => {
    expect(loadConfig({}).interestWorkers).toBe('auto');
    expect(loadConfig({ INTEREST_WORKERS: '' }).interestWorkers).toBe('auto');
    expect(loadConfig({ INTEREST_WORKERS: 'auto' }).interestWorkers).toBe('auto');
    expect(loadConfig({ INTEREST_WORKERS: '0' }).interestWorkers).toBe(0);
    expect(loadConfig({ INTEREST_WORKERS: ' 3 ' }).interestWorkers).toBe(3);
  });

  it('reads SEARCH_WORKER: off by default (unset or empty), on or off', () => {
    expect(loadConfig({}).searchWorker).toBe('off');
    expect(loadConfig({ SEARCH_WORKER: '' }).searchWorker).toBe('off');
    expect(loadConfig({ SEARCH_WORKER: 'on' }).searchWorker).toBe('on');
    expect(loadConfig({ SEARCH_WORKER: 'off' }).searchWorker).toBe('off');
  });

  it('reads STREAM_REFRESH_MS: 10 s by default (unset or empty), 0 for never, 1 s to an hour', () => {
    expect(loadConfig({}).streamRefreshMs).toBe(10_000);
    expect(loadConfig({ STREAM_REFRESH_MS: '' }).streamRefreshMs).toBe(10_000);
    expect(loadConfig({ STREAM_REFRESH_MS: '0' }).streamRefreshMs).toBe(0);
    expect(loadConfig({ STREAM_REFRESH_MS: '1000' }).streamRefreshMs).toBe(1_000);
    expect(loadConfig({ STREAM_REFRESH_MS: ' 30000 ' }).streamRefreshMs).toBe(30_000);
    expect(loadConfig({ STREAM_REFRESH_MS: '3600000' }).streamRefreshMs).toBe(3_600_000);
  });

  it('reads STREAM_MAX_BUFFERED_BYTES (default 1 MiB)', () => {
    expect(loadConfig({}).streamMaxBufferedBytes).toBe(1_048_576);
    expect(loadConfig({ STREAM_MAX_BUFFERED_BYTES: '4096' }).streamMaxBufferedBytes).toBe(4096);
    // API.md §8: 60 requests per minute, burst 10 per second; 0 lifts a limit
    expect(loadConfig({}).rateLimitTiers).toEqual({ default: { perMinute: 60, perSecond: 10 } });
    expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_SECOND: '25' }).rateLimitTiers.default).toEqual({ perMinute: 0, perSecond: 25 });
  });

  it('reads the access settings: keys, tiers, Redis, proxies, stream caps, the deployment, the sim endpoints', () => {
    expect(loadConfig({})).toMatchObject({ authMode: 'off', apiKeyPrefix: 'swap', redisUrl: null, trustedProxies: [], streamMaxConnections: 16, streamMaxSubscriptions: 1024, deployment: 'hosted', simEndpoints: true });
    expect(loadConfig({ RATE_LIMIT_TIERS: 'pro=600/50, free=30/5' }).rateLimitTiers).toEqual({ default: { perMinute: 60, perSecond: 10 }, pro: { perMinute: 600, perSecond: 50 }, free: { perMinute: 30, perSecond: 5 } });
    expect(loadConfig({ TRUSTED_PROXIES: '10.0.0.1, ::ffff:10.0.0.2' }).trustedProxies).toEqual(['10.0.0.1', '10.0.0.2']);
    // the sim endpoints: only on the sim chain, and with keys only when asked for
    expect(loadConfig({ AUTH_MODE: 'keys' }).simEndpoints).toBe(false);
    expect(loadConfig({ AUTH_MODE: 'keys', SIM_ENDPOINTS: 'on' }).simEndpoints).toBe(true);
    expect(loadConfig({ CHAIN_GATEWAY: 'rpc', RPC_URL: 'http://127.0.0.1:1', SIM_ENDPOINTS: 'on' }).simEndpoints).toBe(false);
    for (const [env, msg] of [
      [{ AUTH_MODE: 'on' }, /AUTH_MODE/],
      [{ API_KEY_PREFIX: 'Bad_' }, /API_KEY_PREFIX/],
      [{ RATE_LIMIT_TIERS: 'pro=600' }, /RATE_LIMIT_TIERS/],
      [{ REDIS_URL: 'localhost:6379' }, /REDIS_URL/],
      [{ TRUSTED_PROXIES: 'proxy.local' }, /TRUSTED_PROXIES/],
      [{ STREAM_MAX_CONNECTIONS: '0' }, /STREAM_MAX_CONNECTIONS/],
      [{ SIM_FAUCET_MAX: '18446744073709551616' }, /SIM_FAUCET_MAX/],
      [{ DEPLOYMENT: 'self-hosted', RPC_URL: 'http://127.0.0.1:1' }, /DEPLOYMENT=self-hosted needs LICENSE_KEY, LICENSE_PUBLIC_KEY, RPC_KEY/],
    ] as const) {
      expect(() => loadConfig(env)).toThrow(msg);
    }
  });

  it('reads the kafka brokers list', () => {
    expect(loadConfig({ LOG_DRIVER: 'kafka', KAFKA_BROKERS: 'a:9092, b:9092' }).kafkaBrokers).toEqual(['a:9092', 'b:9092']);
  });
  it('reads the chain gateway, fee and compute-price settings (defaults: sim, no fee, no priority price)', () => {
    const d = loadConfig({});
    expect([d.chainGateway, d.rpcUrl, d.rpcKey, d.feeBps, d.feeWallet, d.feeRoutes, d.computeUnitPriceMicroLamports]).toEqual(['sim', null, null, 0, null, 'all', 0]);
    const wallet = 'r21Gamwd9DtyjHeGywsneoQYR39C1VDwrw7tWxHAwh6';
    const c = loadConfig({ CHAIN_GATEWAY: 'rpc', RPC_URL: 'https://rpc.example:8899/x', RPC_KEY: 'k', FEE_BPS: '25', FEE_WALLET: wallet, FEE_ROUTES: 'multi-hop', COMPUTE_UNIT_PRICE: '1000' });
    expect([c.chainGateway, c.rpcUrl, c.rpcKey, c.feeBps, c.feeWallet, c.feeRoutes, c.computeUnitPriceMicroLamports]).toEqual(['rpc', 'https://rpc.example:8899/x', 'k', 25, wallet, 'multi-hop', 1000]);
  });

  it.each([
    [{ CHAIN_GATEWAY: 'rpc' }, /CHAIN_GATEWAY=rpc needs RPC_URL/],
    [{ CHAIN_GATEWAY: 'devnet' }, /CHAIN_GATEWAY must be one of sim, rpc/],
    [{ RPC_URL: 'ftp://x' }, /RPC_URL must be an http\(s\) URL/],
    [{ FEE_BPS: '25' }, /FEE_BPS > 0 needs FEE_WALLET/],
    [{ FEE_BPS: '1001', FEE_WALLET: 'r21Gamwd9DtyjHeGywsneoQYR39C1VDwrw7tWxHAwh6' }, /FEE_BPS must be between 0 and 1000/],
    [{ FEE_WALLET: 'nope' }, /FEE_WALLET must be a base58 public key/],
    [{ FEE_ROUTES: 'some' }, /FEE_ROUTES must be one of all, multi-hop/],
    [{ COMPUTE_UNIT_PRICE: '-1' }, /COMPUTE_UNIT_PRICE/],
  ])('rejects chain / fee setting %j clearly', (env, msg) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(msg);
  });

  it('reads the chain source settings (INGEST_SOURCE=rpc): endpoint lists, polling, scope, lag', () => {
    const d = loadConfig({});
    expect([d.rpcUrls, d.rpcWsUrls, d.rpcPollMs, d.ingestPrograms.length, d.ingestMints, d.ingestPools, d.maxIngestLagSlots]).toEqual([[], [], 0, 6, null, null, 150]);
    const usdc = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
    const c = loadConfig({ INGEST_SOURCE: 'rpc', RPC_URL: 'https://a.example/?api-key=, http://b.example:8899', RPC_WS_URL: 'wss://a.example/', RPC_POLL_MS: '500', INGEST_PROGRAMS: 'pump-fun,raydium-cpmm', INGEST_MINTS: usdc, MAX_INGEST_LAG_SLOTS: '20' });
    expect([c.rpcUrl, c.rpcUrls, c.rpcWsUrls, c.rpcPollMs, c.ingestPrograms, c.ingestMints, c.maxIngestLagSlots]).toEqual([
      'https://a.example/?api-key=', ['https://a.example/?api-key=', 'http://b.example:8899'], ['wss://a.example/'], 500, ['pump-fun', 'raydium-cpmm'], [usdc], 20,
    ]);
  });

  it.each([
    [{ INGEST_SOURCE: 'rpc' }, /INGEST_SOURCE=rpc needs RPC_URL/],
    [{ RPC_URL: 'http://a.example,ftp://b' }, /RPC_URL must be an http\(s\) URL/],
    [{ RPC_WS_URL: 'http://a.example' }, /RPC_WS_URL must be ws\(s\) URLs/],
    [{ RPC_POLL_MS: '-5' }, /RPC_POLL_MS/],
    [{ INGEST_PROGRAMS: 'raydium-cpmm,meteora' }, /INGEST_PROGRAMS: unknown program "meteora"/],
    [{ INGEST_MINTS: 'nope' }, /INGEST_MINTS: "nope" is not a base58 public key/],
    [{ INGEST_POOLS: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', INGEST_MINTS: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' }, /INGEST_MINTS and INGEST_POOLS exclude each other/],
    [{ MAX_INGEST_LAG_SLOTS: '0' }, /MAX_INGEST_LAG_SLOTS must be between 1/],
  ])('rejects chain source setting %j clearly', (env, msg) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(msg);
  });

  it('reads the operations settings: CORS, HTTP timeouts and connection cap, log format and level, metrics port', () => {
    const d = loadConfig({});
    expect([d.corsOrigins, d.httpHeadersTimeoutMs, d.httpRequestTimeoutMs, d.httpKeepAliveTimeoutMs, d.httpMaxConnections, d.logFormat, d.logLevel, d.metricsPort]).toEqual(['*', 10_000, 30_000, 5_000, 10_000, 'auto', 'info', 0]);
    const c = loadConfig({ CORS_ORIGINS: 'https://a.example, http://localhost:3000', HTTP_HEADERS_TIMEOUT_MS: '2000', HTTP_REQUEST_TIMEOUT_MS: '2000', HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000', HTTP_MAX_CONNECTIONS: '0', LOG_FORMAT: 'pretty', LOG_LEVEL: 'debug', METRICS_PORT: '9464' });
    expect([c.corsOrigins, c.httpHeadersTimeoutMs, c.httpRequestTimeoutMs, c.httpKeepAliveTimeoutMs, c.httpMaxConnections, c.logFormat, c.logLevel, c.metricsPort]).toEqual([['https://a.example', 'http://localhost:3000'], 2000, 2000, 65000, 0, 'pretty', 'debug', 9464]);
  });

  it.each([
    [{ CORS_ORIGINS: 'https://a.example/path' }, /CORS_ORIGINS must be \* or comma-separated origins/],
    [{ CORS_ORIGINS: 'a.example' }, /CORS_ORIGINS/],
    [{ HTTP_HEADERS_TIMEOUT_MS: '40000' }, /HTTP_HEADERS_TIMEOUT_MS \(40000\) must not exceed HTTP_REQUEST_TIMEOUT_MS/],
    [{ HTTP_REQUEST_TIMEOUT_MS: '10' }, /HTTP_REQUEST_TIMEOUT_MS must be between/],
    [{ HTTP_MAX_CONNECTIONS: 'many' }, /HTTP_MAX_CONNECTIONS must be an integer/],
    [{ LOG_FORMAT: 'xml' }, /LOG_FORMAT must be one of json, pretty, auto/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
    [{ METRICS_PORT: '70000' }, /METRICS_PORT must be between 0 and 65535/],
  ])('rejects operations setting %j clearly', (env, msg) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(msg);
  });
});
