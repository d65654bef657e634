import { MINTS } from '../../../../libs/solana/src/programs';
import { tupleKey, type QuoteTuple } from '../../../../libs/contracts/src/stream';
import { InterestRegistry, MAX_INTEREST_TTL_MS } from './interest-registry';

const t = (amount: string): QuoteTuple => ({ in: MINTS.SOL, out: MINTS.USDC, amount, exactIn: true });

describe('InterestRegistry', () => {
  it('a tuple is added once, joined by other instances, removed with its last holder', () => {
    const r = new InterestRegistry(15_000);
    expect(r.apply({ op: 'add', instance: 'a', tuple: t('1') }, 1000)).toEqual({ added: [t('1')], removed: [], joined: [] });
    expect(r.apply({ op: 'add', instance: 'b', tuple: t('1') }, 1001)).toEqual({ added: [], removed: [], joined: [t('1')] });
    expect(r.apply({ op: 'add', instance: 'a', tuple: t('1') }, 1002)).toEqual({ added: [], removed: [], joined: [] });
    expect(r.apply({ op: 'remove', instance: 'a', tuple: t('1') }, 1003).removed).toEqual([]);
    expect(r.apply({ op: 'remove', instance: 'b', tuple: t('1') }, 1004).removed).toEqual([t('1')]);
    expect(r.size).toBe(0);
  });

  it('holdings expire unless leased; leases add up over several records and never remove', () => {
    const r = new InterestRegistry(15_000);
    r.apply({ op: 'add', instance: 'a', tuple: t('1') }, 0);
    r.apply({ op: 'add', instance: 'a', tuple: t('2') }, 0);
    // a lease split in two records, the first one older (read out of order)
    r.apply({ op: 'lease', instance: 'a', keys: [tupleKey(t('2'))], ttlMs: 15_000 }, 10_000);
    r.apply({ op: 'lease', instance: 'a', keys: [tupleKey(t('3'))], ttlMs: 15_000 }, 5_000);
    expect(r.has(tupleKey(t('1')))).toBe(true); // a lease that does not list it does not remove it
    expect(r.expire(16_000)).toEqual([t('1')]);
    expect(r.expire(20_001)).toEqual([t('3')]);
    expect(r.tuples()).toEqual([t('2')]);
    expect(r.expire(25_001)).toEqual([t('2')]);
  });

  it('a dead instance does not keep a tuple another instance still leases', () => {
    const r = new InterestRegistry(15_000);
    r.apply({ op: 'lease', instance: 'dead', keys: [tupleKey(t('1'))], ttlMs: 15_000 }, 0);
    r.apply({ op: 'lease', instance: 'live', keys: [tupleKey(t('1'))], ttlMs: 15_000 }, 10_000);
    expect(r.expire(20_000)).toEqual([]);
    expect(r.has(tupleKey(t('1')))).toBe(true);
    expect(r.expire(25_001)).toEqual([t('1')]);
  });

  it('a lease of keys not held yet adds their tuples (a router that starts after the add), once', () => {
    const r = new InterestRegistry(15_000);
    const other = { ...t('7'), exactIn: false };
    expect(r.apply({ op: 'lease', instance: 'a', keys: [tupleKey(t('5')), tupleKey(other)], ttlMs: 15_000 }, 0)).toEqual({ added: [t('5'), other], removed: [], joined: [] });
    expect(r.apply({ op: 'lease', instance: 'a', keys: [tupleKey(t('5'))], ttlMs: 15_000 }, 5_000)).toEqual({ added: [], removed: [], joined: [] });
    expect(r.apply({ op: 'lease', instance: 'b', keys: [tupleKey(t('5'))], ttlMs: 15_000 }, 5_000)).toEqual({ added: [], removed: [], joined: [t('5')] });
    expect(r.expire(15_001)).toEqual([other]);
    expect(r.tuples()).toEqual([t('5')]);
  });

  it('a lease key that names no tuple is refused, not guessed', () => {
    const r = new InterestRegistry(15_000);
    expect(() => r.apply({ op: 'lease', instance: 'a', keys: ['not:a:tuple'], ttlMs: 15_000 }, 0)).toThrow(/names no tuple/);
  });

  it('a lease never holds longer than MAX_INTEREST_TTL_MS (what a restarting router reads back)', () => {
    const r = new InterestRegistry(15_000);
    r.apply({ op: 'lease', instance: 'a', keys: [tupleKey(t('1'))], ttlMs: 3_600_000 }, 0);
    expect(r.expire(MAX_INTEREST_TTL_MS)).toEqual([]);
    expect(r.expire(MAX_INTEREST_TTL_MS + 1)).toEqual([t('1')]);
  });
});
