export { allowedMethods } from './allowed-methods';
export { clientAddress } from './client-address';
export { EdgeError, MISSING_HOST, TOO_DEEP, compressLargeAnswers, corsOptions, jsonBodyParser } from './edge';
export { RATE_LIMITED, RATE_LIMITED_BODY, rateHeaders } from './rate-limit';
export { isOpenPath } from './request-path';
export { configureServerEdge } from './server-edge';
export { DEFAULT_TIER, TierRateLimiter } from './tier-limiter';
