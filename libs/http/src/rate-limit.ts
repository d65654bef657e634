/**
 * The rate limit's answers at the HTTP edge (API.md §7, §8): 429 `{success:false, error:"rate
 * limit exceeded"}` with `Retry-After`, and the X-RateLimit-Limit / -Remaining / -Reset headers
 * (Reset: seconds until the window reported starts afresh) on every answer the limit applies to.
 */
import type { RateVerdict } from './tier-limiter';

export const RATE_LIMITED = 'rate limit exceeded';
export const RATE_LIMITED_BODY = JSON.stringify({ success: false, error: RATE_LIMITED });

export function rateHeaders(v: RateVerdict): Record<string, string> {
  const h: Record<string, string> = {
    'X-RateLimit-Limit': String(v.limit),
    'X-RateLimit-Remaining': String(v.remaining),
    'X-RateLimit-Reset': String(v.resetSeconds),
  };
  if (!v.allowed) h['Retry-After'] = String(v.resetSeconds);
  return h;
}
