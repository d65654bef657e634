export { isUnroutable } from './program-registry';
export { AccountEntry, AccountSlot } from './account-slots';
export { VENUES } from './venues';
/** the same list, under the name apps/ingestor reads it by */
export type { Venue } from './program-registry';
export { Projection } from './projection';
export type { ProjectionCounters } from './projection';
export type { MarketInfo, TokenInfo } from './market-listing';
