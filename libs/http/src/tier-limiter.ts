/**
 * Request rate limits per client and tier (API.md §8: the default tier allows 60 requests a
 * minute with bursts of 10 a second), on rate-limiter-flexible: in memory in one process, or in
 * Redis so that every replica counts against the same windows. A window is fixed, starting at a
 * client's first request in it; a refused request is given back, so it does not count. When Redis
 * cannot be reached each process limits in memory until it can again (the library's insurance
 * limiter).
 */
import type Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface TierLimits {
  /** requests a minute (0: no such window) */
  perMinute: number;
  /** requests a second, the burst (0: no such window) */
  perSecond: number;
}

export const DEFAULT_TIER = 'default';

/** what the limit says about one request, and the figures of its X-RateLimit-* headers */
export interface RateVerdict {
  allowed: boolean;
  /** the window reported: the per-minute one, or on a refusal the window that refused */
  limit: number;
  remaining: number;
  /** seconds until that window starts afresh */
  resetSeconds: number;
}

interface Window {
  max: number;
  limiter: RateLimiterAbstract;
}

export class TierRateLimiter {
  private readonly tiers = new Map<string, Window[]>();

  constructor(tiers: Readonly<Record<string, TierLimits>>, redis: Redis | null = null) {
    for (const [name, t] of Object.entries(tiers)) {
      const windows: Window[] = [];
      for (const [max, seconds] of [
        [t.perMinute, 60],
        [t.perSecond, 1],
      ] as const) {
        if (max <= 0) continue;
        const opts = { points: max, duration: seconds, keyPrefix: `rl:${name}:${seconds}` };
        const limiter = redis === null ? new RateLimiterMemory(opts) : new RateLimiterRedis({ ...opts, storeClient: redis, insuranceLimiter: new RateLimiterMemory(opts) });
        windows.push({ max, limiter });
      }
      this.tiers.set(name, windows);
    }
  }

  hasTier(tier: string): boolean {
    return this.tiers.has(tier);
  }

  /** one request of `client` in `tier` (an unknown tier counts as the default one): null when the tier has no limit */
  async take(client: string, tier: string): Promise<RateVerdict | null> {
    const windows = this.tiers.get(tier) ?? this.tiers.get(DEFAULT_TIER) ?? [];
    if (windows.length === 0) return null;
    const results = await Promise.all(windows.map((w) => w.limiter.consume(client).then((r) => ({ ok: true, r }), (e: unknown) => ({ ok: false, r: e }))));
    const refused = results.findIndex((x) => !x.ok);
    if (refused === -1) return verdict(true, windows[0], results[0].r as RateLimiterRes);
    // a store error with no insurance left: the library rejects with an Error, not a verdict
    const res = results[refused].r;
    if (!(res instanceof RateLimiterRes)) throw res;
    // a refused request does not count: give the windows that counted it their point back
    await Promise.all(windows.map((w, i) => (results[i].ok ? w.limiter.reward(client) : undefined)));
    // the refusal that waits longest decides
    let worst = refused;
    for (let i = 0; i < results.length; i++) {
      const r = results[i].r;
      if (!results[i].ok && r instanceof RateLimiterRes && r.msBeforeNext > (results[worst].r as RateLimiterRes).msBeforeNext) worst = i;
    }
    return verdict(false, windows[worst], results[worst].r as RateLimiterRes);
  }
}

function verdict(allowed: boolean, w: Window, r: RateLimiterRes): RateVerdict {
  return { allowed, limit: w.max, remaining: allowed ? r.remainingPoints : 0, resetSeconds: Math.max(1, Math.ceil(r.msBeforeNext / 1000)) };
}
