import { ApiKeyRegistry, generateApiKey, hashApiKey, isKeyShaped } from './api-key';
import { decodeApiKeyRecord, encodeApiKeyRecord, type ApiKeyRecord } from '@app/contracts';

const record = (key: string, over: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({ id: 'key-1', hash: hashApiKey(key), name: 'alice', tier: 'default', state: 'active', at: 1, ...over });

describe('API keys', () => {
  it('a key is the prefix, an underscore and 64 hex characters, new every time', () => {
    const a = generateApiKey('swap');
    const b = generateApiKey('swap');
    expect(a.key).toMatch(/^swap_[0-9a-f]{64}$/);
    expect(isKeyShaped(a.key, 'swap')).toBe(true);
    expect(isKeyShaped(a.key, 'other')).toBe(false);
    expect(a.key).not.toBe(b.key);
    expect(a.id).not.toBe(b.id);
    expect(hashApiKey(a.key)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('the registry finds an active key by its hash, and refuses a disabled, revoked or unknown one', () => {
    const { key } = generateApiKey('swap');
    const reg = new ApiKeyRegistry();
    expect(reg.lookup(key)).toEqual({ ok: false });
    reg.apply(record(key, { tier: 'pro' }));
    expect(reg.lookup(key)).toEqual({ ok: true, id: 'key-1', tier: 'pro' });
    expect(reg.lookup(key.slice(0, -1) + (key.endsWith('0') ? '1' : '0'))).toEqual({ ok: false });
    reg.apply(record(key, { state: 'disabled' }));
    expect(reg.lookup(key).ok).toBe(false);
    reg.apply(record(key, { state: 'active' }));
    expect(reg.lookup(key).ok).toBe(true);
    reg.apply(record(key, { state: 'revoked' }));
    expect(reg.lookup(key).ok).toBe(false);
    // revoked is final, even if a later record says otherwise
    reg.apply(record(key, { state: 'active' }));
    expect(reg.lookup(key).ok).toBe(false);
    expect(reg.list()).toEqual([record(key, { state: 'revoked', tier: 'default' })]);
  });

  it('the api-keys record round-trips and holds no key; a bad record is refused loudly', () => {
    const { key } = generateApiKey('swap');
    const r = record(key);
    const wire = encodeApiKeyRecord(r);
    expect(decodeApiKeyRecord(wire)).toEqual(r);
    expect(wire.toString()).not.toContain(key.slice(5));
    expect(() => decodeApiKeyRecord(Buffer.from(JSON.stringify({ ...JSON.parse(wire.toString()), v: 2 })))).toThrow(/unknown schema version/);
    expect(() => decodeApiKeyRecord(Buffer.from(JSON.stringify({ ...JSON.parse(wire.toString()), state: 'gone' })))).toThrow(/invalid state/);
    expect(() => decodeApiKeyRecord(Buffer.from('nope'))).toThrow(/not JSON/);
  });
});
