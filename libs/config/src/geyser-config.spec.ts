import { ConfigError, loadConfig } from './config';

const base = { INGEST_SOURCE: 'geyser', RPC_URL: 'http://127.0.0.1:8899', GEYSER_URL: 'http://127.0.0.1:10000' };

describe('INGEST_SOURCE=geyser settings', () => {
  it('reads GEYSER_URL, GEYSER_X_TOKEN, GEYSER_COMMITMENT and GEYSER_PING_MS, with their defaults', () => {
    const c = loadConfig(base);
    expect([c.ingestSource, c.geyserUrl, c.geyserXToken, c.geyserCommitment, c.geyserPingMs]).toEqual(['geyser', base.GEYSER_URL, null, 'confirmed', 10_000]);
    const d = loadConfig({ ...base, GEYSER_X_TOKEN: 'tok', GEYSER_COMMITMENT: 'processed', GEYSER_PING_MS: '5000' });
    expect([d.geyserXToken, d.geyserCommitment, d.geyserPingMs]).toEqual(['tok', 'processed', 5000]);
  });

  it('stops the start naming the variable', () => {
    expect(() => loadConfig({ ...base, GEYSER_URL: '' })).toThrow(/GEYSER_URL/);
    expect(() => loadConfig({ ...base, GEYSER_URL: 'grpc.example.com:443' })).toThrow(/GEYSER_URL must be an http\(s\) URL/);
    expect(() => loadConfig({ ...base, RPC_URL: '' })).toThrow(/INGEST_SOURCE=geyser needs RPC_URL/);
    expect(() => loadConfig({ ...base, GEYSER_COMMITMENT: 'final' })).toThrow(/GEYSER_COMMITMENT must be one of/);
    expect(() => loadConfig({ ...base, GEYSER_PING_MS: '10' })).toThrow(ConfigError);
  });
});
