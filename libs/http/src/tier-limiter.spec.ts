import { TierRateLimiter } from './tier-limiter';

describe('TierRateLimiter (in memory)', () => {
  it('the default tier: a burst of 10 a second, then 429 figures; a refused request does not count against the minute', async () => {
    const rl = new TierRateLimiter({ default: { perMinute: 60, perSecond: 10 } });
    for (let i = 0; i < 10; i++) {
      const v = await rl.take('a', 'default');
      expect(v).toMatchObject({ allowed: true, limit: 60, remaining: 59 - i });
    }
    const refused = await rl.take('a', 'default');
    expect(refused).toMatchObject({ allowed: false, limit: 10, remaining: 0, resetSeconds: 1 });
    // another client has its own windows
    expect(await rl.take('b', 'default')).toMatchObject({ allowed: true, remaining: 59 });
  });

  it('a tier of its own; an unknown tier counts as the default; a tier without windows is unlimited', async () => {
    const rl = new TierRateLimiter({ default: { perMinute: 2, perSecond: 0 }, pro: { perMinute: 3, perSecond: 0 }, open: { perMinute: 0, perSecond: 0 } });
    for (let i = 0; i < 3; i++) expect((await rl.take('k', 'pro'))!.allowed).toBe(true);
    expect(await rl.take('k', 'pro')).toMatchObject({ allowed: false, limit: 3 });
    expect((await rl.take('x', 'nope'))!.limit).toBe(2);
    expect(await rl.take('k', 'open')).toBeNull();
  });

  it('a request the burst window refused is given back to the minute window', async () => {
    const rl = new TierRateLimiter({ default: { perMinute: 3, perSecond: 1 } });
    expect(await rl.take('a', 'default')).toMatchObject({ allowed: true, remaining: 2 });
    expect(await rl.take('a', 'default')).toMatchObject({ allowed: false, limit: 1 });
    await new Promise((r) => setTimeout(r, 1_100));
    expect(await rl.take('a', 'default')).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('the minute window refuses with the wait until it starts afresh', async () => {
    const rl = new TierRateLimiter({ default: { perMinute: 2, perSecond: 5 } });
    await rl.take('a', 'default');
    await rl.take('a', 'default');
    const v = await rl.take('a', 'default');
    expect(v).toMatchObject({ allowed: false, limit: 2, remaining: 0 });
    expect(v!.resetSeconds).toBeGreaterThan(55);
    expect(v!.resetSeconds).toBeLessThanOrEqual(60);
  });
});
