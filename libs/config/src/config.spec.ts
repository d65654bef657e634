import { ConfigError, loadConfig } from './config';

describe('loadConfig', () => {
  it('defaults to the embedded log, the sim source and port 8080', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 8080, dataDir: './data', logDriver: 'embedded', ingestSource: 'sim', maxHops: 5 });
    expect(c.simPools).toBeGreaterThanOrEqual(200);
    expect(c.simTokens).toBeGreaterThanOrEqual(60);
  });

  it.each([
    [{ PORT: 'abc' }, /PORT must be an integer/],
    [{ PORT: '70000' }, /PORT must be between/],
    [{ LOG_DRIVER: 'redis' }, /LOG_DRIVER must be one of/],
    [{ INGEST_SOURCE: 'file' }, /INGEST_FILE/],
    [{ MAX_HOPS: '6' }, /MAX_HOPS/],
    [{ LOG_DRIVER: 'kafka', KAFKA_BROKERS: ' , ' }, /KAFKA_BROKERS/],
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

  it('reads the kafka brokers list', () => {
    expect(loadConfig({ LOG_DRIVER: 'kafka', KAFKA_BROKERS: 'a:9092, b:9092' }).kafkaBrokers).toEqual(['a:9092', 'b:9092']);
  });
});
