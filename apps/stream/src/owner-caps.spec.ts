import { OwnerCaps } from './owner-caps';

describe('OwnerCaps', () => {
  it('counts connections per owner and refuses one over the cap', () => {
    const caps = new OwnerCaps({ maxConnections: 2, maxSubscriptions: 10 });
    expect(caps.open('key:a')).toBe(true);
    expect(caps.open('key:a')).toBe(true);
    expect(caps.open('key:a')).toBe(false);
    expect(caps.open('key:b')).toBe(true);
    caps.close('key:a', 0);
    expect(caps.open('key:a')).toBe(true);
  });

  it('live pairs in all of an owner’s connections, and new pairs a minute, are capped', () => {
    let t = 0;
    const caps = new OwnerCaps({ maxConnections: 5, maxSubscriptions: 4 }, () => t);
    caps.open('o');
    caps.open('o');
    expect(caps.room('o')).toEqual({ left: 4, why: 'live' });
    caps.subscribed('o', 3);
    expect(caps.room('o')).toEqual({ left: 1, why: 'live' });
    caps.close('o', 3);
    expect(caps.room('o')).toEqual({ left: 4, why: 'live' });
    // the pairs are gone, but 16 (4 × 4) were added this minute: churn is capped too
    caps.subscribed('o', 4);
    caps.unsubscribed('o', 4);
    caps.subscribed('o', 4);
    caps.unsubscribed('o', 4);
    caps.subscribed('o', 4);
    caps.unsubscribed('o', 4);
    expect(caps.room('o')).toEqual({ left: 1, why: 'rate' });
    caps.subscribed('o', 1);
    caps.unsubscribed('o', 1);
    expect(caps.room('o')).toEqual({ left: 0, why: 'rate' });
    expect(caps.message('rate', 3)).toMatch(/at most 16 new pairs a minute per key.*3 pair\(s\) rejected/);
    t = 60_000;
    expect(caps.room('o')).toEqual({ left: 4, why: 'live' });
    expect(caps.message('live', 2)).toMatch(/at most 4 live pairs per key.*2 pair\(s\) rejected/);
  });

  it('forgets owners with nothing open once their minute is over', () => {
    let t = 0;
    const caps = new OwnerCaps({ maxConnections: 1, maxSubscriptions: 1 }, () => t);
    caps.open('o');
    caps.subscribed('o', 1);
    caps.close('o', 1);
    expect(caps.size).toBe(1);
    t = 60_000;
    caps.sweep();
    expect(caps.size).toBe(0);
  });
});
