export { isUnroutable } from './program-registry';
export { AccountEntry, AccountSlot } from './account-slots';
export { DEFAULT_PROGRAM_MODULES } from './program-modules';
export { Projection } from './projection';
export type { ProjectionCounters } from './projection';
export type { MarketInfo, TokenInfo } from './market-listing';
