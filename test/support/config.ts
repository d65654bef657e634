/**
 * The e2e suites make many requests a second from one address; the API's rate limit (60 a
 * minute, 10 a second, on by default) is lifted for them. test/http-limits.e2e.spec.ts runs
 * the limit itself.
 */
export const NO_RATE_LIMIT = { RATE_LIMIT_PER_MINUTE: '0', RATE_LIMIT_PER_SECOND: '0' } as const;
